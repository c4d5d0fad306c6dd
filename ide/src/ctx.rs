//! What a pane may do while it draws ([`Ctx`]): send batches, one per gesture, each named
//! for the status bar, noted as a refresh when it only reads again what a pane shows, and
//! open other panes, here or on another gem.

use std::collections::{HashMap, HashSet};

use onyx_protocol::agent::{self as pb, operation::Op};

use crate::link::{Link, Ticket};
use crate::panes::Pane;
use crate::remote::Attach;

/// The batches sent and not yet answered: each one's gesture, and those that may change what
/// the panes show (a doit), after which they read it again.
#[derive(Default)]
pub(crate) struct Sent {
    pub(crate) names: HashMap<Ticket, &'static str>,
    pub(crate) changing: HashSet<Ticket>,
    /// Batches sent by panes reading again what they show (not gestures of their own), not
    /// answered yet (their auto-commits move the view, but call for no further
    /// reading).
    pub(crate) refreshing: HashSet<Ticket>,
    /// Panes asked for on other gems, to open once linked (see `remote.rs`).
    pub(crate) attach: Vec<(String, u64, Attach)>,
}

/// What a pane may do while it draws: send batches (one per gesture) and open other panes.
pub struct Ctx<'a> {
    /// The connection to the gem.
    pub link: &'a mut Link,
    pub(crate) sent: &'a mut Sent,
    /// Panes to open once the frame is drawn.
    pub opened: &'a mut Vec<Pane>,
    /// Whether the pane drawn is the one the pointer was last pressed in (its keyboard
    /// shortcuts work).
    pub focused: bool,
    /// The batches sent are panes reading again what they show.
    pub(crate) refreshing: bool,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(link: &'a mut Link, sent: &'a mut Sent, opened: &'a mut Vec<Pane>) -> Ctx<'a> {
        Ctx { link, sent, opened, focused: true, refreshing: false }
    }
}

impl Ctx<'_> {
    /// Sends the batch of gesture `name` (shown in the status bar when it is answered).
    pub fn send(&mut self, name: &'static str, ops: Vec<Op>) -> Ticket {
        let ticket = self.link.execute(ops);
        self.sent_as(ticket, name)
    }

    /// Notes what batch `ticket` is.
    fn sent_as(&mut self, ticket: Ticket, name: &'static str) -> Ticket {
        self.sent.names.insert(ticket, name);
        if self.refreshing {
            self.sent.refreshing.insert(ticket);
            self.link.count_refresh();
        }
        ticket
    }

    /// Runs `read` as a pane reading again what it shows (what an event told of, seen when
    /// it draws next), not as a gesture.
    pub fn refreshing<R>(&mut self, read: impl FnOnce(&mut Ctx) -> R) -> R {
        let was = std::mem::replace(&mut self.refreshing, true);
        let answer = read(self);
        self.refreshing = was;
        answer
    }

    /// Sends the batch of gesture `name`, which may change what other panes show (a doit):
    /// once it is answered, if it changed the transaction, every pane reads what it shows
    /// again.
    pub fn send_changing(&mut self, name: &'static str, ops: Vec<Op>) -> Ticket {
        let ticket = self.send(name, ops);
        self.sent.changing.insert(ticket);
        ticket
    }

    /// Asks to open `what` on the gem of session `session`, whose agent is at `gem` (this
    /// gem, or another of the stone, logged in to as the IDE's user).
    pub fn attach(&mut self, gem: String, session: u64, what: Attach) {
        self.sent.attach.push((gem, session, what));
    }

    /// The same context on another link (a pane on another gem draws with it).
    pub fn on<'b>(&'b mut self, link: &'b mut Link) -> Ctx<'b> {
        Ctx { link, sent: self.sent, opened: self.opened, focused: self.focused, refreshing: self.refreshing }
    }

    /// Sends one operation of gesture `name` asking for one page of its list.
    pub fn send_page(&mut self, name: &'static str, op: Op, page: pb::Page) -> Ticket {
        self.send_ops_page(name, vec![op], page)
    }

    /// Sends the batch of gesture `name`, its last operation asking for one page of its list.
    pub fn send_ops_page(&mut self, name: &'static str, ops: Vec<Op>, page: pb::Page) -> Ticket {
        let ticket = self.link.execute_page(ops, page);
        self.sent_as(ticket, name)
    }
}
