//! The test runner's side in the gem: the test classes of a package (or of all), and tests
//! run one by one (`TestRunner class>>runTests:`, in a process the VM thread runs in time
//! slices, as a doit), each answered with its outcome, its time and its failure's message.

use std::time::Duration;

use onyx_vm::{Value, Vm};

use super::request::{Answer, ErrorKind, Failure, Outcome, TestClass, TestOutcome, TestRef, TestStatus};
use super::{category, global, send, strings};

/// The test classes that are not abstract, of `package` (of every package without one), by
/// name, each with its test selectors.
pub fn classes(vm: &mut Vm, package: Option<&str>) -> Outcome {
    let runner = global(vm, "TestRunner")?;
    let classes = send(vm, runner, "testClasses", &[])?;
    let classes = send(vm, classes, "asArray", &[])?;
    let classes = vm.array_items(classes).unwrap_or_default();
    vm.bring_in(&classes);
    let mut found = Vec::new();
    for class in classes {
        let in_package = category(vm, class)?;
        if package.is_some_and(|p| p != in_package) {
            continue;
        }
        let selectors = send(vm, class, "allTestSelectors", &[])?;
        found.push(TestClass { name: vm.class_name(class), package: in_package, selectors: strings(vm, selectors)? });
    }
    Ok(Answer::TestClasses(found))
}

/// The tests `tests` names (one without a selector standing for every test of its class),
/// and every test of `package`'s test classes.
fn chosen(vm: &mut Vm, tests: &[TestRef], package: Option<&str>) -> Result<Vec<TestRef>, Failure> {
    let mut listed = Vec::new();
    let wanted = |vm: &mut Vm, class: Option<&str>| match classes(vm, package.filter(|_| class.is_none()))? {
        Answer::TestClasses(found) => Ok(found.into_iter().filter(|c| class.is_none_or(|n| n == c.name)).collect()),
        _ => Ok(Vec::new()),
    };
    for t in tests {
        if !t.selector.is_empty() {
            listed.push(t.clone());
            continue;
        }
        let found: Vec<TestClass> = wanted(vm, Some(&t.class))?;
        if found.is_empty() {
            return Err(Failure::new(ErrorKind::NotFound, format!("no test class named {}", t.class)));
        }
        listed.extend(found.into_iter().flat_map(tests_of));
    }
    if package.is_some() {
        listed.extend(wanted(vm, None)?.into_iter().flat_map(tests_of));
    }
    Ok(listed)
}

fn tests_of(class: TestClass) -> impl Iterator<Item = TestRef> {
    let TestClass { name, selectors, .. } = class;
    selectors.into_iter().map(move |selector| TestRef { class: name.clone(), selector })
}

/// A process that runs the tests `tests` and `package` name (see [`chosen`]; not started yet:
/// the VM thread runs it in slices).
pub fn spawn(vm: &mut Vm, tests: &[TestRef], package: Option<&str>) -> Result<Value, Failure> {
    let tests = chosen(vm, tests, package)?;
    if tests.is_empty() {
        return Err(Failure::new(ErrorKind::Invalid, "no test to run"));
    }
    let runner = global(vm, "TestRunner")?;
    let mut pairs = Vec::with_capacity(tests.len());
    for t in &tests {
        let pair = vec![vm.new_string(&t.class), vm.new_string(&t.selector)];
        pairs.push(vm.new_array(pair));
    }
    let pairs = vm.new_array(pairs);
    Ok(vm.spawn_send(runner, "runTests:", &[pairs]))
}

/// What `runTests:` answered: for each test, its class, selector, outcome, microseconds and
/// message.
pub fn results(vm: &mut Vm, answered: Value) -> Outcome {
    let malformed =
        || Failure::new(ErrorKind::SmalltalkError, "TestRunner class>>runTests: answered no list of results");
    let rows = vm.array_items(answered).ok_or_else(malformed)?;
    let mut outcomes = Vec::with_capacity(rows.len());
    for row in rows {
        let fields = vm.array_items(row).filter(|f| f.len() == 5).ok_or_else(malformed)?;
        let text = |i: usize| vm.string_of(fields[i]).unwrap_or_default();
        let status = match text(2).as_str() {
            "passed" => TestStatus::Passed,
            "failed" => TestStatus::Failed,
            _ => TestStatus::Error,
        };
        let micros = fields[3].as_int().and_then(|m| u64::try_from(m).ok()).unwrap_or(0);
        outcomes.push(TestOutcome {
            test: TestRef { class: text(0), selector: text(1) },
            status,
            time: Duration::from_micros(micros),
            message: text(4),
        });
    }
    Ok(Answer::TestResults(outcomes))
}
