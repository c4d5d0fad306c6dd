//! Scope analysis: which variables each scope declares, which blocks are inlined, which
//! variables inner blocks capture, and so where each variable must live.
//!
//! A variable captured by a real (non-inlined) block and assigned anywhere lives in a *temp
//! vector* shared by every closure that sees it; a captured variable that is never assigned is
//! copied into each closure. Arguments are never assigned, so they are always copied; this
//! includes the loop variable of an inlined `to:do:`, so each closure sees its own iteration.

use std::collections::{BTreeSet, HashMap};

use super::ast::{Block, Expr, MethodNode, Stmt};

/// Index of a scope in [`Analysis::scopes`].
pub type ScopeId = usize;
/// Index of a variable in [`Analysis::vars`].
pub type VarId = usize;

/// A method body, a real block, or a block inlined into its enclosing scope.
#[derive(Debug)]
pub struct Scope {
    /// The enclosing scope.
    pub parent: Option<ScopeId>,
    /// Whether this block's code is compiled into its enclosing function.
    pub inlined: bool,
    /// Variables declared here: arguments first, then temporaries.
    pub vars: Vec<VarId>,
    /// For real scopes: variables of outer real scopes used here or in nested blocks.
    pub free: BTreeSet<VarId>,
}

/// One declared variable.
#[derive(Debug)]
pub struct Var {
    /// Its name.
    pub name: String,
    /// The scope that declares it.
    pub scope: ScopeId,
    /// Whether it is an argument (arguments cannot be assigned).
    pub is_arg: bool,
    /// Assigned somewhere.
    pub assigned: bool,
    /// Referenced from a real scope other than its own.
    pub captured: bool,
}

impl Var {
    /// Whether the variable lives in a temp vector.
    pub fn in_vector(&self) -> bool {
        self.captured && self.assigned
    }
}

/// The result of analysing one method.
#[derive(Debug, Default)]
pub struct Analysis {
    /// All scopes; 0 is the method.
    pub scopes: Vec<Scope>,
    /// All variables.
    pub vars: Vec<Var>,
    /// The scope of each block literal, keyed by the block's start offset.
    pub block_scopes: HashMap<u32, ScopeId>,
}

impl Analysis {
    /// The nearest real (non-inlined) scope containing `s`.
    pub fn real_scope(&self, mut s: ScopeId) -> ScopeId {
        while let Some(scope) = self.scopes.get(s) {
            match scope.parent {
                Some(p) if scope.inlined => s = p,
                _ => break,
            }
        }
        s
    }

    /// Resolves `name` from scope `s` outwards.
    pub fn resolve(&self, mut s: ScopeId, name: &str) -> Option<VarId> {
        loop {
            let scope = self.scopes.get(s)?;
            if let Some(&v) = scope.vars.iter().rev().find(|&&v| self.vars.get(v).is_some_and(|var| var.name == name)) {
                return Some(v);
            }
            s = scope.parent?;
        }
    }

    /// Variables whose home is real scope `real` (its own and those of blocks inlined into it).
    pub fn vars_of_real_scope(&self, real: ScopeId) -> Vec<VarId> {
        let mut out = Vec::new();
        for (id, var) in self.vars.iter().enumerate() {
            if self.real_scope(var.scope) == real {
                out.push(id);
            }
        }
        out
    }
}

/// Which selectors are compiled inline, and with what block arities, given the arguments.
/// `None` means an ordinary send. Shared by analysis and code generation so both agree.
pub fn inlined_blocks(selector: &str, receiver: &Expr, args: &[Expr]) -> Option<Vec<usize>> {
    let block_arity = |e: &Expr| match e {
        Expr::Block(b) => Some(b.params.len()),
        _ => None,
    };
    let all_blocks = |arities: &[usize]| {
        args.iter().zip(arities).all(|(a, &n)| block_arity(a) == Some(n)) && args.len() == arities.len()
    };
    let arg_indices = |n: usize| Some((0..n).map(|i| i + 1).collect::<Vec<_>>());
    match selector {
        "ifTrue:" | "ifFalse:" | "and:" | "or:" | "ifNil:" if all_blocks(&[0]) => arg_indices(1),
        "ifTrue:ifFalse:" | "ifFalse:ifTrue:" if all_blocks(&[0, 0]) => arg_indices(2),
        "ifNotNil:" if args.len() == 1 && matches!(block_arity(&args[0]), Some(0 | 1)) => arg_indices(1),
        "ifNil:ifNotNil:"
            if args.len() == 2 && block_arity(&args[0]) == Some(0) && matches!(block_arity(&args[1]), Some(0 | 1)) =>
        {
            arg_indices(2)
        }
        "ifNotNil:ifNil:"
            if args.len() == 2 && matches!(block_arity(&args[0]), Some(0 | 1)) && block_arity(&args[1]) == Some(0) =>
        {
            arg_indices(2)
        }
        "whileTrue:" | "whileFalse:" if block_arity(receiver) == Some(0) && all_blocks(&[0]) => Some(vec![0, 1]),
        "whileTrue" | "whileFalse" | "repeat" if block_arity(receiver) == Some(0) => Some(vec![0]),
        "timesRepeat:" if all_blocks(&[0]) => arg_indices(1),
        "to:do:" if args.len() == 2 && block_arity(&args[1]) == Some(1) => Some(vec![2]),
        "to:by:do:" if args.len() == 3 && block_arity(&args[2]) == Some(1) && literal_step(&args[1]).is_some() => {
            Some(vec![3])
        }
        _ => None,
    }
}

