//! The code editor of every pane that edits Smalltalk: highlighting through syntect with the
//! grammar in `assets/syntaxes/`, Accept (Ctrl+S), Ctrl+B on a name (a class opens in a
//! browser, a selector's implementors in a list) and a context menu on it (browse, senders,
//! implementors, references), a compile error shown at its position, and edits that are never
//! lost silently (a dirty editor asks before it is left). The same editor edits prose (a
//! class comment), plain.

use std::sync::OnceLock;

use eframe::egui::{self, text::CCursor, text::CCursorRange, text::LayoutJob};
use egui_extras::syntax_highlighting::{self, CodeTheme, SyntectSettings};
use onyx_protocol::agent::{self as pb, operation::Op};

use crate::breakpoints::class_name;
use crate::browser::Browser;
use crate::ctx::Ctx;
use crate::gutter;
use crate::panes::{MethodList, Pane};

/// The Smalltalk grammar, built into the binary.
const GRAMMAR: &str = include_str!("../../assets/syntaxes/Smalltalk.sublime-syntax");

/// The syntax and theme sets, made once (the highlighter caches by their address).
fn settings() -> &'static SyntectSettings {
    static SETTINGS: OnceLock<SyntectSettings> = OnceLock::new();
    SETTINGS.get_or_init(|| {
        let mut builder = syntect::parsing::SyntaxSet::load_defaults_newlines().into_builder();
        // The grammar is ours and checked by a test; were it broken, code shows plain.
        if let Ok(smalltalk) = syntect::parsing::SyntaxDefinition::load_from_str(GRAMMAR, true, Some("Smalltalk")) {
            builder.add(smalltalk);
        }
        SyntectSettings { ps: builder.build(), ts: syntect::highlighting::ThemeSet::load_defaults() }
    })
}

/// What a code edit marks in its text besides the highlighting, and whether it may be edited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    /// A compile error's byte offset.
    pub error: Option<usize>,
    /// The debugger's current step point: a byte range.
    pub current: Option<(usize, usize)>,
    /// Scroll the current step point into view (once, when it moved).
    pub reveal: bool,
    /// The text may not change now (what it was loaded for is changing in the gem).
    pub locked: bool,
    /// Prose (a class comment), not Smalltalk: no highlighting, no browsing menu.
    pub plain: bool,
}

/// Smalltalk `code` highlighted, with what `marks` names marked.
fn highlighted(ui: &egui::Ui, code: &str, marks: Marks) -> LayoutJob {
    let theme = CodeTheme::from_style(ui.style());
    let mut job = syntax_highlighting::highlight_with(ui.ctx(), ui.style(), &theme, code, "Smalltalk", settings());
    // The range comes from the gem: only one that falls on characters of this text.
    let fits = |&(from, to): &(usize, usize)| from < to && code.is_char_boundary(from) && code.is_char_boundary(to);
    if let Some((from, to)) = marks.current.filter(fits) {
        split_at(&mut job, from);
        split_at(&mut job, to);
        let color = ui.visuals().selection.bg_fill.gamma_multiply(0.6);
        for section in &mut job.sections {
            let (start, end) = (usize::from(section.byte_range.start), usize::from(section.byte_range.end));
            if from <= start && end <= to {
                section.format.background = color;
            }
        }
    }
    if let Some(at) = marks.error {
        let color = ui.visuals().error_fg_color;
        let at = at.min(code.len().saturating_sub(1));
        for section in &mut job.sections {
            let (start, end) = (usize::from(section.byte_range.start), usize::from(section.byte_range.end));
            if (start..end).contains(&at) || (start == end && start == at) {
                section.format.background = color.gamma_multiply(0.35);
                section.format.underline = egui::Stroke::new(1.5, color);
            }
        }
    }
    job
}

