//! What the tools (the command line, the IDE) say of the agent's answers in words, the same
//! words in each.

use crate::agent as pb;

/// What kind of breakpoint `b` is, a few words each: its condition, log expression, hit rule
/// and once; none for one that always stops.
pub fn breakpoint_kind(b: &pb::BreakpointInfo) -> Vec<String> {
    let mut words = Vec::new();
    if !b.condition.is_empty() {
        words.push(format!("if {}", b.condition));
    }
    if !b.log.is_empty() {
        words.push(format!("log {}", b.log));
    }
    match pb::BreakpointHits::try_from(b.hits) {
        Ok(pb::BreakpointHits::HitsNth) => words.push(format!("hit {}", b.hits_n)),
        Ok(pb::BreakpointHits::HitsEvery) => words.push(format!("every {} hits", b.hits_n)),
        Ok(pb::BreakpointHits::HitsFrom) => words.push(format!("from hit {}", b.hits_n)),
        _ => {}
    }
    if b.once {
        words.push("once".into());
    }
    words
}

/// The hits of `b`: in this gem, and in each other gem that counted some
/// (`3 here, 12 in 10.0.0.5:4310`).
pub fn breakpoint_hits(b: &pb::BreakpointInfo) -> String {
    let mut parts = vec![format!("{} here", b.hits_here)];
    for g in &b.hits_by_gem {
        let gem = if g.agent.is_empty() { format!("session {}", g.session) } else { g.agent.clone() };
        parts.push(format!("{} in {gem}", g.hits));
    }
    parts.join(", ")
}
