//! The package-version browser: version repositories on the gem's host (a folder of `.mcz`
//! files, or a folder of a git work tree holding Tonel or FileTree packages), their packages
//! with the version the gem's code was loaded from or saved as and a mark when it changed
//! since, a package's versions (a page at a time) with their ancestry, the changes between two
//! versions or between a version and the loaded code (side by side), and Load, Save (with a
//! message) and Merge (see `merging.rs`). Each gesture is one batch.

use eframe::egui;
use onyx_protocol::agent::{self as pb, event::Event, operation::Op, result::Outcome};

use crate::changes::side_by_side;
use crate::ctx::Ctx;
use crate::layout::Saved;
use crate::link::{Reply, Ticket};
use crate::merging::MergeView;
use crate::panes::{View, outcomes};

/// Versions asked for at a time.
const PAGE: u32 = 50;

/// What a batch sent was for.
#[derive(Clone, Debug, PartialEq)]
enum Asked {
    Packages,
    Versions { more: bool },
    Changes { left: String, right: String },
    Load(String),
    Save,
    Merge(String),
    Merged,
}

impl Asked {
    /// A load, a save or a merge applied: long enough that the gem tells its progress.
    fn is_long(&self) -> bool {
        matches!(self, Asked::Load(_) | Asked::Save | Asked::Merged)
    }
}

/// What a batch under way does, and how far it has come (a fraction, when its step counts).
fn under_way(asked: &Asked, progress: Option<&pb::Progress>) -> (Option<f32>, String) {
    let doing = match asked {
        Asked::Load(v) => format!("Loading {v}"),
        Asked::Save => "Saving a new version".to_string(),
        Asked::Merged => "Merging".to_string(),
        _ => return (None, "Asking the gem…".to_string()),
    };
    match progress {
        Some(p) if p.total > 0 => {
            let fraction = p.done as f32 / p.total as f32;
            (Some(fraction), format!("{doing}: {} {} of {}", p.step, p.done, p.total))
        }
        Some(p) => (None, format!("{doing}: {}…", p.step)),
        None => (None, format!("{doing}…")),
    }
}

/// What the lower half shows.
enum Shown {
    Nothing,
    Changes { left: String, right: String, changes: Vec<pb::DefinitionDiff> },
    Merge(Box<MergeView>),
}

/// The package-version browser.
pub struct VersionBrowser {
    repositories: Vec<String>,
    typed_repository: String,
    repository: Option<String>,
    packages: Vec<String>,
    states: Vec<pb::PackageState>,
    package: Option<String>,
    versions: Vec<pb::VersionEntry>,
    /// How many versions the package has, and where the next page starts (0: none left).
    total: u64,
    next: u64,
    selected: Option<String>,
    marked: Option<String>,
    save_package: String,
    message: String,
    author: String,
    shown: Shown,
    pending: Vec<(Ticket, Asked)>,
    /// How far the load, save or merge under way has come, as the gem told.
    progress: Option<pb::Progress>,
    status: String,
    error: String,
}

impl VersionBrowser {
    /// A browser of `repositories` (none chosen yet); the versions it saves are by `author`.
    pub fn new(repositories: Vec<String>, author: &str) -> VersionBrowser {
        VersionBrowser {
            repositories,
            typed_repository: String::new(),
            repository: None,
            packages: Vec::new(),
            states: Vec::new(),
            package: None,
            versions: Vec::new(),
            total: 0,
            next: 0,
            selected: None,
            marked: None,
            save_package: String::new(),
            message: String::new(),
            author: author.to_string(),
            shown: Shown::Nothing,
            pending: Vec::new(),
            progress: None,
            status: String::new(),
            error: String::new(),
        }
    }

    /// A browser on `package` of `repository`, telling the merge of version `merge` into the
    /// gem's code (`onyx-ide --show`).
    pub fn showing(ctx: &mut Ctx, repository: &str, package: &str, merge: Option<&str>) -> VersionBrowser {
        let mut browser = VersionBrowser::new(vec![repository.to_string()], &ctx.link.user);
        browser.repository = Some(repository.to_string());
        let names = Op::RepositoryPackages(pb::RepositoryRef { path: repository.to_string(), package: String::new() });
        let ticket = ctx.send("list a repository's packages", vec![names]);
        browser.ask(ticket, Asked::Packages);
        browser.choose_package(ctx, package.to_string());
        if let Some(version) = merge {
            browser.selected = Some(version.to_string());
            let ticket = ctx.send("tell a merge", vec![browser.merge_op(version, Vec::new(), false)]);
            browser.ask(ticket, Asked::Merge(version.to_string()));
        }
        browser
    }