/// Splits the section of `job` that byte `at` falls inside into two, so that a mark can start
/// or end there.
fn split_at(job: &mut LayoutJob, at: usize) {
    let found =
        job.sections.iter().position(|s| usize::from(s.byte_range.start) < at && at < usize::from(s.byte_range.end));
    if let Some(i) = found {
        let mut tail = job.sections[i].clone();
        tail.leading_space = 0.0;
        tail.byte_range.start = at.into();
        job.sections[i].byte_range.end = at.into();
        job.sections.insert(i + 1, tail);
    }
}

/// A scrolling, highlighted Smalltalk text edit named `salt` taking the height left (at least
/// a few lines), with what `marks` names marked. Ctrl+B while it has the focus browses the
/// name at the cursor; its context menu browses the name at the cursor too, its senders,
/// implementors and references.
pub fn code_edit(
    ui: &mut egui::Ui,
    ctx: &mut Ctx,
    text: &mut String,
    salt: &str,
    marks: Marks,
    margin: Option<&[gutter::Marker]>,
) -> (egui::Id, egui::text_edit::TextEditOutput, Option<gutter::Click>) {
    let mut layouter = |ui: &egui::Ui, text: &dyn egui::TextBuffer, wrap: f32| {
        let mut job = if marks.plain {
            LayoutJob::simple(
                text.as_str().to_string(),
                egui::TextStyle::Monospace.resolve(ui.style()),
                ui.visuals().text_color(),
                wrap,
            )
        } else {
            highlighted(ui, text.as_str(), marks)
        };
        job.wrap.max_width = wrap;
        ui.fonts_mut(|f| f.layout_job(job))
    };
    let id = ui.make_persistent_id(salt);
    let least = ui.text_style_height(&egui::TextStyle::Monospace) * 6.0;
    let height = ui.available_height().max(least);
    let output = egui::ScrollArea::vertical()
        .id_salt(salt)
        .max_height(height)
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let mut edit = |ui: &mut egui::Ui, text: &mut String| {
                egui::TextEdit::multiline(text)
                    .id(id)
                    .interactive(!marks.locked)
                    .code_editor()
                    .desired_width(f32::INFINITY)
                    .min_size(egui::vec2(0.0, height - 2.0 * ui.spacing().item_spacing.y))
                    .layouter(&mut layouter)
                    .show(ui)
            };
            // A method's source has the breakpoint margin at its left.
            let (output, clicked) = match margin {
                None => (edit(ui, text), None),
                Some(markers) => {
                    ui.horizontal_top(|ui| {
                        let (space, _) = ui.allocate_exact_size(egui::vec2(gutter::WIDTH, 0.0), egui::Sense::hover());
                        let output = edit(ui, text);
                        let margin =
                            egui::Rect::from_x_y_ranges(space.x_range(), output.response.response.rect.y_range());
                        let clicked = gutter::draw(ui, margin, &output.galley, output.galley_pos, text, markers);
                        (output, clicked)
                    })
                    .inner
                }
            };
            if let Some((from, _)) = marks.current.filter(|_| marks.reveal) {
                let at = text.get(..from).map_or(0, |before| before.chars().count());
                let rect = output.galley.pos_from_cursor(CCursor::new(at)).translate(output.galley_pos.to_vec2());
                ui.scroll_to_rect(rect, Some(egui::Align::Center));
            }
            (output, clicked)
        })
        .inner;
    let (output, clicked) = output;
    let named = output.cursor_range.and_then(|range| {
        let (a, b) = (usize::from(range.primary.index), usize::from(range.secondary.index));
        name_at(text, a.min(b), a.max(b))
    });
    if output.response.response.has_focus()
        && ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::B))
        && let Some(name) = named.clone()
    {
        browse(ctx, Look::Browse, name);
    }
    if !marks.plain {
        // The name at the cursor when the menu opened: clicking in the menu takes the focus.
        let key = id.with("named at the menu");
        if output.response.response.secondary_clicked() {
            ui.data_mut(|d| d.insert_temp(key, named.clone()));
        }
        let named = ui.data(|d| d.get_temp::<Option<String>>(key)).flatten();
        output.response.response.context_menu(|ui| code_menu(ui, ctx, named));
    }
    (id, output, clicked)
}

