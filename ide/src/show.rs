//! What `onyx-ide --show` opens at start (the README's screenshots are made this way): a
//! pane, and what it shows or runs.

/// A pane to open at start (`onyx-ide --show`): `browser:CLASS[:SELECTOR]`,
/// `hierarchy:CLASS`, `print:CODE`, `inspect:CODE`, `transcript:CODE` (done, then the
/// transcript shown), `debug:CODE` (done, and a debugger opened where it stops), `sessions`,
/// `processes`, `breakpoints`, `tests[:PACKAGE]` (the test runner, running a package's tests),
/// `versions:REPOSITORY:PACKAGE[:VERSION]` (the package-version browser on a package of a
/// repository, telling the merge of a version into the gem's code) or `help`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Show {
    /// A browser on a class, and a method of it.
    Browser {
        /// The class.
        class: String,
        /// The method's selector.
        selector: Option<String>,
    },
    /// A hierarchy browser on a class.
    Hierarchy(String),
    /// A workspace that prints the value of this code.
    Print(String),
    /// A workspace that inspects the value of this code.
    Inspect(String),
    /// A workspace that does this code, then the transcript.
    Transcript(String),
    /// A workspace that does this code, and a debugger on it where it stops.
    Debug(String),
    /// The stone's sessions.
    Sessions,
    /// The gem's processes.
    Processes,
    /// The breakpoint browser.
    Breakpoints,
    /// The test runner, running a package's tests (every package's without one).
    Tests(Option<String>),
    /// The package-version browser on a package of a repository, and a version whose merge
    /// it tells.
    Versions {
        /// The repository's folder.
        repository: String,
        /// The package.
        package: String,
        /// The version to merge.
        merge: Option<String>,
    },
    /// The help pane.
    Help,
}

impl std::str::FromStr for Show {
    type Err = String;

    fn from_str(what: &str) -> Result<Show, String> {
        let (kind, rest) = what.split_once(':').unwrap_or((what, ""));
        let named = |rest: &str| match rest {
            "" => Err(format!("{kind} needs a class: {kind}:CLASS")),
            class => Ok(class.to_string()),
        };
        Ok(match kind {
            "browser" => {
                let (class, selector) = match rest.split_once(':') {
                    Some((class, selector)) => (class, Some(selector.to_string())),
                    None => (rest, None),
                };
                Show::Browser { class: named(class)?, selector }
            }
            "hierarchy" => Show::Hierarchy(named(rest)?),
            "print" => Show::Print(rest.into()),
            "inspect" => Show::Inspect(rest.into()),
            "transcript" => Show::Transcript(rest.into()),
            "debug" => Show::Debug(rest.into()),
            "sessions" => Show::Sessions,
            "processes" => Show::Processes,
            "breakpoints" => Show::Breakpoints,
            "tests" => Show::Tests((!rest.is_empty()).then(|| rest.to_string())),
            "versions" => {
                let mut parts = rest.splitn(3, ':');
                let (repository, package) = match (parts.next(), parts.next()) {
                    (Some(r), Some(p)) if !r.is_empty() && !p.is_empty() => (r.to_string(), p.to_string()),
                    _ => return Err("versions needs a repository and a package: versions:REPOSITORY:PACKAGE".into()),
                };
                Show::Versions { repository, package, merge: parts.next().map(str::to_string) }
            }
            "help" => Show::Help,
            other => {
                return Err(format!(
                    "{other:?} is not a pane: one of browser:CLASS[:SELECTOR], hierarchy:CLASS, print:CODE, \
                     inspect:CODE, transcript:CODE, debug:CODE, sessions, processes, breakpoints, tests[:PACKAGE], \
                     versions:REPOSITORY:PACKAGE[:VERSION], help"
                ));
            }
        })
    }
}
