//! Attach tickets: how a tool logs in to another gem's agent without sending a password to an
//! address it was only told about. A session asks the stone for a ticket to one session's
//! gem ([`Stone::issue_ticket`]); the ticket names the asking session's user and that target
//! session, lives a minute and is good once. The tool hands it to the gem, whose session
//! redeems it ([`Stone::redeem_ticket`]): the stone answers the ticket's user only to the
//! target session itself. A gem that is not the one the ticket names (an agent address
//! someone else advertised) learns nothing it could use anywhere: the ticket is spent, and
//! names a session that is not its own.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use argon2::password_hash::rand_core::{OsRng, RngCore as _};
use onyx_record::UserInfo;

use crate::error::StoreError;
use crate::stone::Stone;

/// How long a ticket may wait to be redeemed.
pub const TICKET_LIFE: Duration = Duration::from_secs(60);

/// How many live tickets one session may hold at once (a tool attaches to a few gems at a
/// time; a session asking for more gives up its oldest).
pub const TICKETS_PER_SESSION: usize = 16;

/// One ticket: whose it is, for which session's gem, and since when.
struct Ticket {
    user: String,
    issuer: u64,
    target: u64,
    issued: Instant,
}

/// The live tickets, by their secret.
#[derive(Default)]
pub(crate) struct Tickets {
    live: HashMap<String, Ticket>,
}

impl Tickets {
    /// A new ticket of `user` (of session `issuer`) to the gem of session `target`.
    fn issue(&mut self, user: &str, issuer: u64, target: u64) -> String {
        let now = Instant::now();
        self.live.retain(|_, t| now.duration_since(t.issued) < TICKET_LIFE);
        let mut held: Vec<(Instant, String)> =
            self.live.iter().filter(|(_, t)| t.issuer == issuer).map(|(k, t)| (t.issued, k.clone())).collect();
        if held.len() >= TICKETS_PER_SESSION {
            held.sort();
            for (_, oldest) in held.iter().take(held.len() + 1 - TICKETS_PER_SESSION) {
                self.live.remove(oldest);
            }
        }
        let mut bytes = [0u8; 32];
        OsRng.fill_bytes(&mut bytes);
        let secret: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        self.live.insert(secret.clone(), Ticket { user: user.to_string(), issuer, target, issued: now });
        secret
    }

    /// Spends `secret`: whose it was, if it is live and names session `redeemer`.
    fn redeem(&mut self, secret: &str, redeemer: u64) -> Option<String> {
        let ticket = self.live.remove(secret)?;
        (ticket.target == redeemer && ticket.issued.elapsed() < TICKET_LIFE).then_some(ticket.user)
    }
}

impl Stone {
    /// A ticket of session `session`'s user to the gem of session `target`, which must be
    /// live: the ticket lets them log in to that gem's agent once, within [`TICKET_LIFE`],
    /// as if with their password (see [`Stone::admit`]).
    pub fn issue_ticket(&self, session: u64, target: u64) -> Result<String, StoreError> {
        let mut st = self.shared.state();
        let user = st.sessions.get(&session).ok_or(StoreError::NoSession(session))?.user.name.clone();
        if !st.sessions.contains_key(&target) {
            return Err(StoreError::Invalid(format!("session {target} is not logged in")));
        }
        Ok(st.tickets.issue(&user, session, target))
    }

    /// Redeems a ticket handed to the gem of `session`: the user it was issued to, if it was
    /// issued for this session, is still live, and its user may log in to this gem (the
    /// session's own user, or one who may debug others' gems, as they are now). A ticket is
    /// spent by any attempt.
    pub fn redeem_ticket(&self, session: u64, secret: &str) -> Result<UserInfo, StoreError> {
        let mut st = self.shared.state();
        let owner = st.sessions.get(&session).ok_or(StoreError::NoSession(session))?.user.name.clone();
        let refused =
            || StoreError::PermissionDenied("the ticket is unknown, spent, expired or for another gem".into());
        let name = st.tickets.redeem(secret, session).ok_or_else(refused)?;
        let user = st.users.get(&name).cloned().ok_or_else(refused)?;
        user.may_attach_to(&owner)?;
        Ok(user.info())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ticket_is_good_once_and_only_for_its_session() {
        let mut tickets = Tickets::default();
        let t = tickets.issue("Dave", 1, 2);
        assert_eq!(tickets.redeem(&t, 2).as_deref(), Some("Dave"));
        assert_eq!(tickets.redeem(&t, 2), None, "spent");
        let t = tickets.issue("Dave", 1, 2);
        assert_eq!(tickets.redeem(&t, 3), None, "another session's gem");
        assert_eq!(tickets.redeem(&t, 2), None, "spent by the wrong gem's attempt");
    }

    #[test]
    fn a_session_holds_a_bounded_number_of_tickets() {
        let mut tickets = Tickets::default();
        let first = tickets.issue("Carol", 1, 2);
        for _ in 0..10 * TICKETS_PER_SESSION {
            tickets.issue("Carol", 1, 2);
        }
        assert_eq!(tickets.live.len(), TICKETS_PER_SESSION);
        assert_eq!(tickets.redeem(&first, 2), None, "the oldest went");
        let other = tickets.issue("Bob", 3, 2);
        assert_eq!(tickets.redeem(&other, 2).as_deref(), Some("Bob"), "another session's are its own");
    }
}
