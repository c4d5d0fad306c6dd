//! Packages on the wire: the package model the files are read into (`onyx_vm::source`) as
//! the agent protocol carries it (`PackageContents`), both ways. The command line sends
//! packages it read to a gem this way (`onyx load`), and writes those a gem answers
//! (`onyx save`).

use onyx_protocol::agent as pb;
use onyx_vm::source::{ClassDef, ClassKind, MethodDef, Package};

/// A package as the protocol carries it (without a version: see [`loadable`]).
pub fn contents(package: &Package) -> pb::PackageContents {
    pb::PackageContents {
        name: package.name.clone(),
        version: String::new(),
        from: String::new(),
        ancestors: Vec::new(),
        classes: package
            .classes
            .iter()
            .map(|c| pb::PackageClass {
                name: c.name.clone(),
                superclass: c.superclass.clone().unwrap_or_default(),
                layout: c.kind.name().to_string(),
                inst_vars: c.inst_vars.clone(),
                class_vars: c.class_vars.clone(),
                class_inst_vars: c.class_inst_vars.clone(),
                pools: c.pools.clone(),
                category: c.category.clone(),
                comment: c.comment.clone(),
                comment_stamp: c.comment_stamp.clone(),
                file: c.file.display().to_string(),
                line: u32::try_from(c.line).unwrap_or(u32::MAX),
            })
            .collect(),
        methods: package
            .methods
            .iter()
            .map(|m| pb::PackageMethod {
                class_name: m.class_name.clone(),
                class_side: m.class_side,
                selector: m.selector.clone(),
                category: m.category.clone(),
                source: m.source.clone(),
                stamp: m.stamp.clone(),
                file: m.file.display().to_string(),
                line: u32::try_from(m.line).unwrap_or(u32::MAX),
            })
            .collect(),
    }
}

/// A package to load, with the version its files hold, where they came from, and the
/// versions it was made from (none: the version itself).
pub fn loadable(package: &Package, version: &str, from: &str, ancestors: &[String]) -> pb::PackageContents {
    pb::PackageContents {
        version: version.to_string(),
        from: from.to_string(),
        ancestors: ancestors.to_vec(),
        ..contents(package)
    }
}

/// The package the protocol carries, or why it is not one.
pub fn package(contents: pb::PackageContents) -> Result<Package, String> {
    let mut classes = Vec::with_capacity(contents.classes.len());
    for c in contents.classes {
        let kind = ClassKind::named(&c.layout)
            .ok_or_else(|| format!("{}: the layout '{}' is not one Onyx has", c.name, c.layout))?;
        classes.push(ClassDef {
            name: c.name,
            superclass: (!c.superclass.is_empty()).then_some(c.superclass),
            kind,
            inst_vars: c.inst_vars,
            class_vars: c.class_vars,
            class_inst_vars: c.class_inst_vars,
            pools: c.pools,
            category: c.category,
            category_spelling: Default::default(),
            package: None,
            tag: None,
            comment: c.comment,
            comment_stamp: c.comment_stamp,
            file: c.file.into(),
            line: c.line as usize,
        });
    }
    let methods = contents
        .methods
        .into_iter()
        .map(|m| MethodDef {
            class_name: m.class_name,
            class_side: m.class_side,
            selector: m.selector,
            category: m.category,
            source: m.source,
            stamp: m.stamp,
            file: m.file.into(),
            line: m.line as usize,
        })
        .collect();
    Ok(Package { name: contents.name, version: Default::default(), classes, methods })
}
