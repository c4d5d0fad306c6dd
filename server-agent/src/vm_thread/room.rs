//! The room a batch's reply has. A front end says how many bytes its reply holds for the
//! operations' answers and how it measures one; the VM thread runs an operation only while
//! the answers so far leave room for the most it may answer, and an answer that does not fit
//! stands down for a failure that says so: the reply is never too large to send, so no
//! answer is lost after the work that it reports ran. A failure is cut to what a reply
//! carries ([`bounded`]).

use crate::ops::request::{Done, ErrorKind, Failure};

/// The most an operation that changes something answers: a doit's value (its printString's
/// first part), a failure (bounded), a commit (its first conflicts). With less room left,
/// the rest of a batch does not run.
pub const OPERATION_ROOM: usize = 8 << 20;

/// The most characters of a failure's message a reply carries.
pub const FAILURE_TEXT: usize = 1 << 16;

/// The most characters of one frame of a failure's stack a reply carries.
pub const FRAME_TEXT: usize = 1000;

/// The most frames of a failure's stack a reply carries.
pub const FAILURE_FRAMES: usize = 256;

/// `failure` as a reply carries it: its message cut at [`FAILURE_TEXT`] characters, its
/// stack at [`FAILURE_FRAMES`] frames of at most [`FRAME_TEXT`] (the debugger shows a kept
/// process's whole stack), so that a failure's answer is never too large to send.
pub fn bounded(mut failure: Failure) -> Failure {
    fn cut(text: &mut String, most: usize) {
        if let Some((at, _)) = text.char_indices().nth(most) {
            let more = text[at..].chars().count();
            text.truncate(at);
            text.push_str(&format!("… ({more} more characters)"));
        }
    }
    cut(&mut failure.message, FAILURE_TEXT);
    if failure.stack.len() > FAILURE_FRAMES {
        let more = failure.stack.len() - FAILURE_FRAMES;
        failure.stack.truncate(FAILURE_FRAMES);
        failure.stack.push(format!("… ({more} more frames)"));
    }
    failure.stack.iter_mut().for_each(|frame| cut(frame, FRAME_TEXT));
    failure
}

/// What a batch's reply has left for its answers.
pub struct Room {
    left: usize,
    size_of: fn(&Done) -> usize,
    /// An answer did not fit: nothing after it runs.
    full: bool,
}

impl Room {
    /// A reply that holds `bytes` of answers, each as large as `size_of` says.
    pub fn new(bytes: usize, size_of: fn(&Done) -> usize) -> Room {
        Room { left: bytes, size_of, full: false }
    }

    /// The failure an operation answers if it may not run (the room left may not hold its
    /// answer), before it runs; `None` if it may.
    pub fn refusal(&self) -> Option<Failure> {
        (self.full || self.left < OPERATION_ROOM)
            .then(|| Failure::new(ErrorKind::TooLarge, "not run: the batch's reply is full"))
    }

    /// `done` as the reply carries it: whole if it fits in the room left, or else a failure
    /// that says how large it was (and nothing after it runs).
    pub fn fit(&mut self, done: Done) -> Done {
        let size = (self.size_of)(&done);
        if size <= self.left {
            self.left -= size;
            return done;
        }
        let failure = Failure::new(
            ErrorKind::TooLarge,
            format!(
                "the answer is {size} bytes, more than the {} left in the batch's reply: ask for it in pages, or in a \
                 batch of its own",
                self.left
            ),
        );
        self.full = true;
        let done = Done { outcome: Err(failure), ..done };
        self.left = self.left.saturating_sub((self.size_of)(&done));
        done
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::ops::request::Answer;

    fn text(n: usize) -> Done {
        Done { outcome: Ok(Answer::Text("x".repeat(n))), server_time: Duration::ZERO }
    }

    fn size_of(done: &Done) -> usize {
        match &done.outcome {
            Ok(Answer::Text(t)) => t.len(),
            _ => 10,
        }
    }

    #[test]
    fn answers_that_fit_are_kept_and_the_rest_is_refused_before_it_runs() {
        let mut room = Room::new(OPERATION_ROOM + 100, size_of);
        assert!(room.refusal().is_none());
        assert_eq!(room.fit(text(50)), text(50));
        assert!(room.refusal().is_none(), "still room for an operation");
        assert_eq!(room.fit(text(60)), text(60));
        let refused = room.refusal().expect("less room than an operation may need");
        assert_eq!(refused.kind, ErrorKind::TooLarge);
    }

    #[test]
    fn an_answer_too_large_stands_down_and_nothing_after_it_runs() {
        let mut room = Room::new(OPERATION_ROOM * 2, size_of);
        let done = room.fit(text(OPERATION_ROOM * 3));
        let failure = done.outcome.expect_err("too large");
        assert_eq!(failure.kind, ErrorKind::TooLarge);
        assert!(failure.message.contains(&format!("{} bytes", OPERATION_ROOM * 3)), "{}", failure.message);
        assert!(room.refusal().is_some(), "the batch stops at the answer that did not fit");
    }
}