/// The step of `to:by:do:` when it is a non-zero SmallInteger literal.
pub fn literal_step(e: &Expr) -> Option<i64> {
    match e {
        Expr::Literal(super::ast::Literal::Integer(super::ast::IntLit::Small(n)), _)
            if *n != 0 && n.abs() < 1 << 15 =>
        {
            Some(*n)
        }
        _ => None,
    }
}

/// Analyses a method.
pub fn analyse(method: &MethodNode) -> Analysis {
    let mut a = Analysis::default();
    a.scopes.push(Scope { parent: None, inlined: false, vars: Vec::new(), free: BTreeSet::new() });
    for p in &method.params {
        declare(&mut a, 0, &p.name, true);
    }
    for t in &method.temps {
        declare(&mut a, 0, &t.name, false);
    }
    stmts(&mut a, 0, &method.body);
    a
}

fn declare(a: &mut Analysis, scope: ScopeId, name: &str, is_arg: bool) -> VarId {
    let id = a.vars.len();
    a.vars.push(Var { name: name.to_string(), scope, is_arg, assigned: false, captured: false });
    if let Some(s) = a.scopes.get_mut(scope) {
        s.vars.push(id);
    }
    id
}

fn stmts(a: &mut Analysis, scope: ScopeId, body: &[Stmt]) {
    for s in body {
        match s {
            Stmt::Expr(e) | Stmt::Return(e, _) => expr(a, scope, e),
        }
    }
}

fn reference(a: &mut Analysis, scope: ScopeId, name: &str, assign: bool) {
    let Some(v) = a.resolve(scope, name) else { return };
    let here = a.real_scope(scope);
    let Some(var) = a.vars.get_mut(v) else { return };
    if assign {
        var.assigned = true;
    }
    let home = var.scope;
    let home_real = a.real_scope(home);
    if home_real == here {
        return;
    }
    if let Some(var) = a.vars.get_mut(v) {
        var.captured = true;
    }
    // The variable is free in every real scope from `here` out to (not including) its home.
    let mut s = here;
    while s != home_real {
        if let Some(scope) = a.scopes.get_mut(s) {
            scope.free.insert(v);
        }
        match a.scopes.get(s).and_then(|sc| sc.parent) {
            Some(p) => s = a.real_scope(p),
            None => break,
        }
    }
}

fn block(a: &mut Analysis, parent: ScopeId, b: &Block, inlined: bool) {
    let id = a.scopes.len();
    a.scopes.push(Scope { parent: Some(parent), inlined, vars: Vec::new(), free: BTreeSet::new() });
    a.block_scopes.insert(b.span.start, id);
    for p in &b.params {
        declare(a, id, &p.name, true);
    }
    for t in &b.temps {
        declare(a, id, &t.name, false);
    }
    stmts(a, id, &b.body);
}

fn expr(a: &mut Analysis, scope: ScopeId, e: &Expr) {
    match e {
        Expr::Literal(..) => {}
        Expr::Variable(id) => reference(a, scope, &id.name, false),
        Expr::Assign { target, value, .. } => {
            expr(a, scope, value);
            reference(a, scope, &target.name, true);
        }
        Expr::Send(send) => {
            let inl = inlined_blocks(&send.message.selector, &send.receiver, &send.message.args);
            let is_inl = |i: usize| inl.as_ref().is_some_and(|v| v.contains(&i));
            operand(a, scope, &send.receiver, is_inl(0));
            for (i, arg) in send.message.args.iter().enumerate() {
                operand(a, scope, arg, is_inl(i + 1));
            }
        }
        Expr::Cascade { receiver, messages, .. } => {
            expr(a, scope, receiver);
            for m in messages {
                for arg in &m.args {
                    expr(a, scope, arg);
                }
            }
        }
        Expr::Block(b) => block(a, scope, b, false),
        Expr::Brace(items, _) => stmts(a, scope, items),
    }
}

fn operand(a: &mut Analysis, scope: ScopeId, e: &Expr, inlined: bool) {
    match e {
        Expr::Block(b) if inlined => block(a, scope, b, true),
        _ => expr(a, scope, e),
    }
}
