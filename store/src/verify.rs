//! The offline check of a whole repository (`onyx verify`): every object record and chunk
//! read back and checked against its checksum, decoded, and checked for the shape of its
//! kind; every reference, class and symbol resolved; the transaction log read as recovery
//! would, its commits taken as the stone would apply them; the object log's reports read
//! back. Nothing is changed but what redb's own integrity check repairs in the file's
//! bookkeeping when it opens it.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use onyx_record::{ObjectRecord, Oop, ROOT};

use crate::error::StoreError;
use crate::repo::Repository;
use crate::tranlog::TranLog;

/// The most problems a report lists one by one.
const LISTED: usize = 100;

/// What a check of a repository found.
#[derive(Debug, Default)]
pub struct Report {
    /// The number of the last commit the object table holds.
    pub commit: u64,
    /// Commits the transaction log holds past it (the stone applies them when it starts).
    pub logged: u64,
    /// Objects checked.
    pub objects: u64,
    /// Chunks of large objects checked.
    pub chunks: u64,
    /// The first problems found, each naming what it is about.
    pub problems: Vec<String>,
    /// Problems found past those listed.
    pub unlisted: u64,
}

impl Report {
    /// Whether nothing is wrong.
    pub fn is_sound(&self) -> bool {
        self.problems.is_empty()
    }

    fn problem(&mut self, what: String) {
        if self.problems.len() < LISTED {
            self.problems.push(what);
        } else {
            self.unlisted += 1;
        }
    }
}

/// Checks the repository in `dir` (whose stone must not be running). A folder that holds no
/// repository is an error; a repository whose stone would refuse to start (a damaged file,
/// a transaction log that is not its own, users or policies that do not decode) is reported
/// as damaged, as is whatever else is wrong in one that opens.
pub fn verify(dir: &Path) -> Result<Report, StoreError> {
    let repo = match Repository::open(dir) {
        Ok(repo) => repo,
        Err(e @ (StoreError::Corrupt(_) | StoreError::NotARepository(_))) => {
            let mut report = Report::default();
            report.problem(e.to_string());
            return Ok(report);
        }
        Err(e) => return Err(e),
    };
    let snap = repo.snapshot()?;
    let meta = snap.meta()?;
    let mut report = Report { commit: meta.commit_seq, ..Report::default() };
    // What the stone reads at start besides the log: its users and policies.
    for read in [repo.users().map(drop), repo.policies().map(drop)] {
        if let Err(e) = read {
            report.problem(e.to_string());
        }
    }
    // The commits the log holds past the object table, as the stone would apply them; the
    // log checked as the stone checks it when it starts.
    let mut logged: HashMap<Oop, ObjectRecord> = HashMap::new();
    let mut oop_high = meta.oop_high;
    match TranLog::inspect(dir, repo.id()?, meta.commit_seq, repo.log_pending()?) {
        Ok(batches) => {
            report.logged = batches.last().map_or(0, |b| b.meta.commit_seq - meta.commit_seq);
            for b in batches {
                oop_high = oop_high.max(b.meta.oop_high);
                logged.extend(b.records.into_iter().map(|r| (r.oop, r)));
            }
        }
        Err(e) => report.problem(e.to_string()),
    }
    let stored: HashSet<Oop> = snap.oops()?.into_iter().collect();
    let present: HashSet<Oop> = stored.iter().copied().chain(logged.keys().copied()).collect();
    let check = |report: &mut Report, r: &ObjectRecord| {
        if let Err(why) = r.check_shape() {
            report.problem(why);
        }
        if r.oop >= oop_high {
            report.problem(format!("object {} lies past the repository's OOP high-water mark {oop_high}", r.oop));
        }
        if let Some(missing) = r.references().find(|o| !present.contains(o)) {
            report.problem(format!("object {} refers to object {missing}, which is not there", r.oop));
        }
        for id in r.symbols() {
            if !matches!(snap.symbol_name(id), Ok(Some(_))) {
                report.problem(format!("object {} names symbol {id}, which is not there", r.oop));
            }
        }
    };
    let mut in_order: Vec<Oop> = stored.iter().copied().collect();
    in_order.sort_unstable();
    for oop in in_order {
        report.objects += 1;
        match snap.get(oop) {
            Ok(Some(r)) if !logged.contains_key(&oop) => check(&mut report, &r),
            Ok(_) => {}
            Err(e) => report.problem(e.to_string()),
        }
    }
    for r in logged.values() {
        if !stored.contains(&r.oop) {
            report.objects += 1;
        }
        check(&mut report, r);
    }
    if report.commit + report.logged > 0 && !present.contains(&ROOT) {
        report.problem("the repository has no root object".into());
    }
    let chunks = snap.chunk_keys()?;
    report.chunks = chunks.len() as u64;
    let chunked: HashSet<Oop> = chunks.into_iter().map(|(oop, _)| oop).collect();
    for oop in chunked.iter().filter(|oop| !present.contains(oop)) {
        report.problem(format!("chunks of object {oop}, which is not there"));
    }
    // The object log's reports, each read back against its checksum and decoded.
    if let Err(e) = repo.object_log(0, u32::MAX, None) {
        report.problem(e.to_string());
    }
    Ok(report)
}