/// What the code's context menu (and Ctrl+B) does with the name at the cursor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Look {
    /// A class in a browser, or a selector's implementors.
    Browse,
    Senders,
    Implementors,
    References,
}

/// The code's context menu: the name at the cursor browsed, its senders, implementors or
/// references (each one round trip).
fn code_menu(ui: &mut egui::Ui, ctx: &mut Ctx, named: Option<String>) {
    let Some(name) = named else {
        ui.weak("(put the cursor on a name)");
        return;
    };
    let class = name.starts_with(|c: char| c.is_uppercase());
    let mut looks = vec![(format!("Browse {name} (Ctrl+B)"), Look::Browse)];
    if class {
        looks.push((format!("References to {name}"), Look::References));
    } else {
        looks.push((format!("Senders of #{name}"), Look::Senders));
        looks.push((format!("Implementors of #{name}"), Look::Implementors));
    }
    for (label, look) in looks {
        if ui.button(label).clicked() {
            browse(ctx, look, name.clone());
            ui.close();
        }
    }
}

/// Opens what `look` asks of `name`: a class (capitalized) in a new browser, else the
/// implementors of a selector; or a list of senders, implementors or references.
fn browse(ctx: &mut Ctx, look: Look, name: String) {
    let class = name.starts_with(|c: char| c.is_uppercase());
    let pane: Pane = match look {
        Look::Browse if class => Box::new(Browser::on_class(ctx, name)),
        Look::Browse | Look::Implementors => {
            let op = Op::Implementors(pb::SelectorRef { selector: name.clone() });
            Box::new(MethodList::open(ctx, format!("Implementors of #{name}"), op))
        }
        Look::Senders => {
            let op = Op::Senders(pb::SelectorRef { selector: name.clone() });
            Box::new(MethodList::open(ctx, format!("Senders of #{name}"), op))
        }
        Look::References => {
            let op = Op::References(pb::Global { name: name.clone() });
            Box::new(MethodList::open(ctx, format!("References to {name}"), op))
        }
    };
    ctx.opened.push(pane);
}

/// The name the selection (characters `from..to`) or, when nothing is selected, the cursor
/// is on: an identifier, or a keyword with its colon.
fn name_at(text: &str, from: usize, to: usize) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let part = |c: char| c.is_alphanumeric() || c == '_';
    let (from, to) = (from.min(chars.len()), to.min(chars.len()));
    let (mut start, mut end) = (from, to);
    if from == to {
        while start > 0 && part(chars[start - 1]) {
            start -= 1;
        }
        while end < chars.len() && part(chars[end]) {
            end += 1;
        }
        if end < chars.len() && chars[end] == ':' && start < end {
            end += 1;
        }
    }
    let name: String = chars[start..end].iter().collect::<String>().trim().to_string();
    let first = name.chars().next()?;
    let identifier = (first.is_alphabetic() || first == '_') && name.trim_end_matches(':').chars().all(part);
    identifier.then_some(name)
}

/// A method's (or a definition's) source being edited.
pub struct CodeEditor {
    id: &'static str,
    pub text: String,
    /// The text as last loaded or accepted.
    original: String,
    /// The last compile error: its message and byte offset.
    error: Option<(String, usize)>,
    /// Where to put the cursor next frame (a character index).
    place_cursor: Option<usize>,
    /// Leaving was asked for while the text had unaccepted edits.
    asked_to_leave: bool,
    /// The step point a debugger shows (a byte range of the text as loaded), and whether it
    /// moved since it was last drawn.
    current: Option<(usize, usize)>,
    reveal: bool,
    /// Where the cursor is: a byte offset of the text.
    cursor: usize,
    /// The text may not be edited now (set by the pane each frame).
    pub locked: bool,
    /// Prose, not Smalltalk (a class comment).
    plain: bool,
    /// The method whose source it shows, if it shows one: its breakpoints are in the margin
    /// (set by the pane each time it loads a method's source).
    pub method: Option<pb::MethodRef>,
}

