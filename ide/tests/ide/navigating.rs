//! Finding one's way, one round trip per gesture: back and forward through what a browser
//! showed (Alt+Left, Alt+Right), Find listing matches as one types and opening a class
//! scrolled into sight, tabs of one width with a list of them, the menus, and the help.

use super::*;

/// The class definition shown.
fn definition(h: &Harness<'static, Ide>) -> String {
    h.get_by_label("Class definition").value().unwrap_or_default()
}

fn alt(h: &mut Harness<'static, Ide>, key: egui::Key) {
    h.key_press_modifiers(egui::Modifiers::ALT, key);
}

#[test]
fn back_and_forward_go_through_what_was_browsed() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    assert!(h.get_by_label("Back").accesskit_node().is_disabled(), "nowhere to go back to yet");
    gesture(&mut h, "select package", |h| click_in_sight(h, "Probes"));
    gesture(&mut h, "select class", |h| h.get_by_label("Probe").click());
    gesture(&mut h, "select method", |h| h.get_by_label("answer").click());
    assert_eq!(h.get_by_label("Method").value().as_deref(), Some("answer\n\t^ 42"));
    // Back: the class, then the package, each one round trip.
    gesture(&mut h, "back", |h| alt(h, egui::Key::ArrowLeft));
    assert!(h.query_by_label("Method").is_none(), "no method chosen");
    assert!(definition(&h).starts_with("Object subclass: #Probe"));
    gesture(&mut h, "back", |h| alt(h, egui::Key::ArrowLeft));
    h.get_by_label("System Browser");
    assert_eq!(definition(&h), "", "no class chosen");
    // Forward: the class, then (by the button) the method.
    gesture(&mut h, "forward", |h| alt(h, egui::Key::ArrowRight));
    assert!(definition(&h).starts_with("Object subclass: #Probe"));
    gesture(&mut h, "forward", |h| h.get_by_label("Forward").click());
    assert_eq!(h.get_by_label("Method").value().as_deref(), Some("answer\n\t^ 42"));
    assert!(h.get_by_label("Forward").accesskit_node().is_disabled(), "nothing ahead");
    // Going somewhere new forgets what was ahead.
    gesture(&mut h, "back", |h| h.get_by_label("Back").click());
    gesture(&mut h, "select protocol", |h| h.get_by_label("accessing").click());
    assert!(h.get_by_label("Forward").accesskit_node().is_disabled());
}

#[test]
fn find_lists_matches_as_one_types_selects_its_old_text_and_scrolls_the_list_to_the_class() {
    let (_dir, server) = server();
    run(
        &server.gem,
        "1 to: 60 do: [:i | Object subclass: ('Filler', i printString) asSymbol instanceVariableNames: '' \
         classVariableNames: '' package: 'Probes']. \
         Object subclass: #Zed instanceVariableNames: '' classVariableNames: '' package: 'Probes'. \
         System commitTransaction",
    );
    let mut h = harness(&server.gem);
    // Listed as it is typed, without Enter: the classes, then the selectors.
    find(&mut h, "Ze");
    h.get_by_label("Zed");
    h.get_by_label("#size");
    // Enter opens the first: the class, in its package's list scrolled to it.
    gesture(&mut h, "open the first found", |h| {
        h.get_by_label(FIND).focus();
        h.key_press(egui::Key::Enter);
    });
    assert_eq!(h.query_all_by_label("Zed").count(), 2, "the tab, and the class's row scrolled into sight");
    h.get_by_label("Filler60");
    // Ctrl+K selects what was typed before: typing replaces it.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::K);
    h.run_steps(2);
    gesture(&mut h, "find again", |h| h.get_by_label(FIND).type_text("SubPr"));
    assert_eq!(h.get_by_label(FIND).value().as_deref(), Some("SubPr"));
    gesture(&mut h, "browse the class found", |h| h.get_by_label("SubProbe").click());
    assert!(definition(&h).starts_with("Probe subclass: #SubProbe"));
}

#[test]
fn tabs_keep_one_width_and_the_active_one_in_sight_and_are_listed() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    for _ in 0..12 {
        local(&mut h, |h| h.get_by_label("New workspace").click());
    }
    let widths: Vec<f32> = h.get_all_by_label("Workspace").map(|t| t.rect().width()).collect();
    assert_eq!(widths.len(), 13);
    assert!(widths.iter().all(|w| (w - widths[0]).abs() < 0.5), "one width: {widths:?}");
    // The tab made active last is in sight, though the tabs do not fit.
    let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1280.0, 900.0));
    let tabs: Vec<egui::Rect> = h.get_all_by_label("Workspace").map(|t| t.rect()).collect();
    assert!(tabs.iter().any(|r| !screen.contains_rect(*r)), "the tabs do not fit");
    let last = *tabs.last().expect("a tab");
    assert!(screen.contains_rect(last), "the active tab is in sight: {last:?}");
    // The list of tabs reaches one out of sight.
    local(&mut h, |h| h.get_by_label("Tabs").click());
    // (Below the tab bar, where the tab of that title is.)
    local(&mut h, |h| {
        let listed = h.get_all_by_label("System Browser").max_by(|a, b| a.rect().top().total_cmp(&b.rect().top()));
        listed.expect("listed").click();
    });
    h.get_by_label("Packages");
}

#[test]
fn the_menus_open_panes_and_f1_the_help_with_every_shortcut() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    local(&mut h, |h| h.key_press(egui::Key::F1));
    h.get_by_label("Keyboard shortcuts");
    for key in ["Ctrl+K", "Ctrl+S", "Ctrl+B", "Alt+Left, Alt+Right", "Ctrl+D", "F10", "Ctrl+Plus, Ctrl+Minus, Ctrl+0"] {
        h.get_by_label(key);
    }
    local(&mut h, |h| h.get_by_label("Tools").click());
    // (The tool bar has a button of the same name.)
    gesture(&mut h, "open the test runner", |h| h.get_all_by_label("Test runner").last().expect("in the menu").click());
    h.get_by_label_contains("Test classes (");
    local(&mut h, |h| h.get_by_label("Onyx").click());
    local(&mut h, |h| h.get_by_label("Settings").click());
    assert!(h.query_all_by_label("Zoom").next().is_some(), "the zoom's slider");
}
