//! Object security policies, GemStone's: every object belongs to one, which says what its
//! owner, the members of groups, and everyone else may do with it. The stone keeps them and
//! checks every fetch and commit against them; a gem reads and defines them through its
//! session ([`crate::StoneLink::policy`], [`crate::StoneLink::define_policy`]).

/// The group every user who may change code is in: [`crate::SYSTEM_POLICY`] lets it write.
pub const CODE_CHANGERS: &str = "CodeChangers";

/// The group whose members may debug the processes of any user's gem: log in to that gem's
/// agent as a debugger (`onyx add-user --may-debug-others` puts a user in it).
pub const DEBUGGERS: &str = "Debuggers";

/// The group whose members administer the stone: add users and give them rights, list and
/// remove any session's locks, stop sessions, move objects of no policy (`onyx add-user
/// --may-administer`). [`SYSTEM_USER`] administers without being in it.
pub const ADMINISTRATORS: &str = "Administrators";

/// The user who owns the kernel, and administers every stone.
pub const SYSTEM_USER: &str = "SystemUser";

/// What a user may do with the objects of a policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Access {
    /// Nothing: the objects are not even read.
    None,
    /// Read them.
    Read,
    /// Read and change them.
    Write,
}

impl Access {
    /// The access of its byte (as [`Access`] `as u8` gives), if it is one.
    pub fn from_byte(b: u8) -> Option<Access> {
        [Access::None, Access::Read, Access::Write].get(usize::from(b)).copied()
    }
}

/// An object security policy: its owner's access, its groups', and everyone else's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// The user who owns it.
    pub owner: String,
    /// What its owner may do.
    pub owner_access: Access,
    /// What the members of each group may do.
    pub groups: Vec<(String, Access)>,
    /// What everyone may do.
    pub world: Access,
}

impl Policy {
    /// The kernel's: everyone reads, code changers write.
    pub fn system() -> Policy {
        Policy {
            owner: SYSTEM_USER.into(),
            owner_access: Access::Write,
            groups: vec![(CODE_CHANGERS.into(), Access::Write)],
            world: Access::Read,
        }
    }

    /// A new user's own: they write, everyone reads.
    pub fn own(user: &str) -> Policy {
        Policy { owner: user.into(), owner_access: Access::Write, groups: Vec::new(), world: Access::Read }
    }
}