impl CodeEditor {
    /// An editor of prose (a class comment): no highlighting.
    pub fn prose(id: &'static str) -> CodeEditor {
        CodeEditor { plain: true, ..CodeEditor::new(id) }
    }

    pub fn new(id: &'static str) -> CodeEditor {
        CodeEditor {
            id,
            text: String::new(),
            original: String::new(),
            error: None,
            place_cursor: None,
            asked_to_leave: false,
            current: None,
            reveal: false,
            cursor: 0,
            locked: false,
            plain: false,
            method: None,
        }
    }

    /// Marks the step point a debugger shows (a byte range of the loaded text), and scrolls
    /// it into view.
    pub fn mark_current(&mut self, range: Option<(usize, usize)>) {
        self.current = range;
        self.reveal = range.is_some();
    }

    /// Shows the source of `method`, with its breakpoints in the margin.
    pub fn load_method(&mut self, source: &str, method: Option<pb::MethodRef>) {
        self.load(source);
        self.method = method;
    }

    /// Shows `source`, as the text there is nothing to accept of (no method's: no margin).
    pub fn load(&mut self, source: &str) {
        self.method = None;
        self.text = source.to_string();
        self.original = self.text.clone();
        self.error = None;
        self.asked_to_leave = false;
        self.current = None;
        self.cursor = 0;
    }

    /// The text `sent` was accepted: it is the original now (edits made since it was sent
    /// stay edits).
    pub fn accepted(&mut self, sent: &str) {
        self.original = sent.to_string();
        self.error = None;
        self.asked_to_leave = false;
    }

    /// Where the cursor was last drawn: a byte offset of the text.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Whether the text has edits not accepted.
    pub fn is_dirty(&self) -> bool {
        self.text != self.original
    }

    /// Shows a compile error at its position, and puts the cursor there.
    pub fn show_error(&mut self, error: &pb::Error) {
        let at = (error.start as usize).min(self.text.len());
        let at = (0..=at).rev().find(|&i| self.text.is_char_boundary(i)).unwrap_or(0);
        self.place_cursor = Some(self.text[..at].chars().count());
        self.error = Some((error.message.clone(), at));
    }

    /// Whether the editor may be left for other code now: not while it has edits the user
    /// has not accepted or discarded (it then asks, in the pane).
    pub fn may_leave(&mut self, _ui: &egui::Ui) -> bool {
        !self.holds_unaccepted_edits()
    }

    /// Whether the text has edits not accepted; if so, the editor asks to accept or discard
    /// them.
    pub fn holds_unaccepted_edits(&mut self) -> bool {
        let dirty = self.is_dirty();
        self.asked_to_leave |= dirty;
        dirty
    }

