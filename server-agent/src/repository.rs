//! A new repository: the kernel booted into a VM, the users `SystemUser` and `DataCurator`
//! added, and the whole committed through an in-process stone (`onyx init`, and the IDE's
//! embedded repository on its first start).

use std::path::Path;
use std::sync::Arc;

use onyx_record::SYSTEM_POLICY;
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

/// Creates a repository in `dir` holding the kernel, with the users `SystemUser` (whose
/// objects, the kernel's, are in the system policy) and `DataCurator` (both may change code
/// and administer the stone);
/// answers the users given the default password. `Published` belongs to no policy: every
/// user may keep objects there (each user's `UserGlobals` is their own).
pub fn create(setup: &Setup, dir: &Path, passwords: &Passwords) -> Result<Vec<&'static str>, GemError> {
    let mut vm = setup.boot()?;
    let mut defaulted = Vec::new();
    let mut password_of = |user: &'static str, given: &Option<String>| {
        given.clone().unwrap_or_else(|| {
            defaulted.push(user);
            users::DEFAULT_PASSWORD.to_string()
        })
    };
    let system_user = password_of("SystemUser", &passwords.system_user);
    let data_curator = password_of("DataCurator", &passwords.data_curator);
    let stone = Arc::new(Stone::create(dir)?);
    stone.add_user(None, "SystemUser", &system_user, true, Some(SYSTEM_POLICY))?;
    stone.add_user(None, "DataCurator", &data_curator, true, None)?;
    stone.set_groups(None, "DataCurator", &[onyx_record::policy::ADMINISTRATORS.to_string()])?;
    let link = LocalLink::login(Arc::clone(&stone), "SystemUser", &system_user)?;
    let open: Vec<_> = vm.global("Published").into_iter().collect();
    vm.create_repository(Box::new(link), &open)
        .map_err(|e| GemError::Stone(e.context("the kernel could not be committed")))?;
    Ok(defaulted)
}
