//! The gem commands: `onyx init` (a repository holding the kernel) and `onyx eval --stone` (a
//! doit in a new session, like `topaz -l`). `onyx gem` is the agent's (`agent/`).

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Result, anyhow};
use onyx_store::Stone;
use onyx_vm::Vm;
use onyx_vm::persist::LocalLink;

use crate::cli::{Setup, boot, print_evaluation};
use crate::stone_client::StoneSession;
use crate::users;

/// The initial passwords of a new repository's users.
pub struct Passwords {
    pub system_user: Option<String>,
    pub data_curator: Option<String>,
}

/// Creates a repository in `dir` and commits the kernel into it, with the users
/// `SystemUser` and `DataCurator` (both may change code); says so.
pub fn init(setup: &Setup, dir: &Path, passwords: &Passwords) -> Result<ExitCode> {
    let defaulted = create(setup, dir, passwords)?;
    println!("created a repository in {}", dir.display());
    if !defaulted.is_empty() {
        println!(
            "{} has the password '{}': set another with onyx init's password options",
            defaulted.join(" and "),
            users::DEFAULT_PASSWORD
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Creates the repository of [`init`] quietly; answers the users given the default password.
pub fn create(setup: &Setup, dir: &Path, passwords: &Passwords) -> Result<Vec<&'static str>> {
    let mut vm = boot(setup)?;
    let mut defaulted = Vec::new();
    for (user, password) in [("SystemUser", &passwords.system_user), ("DataCurator", &passwords.data_curator)] {
        let password = password.clone().unwrap_or_else(|| {
            defaulted.push(user);
            users::DEFAULT_PASSWORD.to_string()
        });
        let hashed = users::hash(&password).map_err(|e| anyhow!(e))?;
        users::add(&mut vm, user, &hashed, true).map_err(|e| anyhow!("cannot add user {user}: {e}"))?;
    }
    let stone = Arc::new(Stone::create(dir)?);
    let link = LocalLink::login(Arc::clone(&stone)).map_err(|e| anyhow!(e))?;
    vm.create_repository(Box::new(link)).map_err(|e| anyhow!("the kernel could not be committed: {e}"))?;
    Ok(defaulted)
}

/// Logs in to the stone at `addr`: a VM on the repository's committed state.
fn login(setup: &Setup, addr: &str) -> Result<Vm> {
    let session = StoneSession::connect(addr)?;
    Vm::login(Box::new(session), setup.config).map_err(|e| anyhow!("cannot log in to the stone at {addr}: {e}"))
}

/// Runs `code` in a new session of the stone at `addr` and prints its value.
pub fn eval(setup: &Setup, addr: &str, code: &str) -> Result<ExitCode> {
    let mut vm = login(setup, addr)?;
    print_evaluation(&mut vm, code)
}