    /// Draws the editor under a `label`; answers whether the user accepted (button or
    /// Ctrl+S while the editor has the focus). A user who may not change code reads it.
    pub fn ui(&mut self, ui: &mut egui::Ui, ctx: &mut Ctx, label: &str) -> bool {
        let mut accept = false;
        let dirty = self.is_dirty();
        let may_change_code = ctx.link.may_change_code;
        let name = ui
            .horizontal(|ui| {
                let name = ui.label(if dirty { format!("{label} (edited)") } else { label.to_string() });
                if ui.add_enabled(dirty && may_change_code, egui::Button::new("Accept (Ctrl+S)")).clicked() {
                    accept = true;
                }
                if ui.add_enabled(dirty, egui::Button::new("Discard")).clicked() {
                    self.text = self.original.clone();
                    self.error = None;
                    self.asked_to_leave = false;
                }
                if !may_change_code {
                    ui.label("(read only: this user may not change code)");
                }
                name
            })
            .inner;
        if self.asked_to_leave && dirty {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                "This code has edits that are not accepted: accept or discard them first.",
            );
        }
        if let Some((message, _)) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, message);
        }
        // The step point stands in the text as loaded: not over edits made since.
        let current = self.current.filter(|_| !dirty);
        let error = self.error.as_ref().map(|(_, at)| *at);
        let marks = Marks { error, current, reveal: self.reveal, locked: self.locked, plain: self.plain };
        self.reveal = false;
        // The margin's lines are those of the source as the gem has it: not over edits.
        let markers: Option<Vec<gutter::Marker>> = self.method.as_ref().filter(|_| !self.plain).map(|m| {
            let class = class_name(m);
            let on = ctx.link.breakpoints.on(&class, &m.selector);
            on.filter(|b| b.line != 0).map(|b| gutter::Marker { line: b.line, id: b.id, enabled: b.enabled }).collect()
        });
        let margin = markers.as_deref().filter(|_| !dirty);
        let (id, output, clicked) = code_edit(ui, ctx, &mut self.text, self.id, marks, margin);
        let toggle_here = margin.is_some()
            && output.response.response.has_focus()
            && ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::F9));
        if let Some(method) = self.method.clone().filter(|_| may_change_code && margin.is_some()) {
            match clicked {
                Some(gutter::Click::Set(line)) => ctx.set_breakpoint(method, pb::set_breakpoint::At::Line(line)),
                Some(gutter::Click::Remove(id)) => ctx.remove_breakpoint(id),
                None if toggle_here => {
                    // F9: the breakpoint of the cursor's line goes, or one comes at its statement.
                    let line = self.text.get(..self.cursor).map_or(1, |b| b.matches('\n').count() + 1);
                    let there = margin.and_then(|m| m.iter().find(|m| m.line as usize == line));
                    match there {
                        Some(m) => ctx.remove_breakpoint(m.id),
                        None => {
                            let offset = u32::try_from(self.cursor).unwrap_or(u32::MAX);
                            ctx.set_breakpoint(method, pb::set_breakpoint::At::Offset(offset));
                        }
                    }
                }
                None => {}
            }
        }
        if let Some(range) = output.cursor_range {
            let at = usize::from(range.primary.index);
            self.cursor = self.text.char_indices().nth(at).map_or(self.text.len(), |(i, _)| i);
        }
        let response = output.response.response.labelled_by(name.id);
        if response.changed() {
            self.asked_to_leave = false;
        }
        if response.has_focus() && ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::S)) {
            accept = true;
        }
        if let Some(at) = self.place_cursor.take() {
            let mut state = output.state;
            state.cursor.set_char_range(Some(CCursorRange::one(CCursor::new(at))));
            state.store(ui.ctx(), id);
            response.request_focus();
        }
        accept && self.is_dirty() && may_change_code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smalltalk_grammar_loads_and_is_found_by_name() {
        assert!(syntect::parsing::SyntaxDefinition::load_from_str(GRAMMAR, true, Some("Smalltalk")).is_ok());
        assert!(settings().ps.find_syntax_by_name("Smalltalk").is_some());
    }

    #[test]
    fn ctrl_b_takes_the_name_at_the_cursor_or_the_selection() {
        let code = "x := OrderedCollection new. x at: 1 put: 2";
        let at = |needle: &str, offset: usize| code.find(needle).map(|i| i + offset).unwrap_or(0);
        assert_eq!(name_at(code, at("Ordered", 3), at("Ordered", 3)).as_deref(), Some("OrderedCollection"));
        assert_eq!(name_at(code, at("new", 3), at("new", 3)).as_deref(), Some("new"));
        assert_eq!(name_at(code, at("at:", 1), at("at:", 1)).as_deref(), Some("at:"));
        assert_eq!(name_at(code, at("x :=", 0), at("x :=", 1)).as_deref(), Some("x"));
        assert_eq!(name_at(code, at(":=", 0), at(":=", 0)), None);
        assert_eq!(name_at(code, 0, code.chars().count()), None, "a selection that is no name");
        assert_eq!(name_at("", 0, 0), None);
        assert_eq!(name_at("Object", 99, 99).as_deref(), Some("Object"), "past the end");
    }
}