    fn repository_ref(&self) -> pb::RepositoryRef {
        pb::RepositoryRef {
            path: self.repository.clone().unwrap_or_default(),
            package: self.package.clone().unwrap_or_default(),
        }
    }

    fn states_op() -> Op {
        Op::PackageStates(pb::PackageNames { names: Vec::new() })
    }

    fn ask(&mut self, ticket: Ticket, asked: Asked) {
        self.error.clear();
        self.pending.push((ticket, asked));
    }

    /// Chooses repository `path`: its packages and the gem's package states (one batch).
    fn choose_repository(&mut self, ctx: &mut Ctx, path: String) {
        self.repository = Some(path.clone());
        self.package = None;
        self.versions.clear();
        self.selected = None;
        self.marked = None;
        let ops = vec![Op::RepositoryPackages(pb::RepositoryRef { path, package: String::new() }), Self::states_op()];
        let ticket = ctx.send("list a repository's packages", ops);
        self.ask(ticket, Asked::Packages);
    }

    /// Chooses `package`: the first page of its versions, and the package states (one batch).
    fn choose_package(&mut self, ctx: &mut Ctx, package: String) {
        self.save_package = package.clone();
        self.package = Some(package);
        self.selected = None;
        self.marked = None;
        let ops = vec![Self::states_op(), Op::RepositoryVersions(self.repository_ref())];
        let ticket = ctx.send_ops_page("list a package's versions", ops, pb::Page { from: 0, size: PAGE });
        self.ask(ticket, Asked::Versions { more: false });
    }

    fn version_side(&self, version: &str) -> Option<pb::PackageSide> {
        Some(pb::PackageSide {
            path: self.repository.clone().unwrap_or_default(),
            package: self.package.clone().unwrap_or_default(),
            version: version.to_string(),
        })
    }

    /// Compares two states (a version's name, or "" for the gem's code).
    fn compare(&mut self, ctx: &mut Ctx, left: &str, right: &str) {
        let side = |v: &str| if v.is_empty() { self.loaded_side() } else { self.version_side(v) };
        let op = Op::ComparePackages(pb::ComparePackages { left: side(left), right: side(right) });
        let ticket = ctx.send("compare versions", vec![op]);
        let name = |v: &str| if v.is_empty() { "loaded code".to_string() } else { v.to_string() };
        self.ask(ticket, Asked::Changes { left: name(left), right: name(right) });
    }

    fn loaded_side(&self) -> Option<pb::PackageSide> {
        Some(pb::PackageSide { package: self.package.clone().unwrap_or_default(), ..Default::default() })
    }

    fn merge_op(&self, version: &str, resolutions: Vec<pb::MergeResolution>, apply: bool) -> Op {
        Op::RepositoryMerge(pb::MergeVersion {
            path: self.repository.clone().unwrap_or_default(),
            package: self.package.clone().unwrap_or_default(),
            version: version.to_string(),
            resolutions,
            apply,
        })
    }

    /// The name of the version whose id is `id`, if listed.
    fn version_name<'a>(&'a self, id: &'a str) -> &'a str {
        self.versions.iter().find(|v| v.id == id).map_or(id.get(..8).unwrap_or(id), |v| v.name.as_str())
    }

    /// A package's row: its name, the version the gem's code came from and a mark if it
    /// changed since.
    fn package_row(&self, name: &str) -> String {
        match self.states.iter().find(|s| s.name == name) {
            Some(s) if !s.changes.is_empty() => format!("{name} (loaded {}, changed)", s.version),
            Some(s) if !s.version.is_empty() => format!("{name} (loaded {})", s.version),
            Some(_) => format!("{name} (loaded, changed)"),
            None => name.to_string(),
        }
    }

    fn take_states(&mut self, states: pb::PackageStates) {
        self.states = states.states;
        // The packages the gem remembers are listed too (to save, or to see).
        for s in &self.states {
            if !self.packages.contains(&s.name) && self.repository.is_some() {
                self.packages.push(s.name.clone());
            }
        }
        self.packages.sort();
    }

