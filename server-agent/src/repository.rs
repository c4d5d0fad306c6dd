//! A new repository: the kernel booted into a VM, the users `SystemUser` and `DataCurator`
//! added, and the whole committed through an in-process stone (`onyx init`, and the IDE's
//! embedded repository on its first start).

use std::path::Path;
use std::sync::Arc;

use onyx_store::{LocalLink, Stone};

use crate::{GemError, Setup, users};

/// The initial passwords of a new repository's users (`None`: [`users::DEFAULT_PASSWORD`]).
#[derive(Clone, Debug, Default)]
pub struct Passwords {
    /// `SystemUser`'s.
    pub system_user: Option<String>,
    /// `DataCurator`'s.
    pub data_curator: Option<String>,
}

/// Creates a repository in `dir` holding the kernel, with the users `SystemUser` and
/// `DataCurator` (both may change code); answers the users given the default password.
pub fn create(setup: &Setup, dir: &Path, passwords: &Passwords) -> Result<Vec<&'static str>, GemError> {
    let mut vm = setup.boot()?;
    let mut defaulted = Vec::new();
    for (user, password) in [("SystemUser", &passwords.system_user), ("DataCurator", &passwords.data_curator)] {
        let password = password.clone().unwrap_or_else(|| {
            defaulted.push(user);
            users::DEFAULT_PASSWORD.to_string()
        });
        let hashed = users::hash(&password).map_err(GemError::Users)?;
        users::add(&mut vm, user, &hashed, true)
            .map_err(|e| GemError::Users(format!("cannot add user {user}: {e}")))?;
    }
    let stone = Arc::new(Stone::create(dir)?);
    let link = LocalLink::login(Arc::clone(&stone))?;
    vm.create_repository(Box::new(link))
        .map_err(|e| GemError::Stone(e.context("the kernel could not be committed")))?;
    Ok(defaulted)
}
