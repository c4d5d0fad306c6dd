//! `onyx bench agent`: the server agent's speed on a large image, through a running gem. It
//! fills the gem with generated classes and methods (unless they are there already, from an
//! earlier run committed to the same repository), then times the batches the tools send:
//! selecting a method, senders and implementors of a common selector, and a batch of 20
//! small operations against one, each as server time beside the loopback round trip.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_protocol::client::AgentSession;

use crate::client::{execute, login};

/// What `onyx bench agent` does.
pub struct AgentBench<'a> {
    pub gem: &'a str,
    pub classes: usize,
    pub methods_per_class: usize,
    pub runs: usize,
}

/// Each generated method sends this selector, so its senders are many.
const COMMON: &str = "benchCommon";

/// Runs the agent's benchmark.
pub fn run(b: &AgentBench) -> Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(bench(b))
}

struct Client(AgentSession);

impl Client {
    /// One batch; its results and server time (an error answer is an error).
    async fn batch(&mut self, ops: Vec<Op>) -> Result<(Vec<Outcome>, Duration)> {
        let reply = execute(&mut self.0, ops).await?;
        let outcomes = reply.results.into_iter().filter_map(|r| r.outcome).collect::<Vec<_>>();
        if let Some(Outcome::Error(e)) = outcomes.iter().find(|o| matches!(o, Outcome::Error(_))) {
            bail!("the gem answered an error: {}", e.message);
        }
        Ok((outcomes, Duration::from_micros(reply.server_micros)))
    }
}

fn evaluate(source: &str) -> Op {
    Op::Evaluate(pb::Evaluate { source: source.into(), ..Default::default() })
}

fn class_ref(name: &str) -> Option<pb::ClassRef> {
    Some(pb::ClassRef { class_name: name.into(), meta: false })
}

fn class_name(i: usize) -> String {
    format!("BenchClass{i:05}")
}

async fn bench(b: &AgentBench<'_>) -> Result<ExitCode> {
    let mut c = Client(login(b.gem).await?);
    generate(&mut c, b).await?;
    let (methods, _) = c.batch(vec![evaluate("(Smalltalk allClasses inject: 0 into: [:n :each | n + each selectors size + each class selectors size]) printString")]).await?;
    let (classes, _) = c.batch(vec![evaluate("Smalltalk allClasses size")]).await?;
    let shown = |o: &[Outcome]| match o.first() {
        Some(Outcome::Evaluated(e)) => e.print_string.trim_matches('\'').to_string(),
        _ => "?".into(),
    };
    println!("image: {} classes, {} methods", shown(&classes), shown(&methods));

    let target = class_name(b.classes / 2);
    let select = || {
        vec![
            Op::ClassDefinition(pb::ClassRef { class_name: target.clone(), meta: false }),
            Op::Protocols(pb::ClassRef { class_name: target.clone(), meta: false }),
            Op::Methods(pb::ProtocolRef { class: class_ref(&target), protocol: "generated".into() }),
            Op::MethodSource(pb::MethodRef { class: class_ref(&target), selector: "method0".into() }),
        ]
    };
    let small = || Op::MethodSource(pb::MethodRef { class: class_ref(&target), selector: "method1".into() });
    // The first cross-reference query builds the index the later ones read.
    let first = c.batch(vec![Op::Senders(pb::SelectorRef { selector: COMMON.into() })]).await?.1;
    println!("senders, the first query (builds the index): {:.2} ms", first.as_secs_f64() * 1e3);
    let mut figures: Vec<(&str, Vec<Duration>)> = vec![
        ("loopback round trip (empty batch), wall", Vec::new()),
        ("select a method (definition + protocols + methods + source)", Vec::new()),
        ("senders of a common selector", Vec::new()),
        ("implementors of a common selector", Vec::new()),
        ("one small operation", Vec::new()),
        ("20 small operations in one batch", Vec::new()),
    ];
    for _ in 0..b.runs {
        let started = Instant::now();
        c.batch(Vec::new()).await?;
        figures[0].1.push(started.elapsed());
        figures[1].1.push(c.batch(select()).await?.1);
        figures[2].1.push(c.batch(vec![Op::Senders(pb::SelectorRef { selector: COMMON.into() })]).await?.1);
        figures[3].1.push(c.batch(vec![Op::Implementors(pb::SelectorRef { selector: "method0".into() })]).await?.1);
        figures[4].1.push(c.batch(vec![small()]).await?.1);
        figures[5].1.push(c.batch((0..20).map(|_| small()).collect()).await?.1);
    }
    for (name, mut times) in figures {
        times.sort();
        let median = times.get(times.len() / 2).copied().unwrap_or_default();
        println!("{name}: {:.2} ms (median of {})", median.as_secs_f64() * 1e3, times.len());
    }
    c.0.logout().await.map_err(|s| anyhow!("the gem at {}: {}", b.gem, s.message()))?;
    Ok(ExitCode::SUCCESS)
}

/// Defines the classes and their methods, in batches, and commits (unless the first class
/// is there already).
async fn generate(c: &mut Client, b: &AgentBench<'_>) -> Result<()> {
    let (there, _) = c.batch(vec![evaluate(&format!("Smalltalk includesKey: #{}", class_name(0)))]).await?;
    if matches!(there.first(), Some(Outcome::Evaluated(e)) if e.print_string == "true") {
        return Ok(());
    }
    let started = Instant::now();
    for i in 0..b.classes {
        let name = class_name(i);
        let mut ops = vec![Op::DefineClass(pb::Definition {
            definition: format!(
                "Object subclass: #{name} instanceVariableNames: 'a b' classVariableNames: '' package: 'Bench-{}'",
                i / 100
            ),
        })];
        for m in 0..b.methods_per_class {
            ops.push(Op::CompileMethod(pb::CompileMethod {
                class: class_ref(&name),
                protocol: "generated".into(),
                source: format!("method{m}\n\t^ a isNil ifTrue: [self {COMMON}] ifFalse: [b + {m}]"),
            }));
        }
        if i == 0 {
            ops.push(Op::CompileMethod(pb::CompileMethod {
                class: class_ref(&name),
                protocol: "generated".into(),
                source: format!("{COMMON}\n\t^ 0"),
            }));
        }
        c.batch(ops).await?;
        if i % 500 == 499 {
            c.batch(vec![Op::CommitTransaction(pb::Empty {})]).await?;
        }
    }
    c.batch(vec![Op::CommitTransaction(pb::Empty {})]).await?;
    println!(
        "generated {} classes of {} methods in {:.1} s",
        b.classes,
        b.methods_per_class,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