    fn lists(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        let (mut chosen_repository, mut chosen_package, mut chosen_version) = (None, None, None);
        let mut more = false;
        ui.columns(3, |columns| {
            columns[0].strong("Repositories");
            egui::ScrollArea::vertical().id_salt("repositories").max_height(220.0).show(&mut columns[0], |ui| {
                for path in &self.repositories {
                    if ui.selectable_label(self.repository.as_ref() == Some(path), path).clicked() {
                        chosen_repository = Some(path.clone());
                    }
                }
            });
            columns[1].strong("Packages");
            egui::ScrollArea::vertical().id_salt("packages").max_height(220.0).show(&mut columns[1], |ui| {
                for name in &self.packages {
                    if ui.selectable_label(self.package.as_ref() == Some(name), self.package_row(name)).clicked() {
                        chosen_package = Some(name.clone());
                    }
                }
                if self.repository.is_some() && self.packages.is_empty() && self.pending.is_empty() {
                    ui.weak("No package in this repository yet");
                }
            });
            columns[2].strong(format!("Versions ({} of {})", self.versions.len(), self.total));
            egui::ScrollArea::vertical().id_salt("versions").max_height(220.0).show(&mut columns[2], |ui| {
                for v in &self.versions {
                    let from: Vec<&str> = v.ancestors.iter().map(|a| self.version_name(a)).collect();
                    let marked = if self.marked.as_ref() == Some(&v.name) { "[marked] " } else { "" };
                    let from = if from.is_empty() { String::new() } else { format!("  from {}", from.join(", ")) };
                    let row = format!("{marked}{}  {}  {}{from}", v.name, v.author, v.time);
                    let row = ui.selectable_label(self.selected.as_ref() == Some(&v.name), row);
                    if row.clicked() {
                        chosen_version = Some(v.name.clone());
                    }
                    if !v.message.is_empty() {
                        row.on_hover_text(&v.message);
                    }
                }
            });
            if self.next != 0 && columns[2].button("More versions").clicked() {
                more = true;
            }
        });
        if let Some(path) = chosen_repository {
            self.choose_repository(ctx, path);
        }
        if let Some(package) = chosen_package {
            self.choose_package(ctx, package);
        }
        if chosen_version.is_some() {
            self.selected = chosen_version;
        }
        if more {
            let page = pb::Page { from: self.next, size: PAGE };
            let ticket = ctx.send_page("more versions", Op::RepositoryVersions(self.repository_ref()), page);
            self.ask(ticket, Asked::Versions { more: true });
        }
    }

    fn actions(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        let may = ctx.link.may_change_code && self.pending.is_empty();
        let selected = self.selected.clone().unwrap_or_default();
        ui.horizontal(|ui| {
            let has = !selected.is_empty();
            if ui.add_enabled(has, egui::Button::new("Mark for comparison")).clicked() {
                self.marked = self.selected.clone();
            }
            let marked = self.marked.clone().filter(|m| *m != selected);
            if ui.add_enabled(has && marked.is_some(), egui::Button::new("Compare marked with selected")).clicked() {
                self.compare(ctx, &marked.unwrap_or_default(), &selected);
            }
            if ui.add_enabled(has, egui::Button::new("Compare with the loaded code")).clicked() {
                self.compare(ctx, &selected, "");
            }
            if ui.add_enabled(has && may, egui::Button::new("Load selected")).clicked() {
                let op = Op::RepositoryLoad(pb::RepositoryVersion {
                    path: self.repository.clone().unwrap_or_default(),
                    package: self.package.clone().unwrap_or_default(),
                    version: selected.clone(),
                });
                let ticket = ctx.send_changing("load a version", vec![op, Self::states_op()]);
                self.ask(ticket, Asked::Load(selected.clone()));
            }
            if ui.add_enabled(has && may, egui::Button::new("Merge selected")).clicked() {
                let ticket = ctx.send("tell a merge", vec![self.merge_op(&selected, Vec::new(), false)]);
                self.ask(ticket, Asked::Merge(selected.clone()));
            }
        });
        ui.horizontal(|ui| {
            let label = ui.label("Save package").id;
            ui.add(egui::TextEdit::singleline(&mut self.save_package).hint_text("package").desired_width(140.0))
                .labelled_by(label);
            let label = ui.label("message").id;
            ui.add(egui::TextEdit::singleline(&mut self.message).hint_text("message").desired_width(260.0))
                .labelled_by(label);
            let label = ui.label("author").id;
            ui.add(egui::TextEdit::singleline(&mut self.author).desired_width(60.0)).labelled_by(label);
            let ready = may && self.repository.is_some() && !self.save_package.is_empty();
            if ui.add_enabled(ready, egui::Button::new("Save a new version")).clicked() {
                self.save(ctx);
            }
        });
    }

