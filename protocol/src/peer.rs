//! What a failed call says to a user: the server's own message, or, when what answered at the
//! address is not the server the client expected (the other kind of Onyx server, or no gRPC
//! at all), which it looks like and what to give instead.

/// The kind of server a client expected at an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// A stone (`onyx stone`), which gems log in to.
    Stone,
    /// A gem's server agent (`onyx gem`), which the tools log in to.
    Gem,
}

impl Peer {
    fn name(self) -> &'static str {
        match self {
            Peer::Stone => "stone",
            Peer::Gem => "gem",
        }
    }
}

/// The message for `status`, the failure of a call to the server of kind `expected` at
/// `address`.
pub fn call_error(status: &tonic::Status, address: &str, expected: Peer) -> String {
    let said = status.message();
    if status.code() == tonic::Code::Unimplemented {
        return match expected {
            Peer::Stone => format!(
                "{address} does not serve the stone's protocol: is it a gem's agent? (give the address `onyx stone` \
                 prints; a gem is reached with --gem)"
            ),
            Peer::Gem => format!(
                "{address} does not serve a gem's agent: is it a stone? (give the address a gem prints after \
                 \"agent listening on\"; a stone is reached with --stone)"
            ),
        };
    }
    let this = expected.name();
    if said.starts_with("h2 protocol error") {
        return format!("the {this} at {address} broke off the call ({said}): it went away, or it is no Onyx {this}");
    }
    if said.is_empty() {
        return format!("the {this} at {address}: {}", status.code().description());
    }
    format!("the {this} at {address}: {said}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrong_kind_of_server_is_named() {
        let status = tonic::Status::unimplemented("");
        assert!(call_error(&status, "127.0.0.1:1", Peer::Stone).contains("is it a gem's agent?"));
        assert!(call_error(&status, "127.0.0.1:1", Peer::Gem).contains("is it a stone?"));
    }

    #[test]
    fn a_message_is_never_empty() {
        let status = tonic::Status::unknown("");
        assert_eq!(call_error(&status, "h:1", Peer::Gem), "the gem at h:1: Unknown error");
        let status = tonic::Status::unknown("h2 protocol error: http2 error");
        assert!(call_error(&status, "h:1", Peer::Gem).contains("it went away, or it is no Onyx gem"));
    }
}
