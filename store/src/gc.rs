//! The repository's garbage collector: objects that no live view can reach from the root
//! are deleted, so that a repository whose objects churn stops growing.
//!
//! It runs on the committer thread, between commit batches, so nothing commits while it
//! marks and sweeps. It marks from the root and from each user's `UserProfile` (their
//! `UserGlobals` hang off it) in the latest commit and in every session's view
//! (an object a session can still reach in its view is kept), then deletes every other object
//! in one durable transaction. A gem that later commits a reference to a deleted object (one
//! it held since before its view) gets a clear error from the commit's checks, never a
//! dangling reference.

use std::collections::HashSet;
use std::sync::Arc;

use crate::error::StoreError;
use crate::repo::Snapshot;
use crate::stone::Shared;
use onyx_record::{Oop, ROOT};

/// What a collection found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GcReport {
    /// Objects some view can reach.
    pub live: u64,
    /// Objects deleted.
    pub reclaimed: u64,
}

/// Where a collection's report goes (called once, on the committer thread).
pub type GcReply = Box<dyn FnOnce(Result<GcReport, StoreError>) + Send>;

/// Marks and sweeps (on the committer thread).
pub(crate) fn collect(shared: &Shared) -> Result<GcReport, StoreError> {
    let latest = Arc::new(shared.repo.snapshot()?);
    let mut snapshots: Vec<Arc<Snapshot>> = vec![Arc::clone(&latest)];
    let profiles: Vec<Oop> = {
        let st = shared.state();
        snapshots.extend(st.sessions.values().map(|s| Arc::clone(&s.view)));
        st.users.values().map(|u| u.profile).collect()
    };
    let live = mark(&snapshots, &profiles)?;
    let dead: Vec<Oop> = latest.oops()?.into_iter().filter(|oop| !live.contains(oop)).collect();
    if !dead.is_empty() {
        shared.repo.delete(&dead)?;
    }
    Ok(GcReport { live: live.len() as u64, reclaimed: dead.len() as u64 })
}

/// Everything reachable from the root and from every user's profile, where each object kept counts with what every one of
/// its versions (in any of `snapshots`) refers to: an object a view keeps alive may be
/// committed again later as it is now, and what it refers to now must still be there.
fn mark(snapshots: &[Arc<Snapshot>], profiles: &[Oop]) -> Result<HashSet<Oop>, StoreError> {
    let mut live: HashSet<Oop> = HashSet::new();
    let mut stack = vec![ROOT];
    stack.extend_from_slice(profiles);
    while let Some(oop) = stack.pop() {
        if !live.insert(oop) {
            continue;
        }
        for snap in snapshots {
            if let Some(record) = snap.get(oop)? {
                stack.extend(record.references().filter(|r| !live.contains(r)));
            }
        }
    }
    Ok(live)
}
