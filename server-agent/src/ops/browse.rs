//! Browsing and changing code: packages, classes and their definitions, protocols, methods
//! and their source; defining classes, compiling and removing methods and classes (for a
//! user who may change code).

use onyx_vm::{EvalError, Value, Vm};

use super::request::{
    Answer, ClassDefinition, ClassRef, Compiled, ErrorKind, Failure, Listed, MethodRef, MethodSource, Outcome, Package,
    Warning,
};
use super::{WORK_LIMIT, all_classes, category, class, entry, eval_failure, may_change_code, send, sorted, strings};

pub fn packages(vm: &mut Vm) -> Outcome {
    let mut names = Vec::new();
    for class in all_classes(vm)? {
        names.push(category(vm, class)?);
    }
    names.retain(|n| !n.is_empty());
    Ok(Answer::Names(Listed::whole(sorted(names))))
}

pub fn classes(vm: &mut Vm, package: &Package) -> Outcome {
    let package = match package {
        Package::Named(name) => name.clone(),
        Package::OfClass(name) => {
            let class = class(vm, &ClassRef::instance(name))?;
            category(vm, class)?
        }
    };
    let mut classes = Vec::new();
    for class in all_classes(vm)? {
        if category(vm, class)? == package {
            classes.push(entry(vm, class));
        }
    }
    classes.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Answer::Classes(Listed::whole(classes)))
}

/// Evaluates a class definition; answers the class's definition as it now stands.
pub fn define_class(vm: &mut Vm, definition: &str) -> Outcome {
    may_change_code(vm)?;
    let class = vm.evaluate_within(definition, WORK_LIMIT).map_err(|e| eval_failure(vm, e))?;
    if !vm.is_behavior(class) || vm.is_metaclass(class) {
        return Err(Failure::new(ErrorKind::Invalid, "the definition did not answer a class"));
    }
    let class_name = vm.class_name(class);
    class_definition(vm, &class_name)
}

/// A class's definition and comment (whichever side was named).
pub fn class_definition(vm: &mut Vm, name: &str) -> Outcome {
    let class = class(vm, &ClassRef::instance(name))?;
    let definition = send(vm, class, "definitionString", &[])?;
    let comment = send(vm, class, "comment", &[])?;
    Ok(Answer::ClassDefinition(ClassDefinition {
        definition: vm.string_of(definition).unwrap_or_default(),
        comment: vm.string_of(comment).unwrap_or_default(),
        package: category(vm, class)?,
        name: vm.class_name(class),
    }))
}

pub fn protocols(vm: &mut Vm, r: &ClassRef) -> Outcome {
    let class = class(vm, r)?;
    let protocols = send(vm, class, "protocols", &[])?;
    Ok(Answer::Names(Listed::whole(sorted(strings(vm, protocols)?))))
}

pub fn methods(vm: &mut Vm, r: &ClassRef, protocol: Option<&str>) -> Outcome {
    let class = class(vm, r)?;
    let selectors = match protocol {
        None => send(vm, class, "selectors", &[])?,
        Some(protocol) => {
            let protocol = vm.intern(protocol);
            send(vm, class, "selectorsInProtocol:", &[protocol])?
        }
    };
    Ok(Answer::Names(Listed::whole(sorted(strings(vm, selectors)?))))
}

pub fn method_source(vm: &mut Vm, r: &MethodRef) -> Outcome {
    let class = class(vm, &r.class)?;
    let selector = vm.intern(&r.selector);
    if send(vm, class, "includesSelector:", &[selector])? != Value::TRUE {
        let message = format!("{} has no method #{}", vm.class_name(class), r.selector);
        return Err(Failure::new(ErrorKind::NotFound, message));
    }
    let method = send(vm, class, "compiledMethodAt:", &[selector])?;
    vm.bring_in(&[method]);
    let code = vm.code_of(method).ok_or_else(|| Failure::new(ErrorKind::NotFound, "not a compiled method"))?;
    let protocol = vm.string_of(code.protocol.get()).unwrap_or_default();
    let step_points = code.step_points.iter().map(|s| (s.span.start, s.span.end)).collect();
    Ok(Answer::MethodSource(MethodSource { source: code.source.to_string(), protocol, step_points }))
}

pub fn compile(vm: &mut Vm, r: &ClassRef, protocol: Option<&str>, source: &str) -> Outcome {
    may_change_code(vm)?;
    let class = class(vm, r)?;
    // No protocol: the replaced method's (or, for a new one, "as yet unclassified").
    let protocol = protocol.map_or(Value::NIL, |p| vm.intern(p));
    vm.take_warnings();
    let method =
        vm.compile_and_install(class, source, protocol).map_err(|e| eval_failure(vm, EvalError::Compile(e)))?;
    let selector = vm.code_of(method).and_then(|c| vm.string_of(c.selector)).unwrap_or_default();
    let warnings = vm
        .take_warnings()
        .into_iter()
        .map(|w| Warning {
            message: w.message,
            start: u32::try_from(w.offset).unwrap_or(u32::MAX),
            line: u32::try_from(w.line).unwrap_or(u32::MAX),
            column: u32::try_from(w.column).unwrap_or(u32::MAX),
        })
        .collect();
    Ok(Answer::Compiled(Compiled { selector, warnings }))
}

pub fn remove_method(vm: &mut Vm, r: &MethodRef) -> Outcome {
    may_change_code(vm)?;
    let class = class(vm, &r.class)?;
    let selector = vm.intern(&r.selector);
    if send(vm, class, "includesSelector:", &[selector])? != Value::TRUE {
        return Err(Failure::new(ErrorKind::NotFound, format!("no method #{}", r.selector)));
    }
    send(vm, class, "removeSelector:", &[selector])?;
    Ok(Answer::Done)
}

pub fn remove_class(vm: &mut Vm, name: &str) -> Outcome {
    may_change_code(vm)?;
    let class = class(vm, &ClassRef::instance(name))?;
    send(vm, class, "removeFromSystem", &[])?;
    Ok(Answer::Done)
}

pub fn find_class(vm: &mut Vm, fragment: &str) -> Outcome {
    let wanted = fragment.to_lowercase();
    let mut classes = Vec::new();
    for class in all_classes(vm)? {
        let name = vm.class_name(class);
        if name.to_lowercase().contains(&wanted) {
            classes.push(entry(vm, class));
        }
    }
    // Those whose names start with the fragment first, then by name.
    classes.sort_by_cached_key(|c| (!c.name.to_lowercase().starts_with(&wanted), c.name.clone()));
    Ok(Answer::Classes(Listed::whole(classes)))
}