    /// Saves the package named as a new version, then lists its versions and the states
    /// again (one batch).
    fn save(&mut self, ctx: &mut Ctx) {
        let package = self.save_package.clone();
        let path = self.repository.clone().unwrap_or_default();
        let save = Op::RepositorySave(pb::SaveVersion {
            path: path.clone(),
            package: package.clone(),
            message: self.message.clone(),
            author: self.author.clone(),
        });
        let versions = Op::RepositoryVersions(pb::RepositoryRef { path, package: package.clone() });
        let ticket = ctx.send_ops_page(
            "save a version",
            vec![save, Self::states_op(), versions],
            pb::Page { from: 0, size: PAGE },
        );
        if !self.packages.contains(&package) {
            self.packages.push(package.clone());
            self.packages.sort();
        }
        self.package = Some(package);
        self.ask(ticket, Asked::Save);
    }

    fn take_versions(&mut self, list: pb::VersionList, more: bool) {
        if more {
            self.versions.extend(list.versions);
        } else {
            self.versions = list.versions;
        }
        let paged = list.paged.unwrap_or_default();
        (self.total, self.next) = (paged.total, paged.next);
    }
}

impl View for VersionBrowser {
    fn name(&self) -> &'static str {
        "Versions"
    }

    fn title(&self) -> String {
        "Versions".into()
    }

    fn saved(&self) -> Option<Saved> {
        Some(Saved::Versions { repositories: self.repositories.clone() })
    }

    fn waits_for(&self, ticket: Ticket) -> bool {
        self.pending.iter().any(|(t, _)| *t == ticket)
    }

    fn forget_pending(&mut self) {
        self.pending.clear();
        self.progress = None;
    }

    /// The gem tells how far a load, save or merge of this login has come.
    fn hear(&mut self, event: &Event, _ctx: &mut Ctx) {
        match event {
            Event::Progress(p) if self.pending.iter().any(|(_, asked)| asked.is_long()) => {
                self.progress = Some(p.clone());
            }
            Event::Progress(_)
            | Event::Transcript(_)
            | Event::Stale(_)
            | Event::Sessions(_)
            | Event::Relogged(_)
            | Event::Process(_)
            | Event::Suspended(_)
            | Event::Breakpoints(_) => {}
        }
    }

    fn receive(&mut self, reply: Reply) {
        let Some(at) = self.pending.iter().position(|(t, _)| *t == reply.ticket) else { return };
        let (_, asked) = self.pending.remove(at);
        if asked.is_long() {
            self.progress = None;
        }
        let answered = match outcomes(reply) {
            Ok(answered) => answered,
            Err(e) => {
                self.error = e.message;
                return;
            }
        };
        for (i, outcome) in answered.into_iter().enumerate() {
            match (outcome, &asked) {
                (Outcome::Error(e), _) => self.error = e.message,
                (Outcome::Names(names), Asked::Packages) => self.packages = names.names,
                (Outcome::PackageStates(states), _) => self.take_states(states),
                (Outcome::Versions(list), Asked::Versions { more }) => self.take_versions(list, *more),
                // The version saved comes first, then the states and the page of versions.
                (Outcome::Versions(list), Asked::Save) if i == 0 => {
                    let names: Vec<String> = list.versions.into_iter().map(|v| v.name).collect();
                    self.status = format!("Saved {}", names.join(", "));
                    self.message.clear();
                }
                (Outcome::Versions(list), Asked::Save) => self.take_versions(list, false),
                (Outcome::Changes(c), Asked::Changes { left, right }) => {
                    self.shown = Shown::Changes { left: left.clone(), right: right.clone(), changes: c.changes };
                }
                (Outcome::Loaded(l), Asked::Load(version)) => {
                    self.status = format!(
                        "Loaded {version}: {} classes defined, {} methods compiled, {} methods removed",
                        l.classes_defined, l.methods_compiled, l.methods_removed
                    );
                }
                (Outcome::Merged(m), Asked::Merge(_)) => self.shown = Shown::Merge(Box::new(MergeView::new(m))),
                (Outcome::Merged(m), Asked::Merged) => {
                    let loaded = m.loaded.unwrap_or_default();
                    self.status = format!(
                        "Merged {} into {}: {} conflicts settled, {} methods compiled, {} removed",
                        m.theirs,
                        m.ours,
                        m.conflicts.len(),
                        loaded.methods_compiled,
                        loaded.methods_removed
                    );
                    self.shown = Shown::Nothing;
                }
                _ => {}
            }
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx) {
        ui.horizontal(|ui| {
            let label = ui.label("Repository folder").id;
            ui.add(
                egui::TextEdit::singleline(&mut self.typed_repository)
                    .hint_text("a folder of .mcz files, or of a git work tree")
                    .desired_width(420.0),
            )
            .labelled_by(label);
            let typed = self.typed_repository.trim().to_string();
            if ui.add_enabled(!typed.is_empty(), egui::Button::new("Add repository")).clicked() {
                if !self.repositories.contains(&typed) {
                    self.repositories.push(typed.clone());
                }
                self.typed_repository.clear();
                self.choose_repository(ctx, typed);
            }
        });
        if !ctx.link.may_change_code {
            ui.label("This user may not change code: version repositories are closed to them.");
        }
        self.lists(ui, ctx);
        self.actions(ui, ctx);
        if let Some((_, asked)) = self.pending.first() {
            let (fraction, doing) = under_way(asked, self.progress.as_ref());
            ui.horizontal(|ui| match fraction {
                Some(fraction) => {
                    ui.add(egui::ProgressBar::new(fraction).desired_width(320.0).text(doing));
                }
                None => {
                    ui.add(egui::Spinner::new());
                    ui.label(doing);
                }
            });
        }
        if !self.error.is_empty() {
            ui.colored_label(ui.visuals().error_fg_color, self.error.clone());
        } else if !self.status.is_empty() {
            ui.label(self.status.clone());
        }
        ui.separator();
        let mut apply = None;
        egui::ScrollArea::vertical().id_salt("shown").auto_shrink([false, false]).show(ui, |ui| {
            match &mut self.shown {
                Shown::Nothing => {
                    ui.weak("Select a version to compare, load or merge it; or save the package as a new version.");
                }
                Shown::Changes { left, right, changes } => {
                    ui.heading(format!("Changes from {left} to {right}"));
                    side_by_side(ui, "changes", changes, left, right);
                }
                Shown::Merge(view) => {
                    if view.ui(ui, ctx) {
                        apply = Some((view.told.theirs.clone(), view.resolutions()));
                    }
                }
            }
        });
        if let Some((version, resolutions)) = apply {
            let ops = vec![self.merge_op(&version, resolutions, true), Self::states_op()];
            let ticket = ctx.send_changing("apply a merge", ops);
            self.ask(ticket, Asked::Merged);
        }
    }

    fn holds_unaccepted_edits(&mut self) -> bool {
        matches!(&self.shown, Shown::Merge(view) if !view.resolutions().is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn told(step: &str, done: u64, total: u64) -> pb::Progress {
        pb::Progress { step: step.into(), done, total }
    }

    #[test]
    fn a_step_that_counts_shows_as_a_bar_and_one_that_does_not_as_its_name() {
        let load = Asked::Load("Shop-ab.2".into());
        assert_eq!(under_way(&load, None), (None, "Loading Shop-ab.2…".to_string()));
        let (fraction, text) = under_way(&load, Some(&told("checking methods", 30, 120)));
        assert_eq!((fraction, text.as_str()), (Some(0.25), "Loading Shop-ab.2: checking methods 30 of 120"));
        let recording = under_way(&Asked::Merged, Some(&told("recording the packages", 0, 0)));
        assert_eq!(recording, (None, "Merging: recording the packages…".to_string()));
        // A list asked for says no more than that.
        assert_eq!(under_way(&Asked::Packages, Some(&told("checking methods", 1, 2))).0, None);
    }
}
