//! The test runner: a test class run from the browser's menu in one round trip, its results
//! with their outcomes, times and a failure's message; Debug runs a failing test again and
//! opens the debugger where it failed; the runner's own choice of classes and its reruns.

use super::*;

/// A test class of three tests: one passes, one fails an assertion, one divides by zero.
const TESTS: &str = "TestCase subclass: #ProbeTest instanceVariableNames: '' classVariableNames: '' \
     package: 'Probes-Tests'. \
     ProbeTest compile: 'testAnswers\n\tself assert: Probe new answer equals: 42' classified: #tests. \
     ProbeTest compile: 'testFails\n\tself assert: Probe new answer equals: 41' classified: #tests. \
     ProbeTest compile: 'testErrs\n\t^ 1 / 0' classified: #tests. \
     System commitTransaction";

#[test]
fn a_test_class_runs_from_the_browser_and_a_failure_opens_in_the_debugger() {
    let (_dir, server) = server();
    run(&server.gem, TESTS);
    let mut h = harness(&server.gem);
    h.state_mut().show(&Show::Browser { class: "ProbeTest".into(), selector: None });
    settle(&mut h);
    // The class's menu runs its tests: the runner opens with their results, one round trip.
    context_menu(&mut h, "ProbeTest");
    gesture(&mut h, "run the class's tests", |h| h.get_by_label("Run tests").click());
    h.get_by_label_contains("1 passed, 1 failed, 1 errors in");
    h.get_by_label_contains("passed  ProbeTest>>testAnswers");
    h.get_by_label_contains("ERROR  ProbeTest>>testErrs");
    // The first that did not pass is chosen, with its message.
    h.get_by_label_contains("ERROR  ProbeTest>>testErrs").click();
    h.run_steps(2);
    h.get_by_label_contains("ZeroDivide");
    h.get_by_label_contains("FAILED  ProbeTest>>testFails").click();
    h.run_steps(2);
    h.get_by_label("Expected 41 but got 42");
    // Debug: the test runs again, stopped where the assertion failed (the run, then the
    // debugger reading the stack).
    let before = h.state().link().batches_sent() - h.state().refreshes_sent();
    h.get_by_label("Debug").click();
    settle(&mut h);
    settle(&mut h);
    assert_eq!(h.state().link().batches_sent() - h.state().refreshes_sent() - before, 2, "the run, and the stack");
    h.get_by_label_contains("Stack (");
    let source = h.query_by_label("Source").expect("the frame's source").value().unwrap_or_default();
    assert!(source.starts_with("testFails"), "the debugger stops in the test, not in SUnit: {source:?}");
}

#[test]
fn the_runner_lists_test_classes_runs_those_chosen_and_reruns_the_failures() {
    let (_dir, server) = server();
    run(&server.gem, TESTS);
    let mut h = harness(&server.gem);
    gesture(&mut h, "open the test runner", |h| h.get_by_label("Test runner").click());
    h.get_by_label("ProbeTest (3)");
    assert!(h.get_by_label("Run selected").accesskit_node().is_disabled(), "no class chosen yet");
    h.get_by_label("ProbeTest (3)").click();
    h.run_steps(2);
    gesture(&mut h, "run the classes chosen", |h| h.get_by_label("Run selected").click());
    h.get_by_label_contains("1 passed, 1 failed, 1 errors in");
    // The failures again, once fixed: one round trip.
    run(&server.gem, "ProbeTest compile: 'testFails\n\tself assert: Probe new answer equals: 42'");
    gesture(&mut h, "run the failures", |h| h.get_by_label("Run failures").click());
    h.get_by_label_contains("1 passed, 0 failed, 1 errors in");
    // A package's tests, from its menu in a browser.
    h.state_mut().show(&Show::Browser { class: "ProbeTest".into(), selector: None });
    settle(&mut h);
    context_menu(&mut h, "Probes-Tests");
    gesture(&mut h, "run the package's tests", |h| h.get_by_label("Run the package's tests").click());
    h.get_by_label_contains("2 passed, 0 failed, 1 errors in");
}
