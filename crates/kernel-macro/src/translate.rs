//! The kernel subset of Rust, translated to the GPU backend's C dialect.
//!
//! A kernel body is checked and typed here as it is translated: every value is a field
//! element (`Field`), an element of the field's base (`Base`, `F::Base`: the field itself
//! for a prime field, the field below for an extension), an index (`Int`, `usize` in Rust
//! and `u64` in C), a truth value, an input array over either (read-only,
//! bounds-checked) or a local array of field elements of fixed length. Anything outside
//! the subset is a compile error that says what is not allowed, at the tokens that are
//! not.
//!
//! The C is a template over the field: `FZ_F` is its type and `KF(op)` names its
//! operations (`KF(add)` is `bn254_fr_add` for BN254's scalars), so one translation serves
//! every field with device arithmetic; `FZ_B` and `KB(op)` are its base's.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{
    BinOp, Block, Expr, ExprLit, FnArg, GenericParam, Ident, ItemFn, Lit, Pat, ReturnType, Stmt,
    Type, UnOp,
};

pub type Result<T> = std::result::Result<T, syn::Error>;

fn err<T>(span: Span, msg: impl std::fmt::Display) -> Result<T> {
    Err(syn::Error::new(span, msg))
}

/// The type of a value in a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Field,
    /// An element of the base field (`F::Base`).
    Base,
    Int,
    Bool,
    /// An input array (`&[F]`).
    Input,
    /// An input array over the base field (`&[F::Base]`).
    BaseInput,
    /// A local array of field elements (`[F; K]`).
    Local(usize),
}

impl Ty {
    fn describe(self) -> String {
        match self {
            Ty::Field => "a field element".into(),
            Ty::Base => "a base-field element".into(),
            Ty::Int => "a usize".into(),
            Ty::Bool => "a bool".into(),
            Ty::Input => "an input array".into(),
            Ty::BaseInput => "an input array over the base field".into(),
            Ty::Local(k) => format!("a local array of {k} field elements"),
        }
    }
}

/// A parameter of a kernel after its index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Param {
    Input(Ident),
    BaseInput(Ident),
    Field(Ident),
    Int(Ident),
}

impl Param {
    pub fn ident(&self) -> &Ident {
        match self {
            Param::Input(i) | Param::BaseInput(i) | Param::Field(i) | Param::Int(i) => i,
        }
    }
}

/// A kernel's signature: `fn name<F: KernelField>(i: usize, params…) -> F | [F; K]`.
pub struct Signature {
    pub name: Ident,
    pub field: Ident,
    pub index: Ident,
    pub params: Vec<Param>,
    /// Field elements returned for each index: 1 for `F`, K for `[F; K]`.
    pub outputs: usize,
}

pub fn single_field_generic(f: &ItemFn) -> Result<Ident> {
    let g = &f.sig.generics;
    let mut types = g.params.iter().filter_map(|p| match p {
        GenericParam::Type(t) => Some(t),
        _ => None,
    });
    let (Some(t), None) = (types.next(), types.next()) else {
        return err(
            g.span(),
            "a kernel is generic over exactly one type, its field: `fn name<F: KernelField>(…)`",
        );
    };
    if g.params.len() != 1 || g.where_clause.is_some() {
        return err(g.span(), "a kernel has no generics but its field type");
    }
    Ok(t.ident.clone())
}

fn is_ident_type(ty: &Type, name: &str) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident(name))
}

/// `F::Base`, the base of the kernel's field `F`.
fn is_base_type(ty: &Type, field: &str) -> bool {
    let Type::Path(p) = ty else { return false };
    let segs: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
    p.qself.is_none()
        && p.path.leading_colon.is_none()
        && matches!(segs.as_slice(), [f, b] if f.ident == field && b.ident == "Base"
            && f.arguments.is_none() && b.arguments.is_none())
}

/// `[F; K]` with K a literal.
fn array_len(ty: &Type, field: &Ident) -> Option<Result<usize>> {
    let Type::Array(a) = ty else { return None };
    if !is_ident_type(&a.elem, &field.to_string()) {
        return Some(err(a.elem.span(), "a local array holds field elements"));
    }
    Some(int_literal(&a.len).and_then(|k| {
        if k == 0 {
            err(a.len.span(), "an array has at least one element")
        } else {
            Ok(k)
        }
    }))
}

fn int_literal(e: &Expr) -> Result<usize> {
    match e {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<usize>(),
        _ => err(e.span(), "an array length is an integer literal"),
    }
}

fn param_name(pat: &Pat) -> Result<Ident> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Ok(p.ident.clone()),
        _ => err(pat.span(), "a kernel parameter is a plain name"),
    }
}

pub fn signature(f: &ItemFn) -> Result<Signature> {
    let field = single_field_generic(f)?;
    let fname = field.to_string();
    if let Some(a) = &f.sig.asyncness {
        return err(a.span(), "a kernel is not async");
    }
    let mut inputs = f.sig.inputs.iter();
    let index = match inputs.next() {
        Some(FnArg::Typed(t)) if is_ident_type(&t.ty, "usize") => param_name(&t.pat)?,
        other => {
            return err(
                other.map_or(f.sig.span(), |a| a.span()),
                "a kernel's first parameter is its index, `i: usize`",
            )
        }
    };
    let mut params = Vec::new();
    for a in inputs {
        let FnArg::Typed(t) = a else {
            return err(a.span(), "a kernel is a free function");
        };
        let name = param_name(&t.pat)?;
        let p = match &*t.ty {
            Type::Reference(r)
                if r.mutability.is_none()
                    && matches!(&*r.elem, Type::Slice(s) if is_ident_type(&s.elem, &fname)) =>
            {
                Param::Input(name)
            }
            Type::Reference(r)
                if r.mutability.is_none()
                    && matches!(&*r.elem, Type::Slice(s) if is_base_type(&s.elem, &fname)) =>
            {
                Param::BaseInput(name)
            }
            ty if is_ident_type(ty, &fname) => Param::Field(name),
            ty if is_ident_type(ty, "usize") => Param::Int(name),
            ty => {
                let allowed = format!("`&[{fname}]`, `&[{fname}::Base]`, `{fname}` or `usize`");
                return err(ty.span(), format!("a kernel parameter is {allowed}"));
            }
        };
        params.push(p);
    }
    let outputs = match &f.sig.output {
        ReturnType::Type(_, ty) if is_ident_type(ty, &fname) => 1,
        ReturnType::Type(_, ty) => match array_len(ty, &field) {
            Some(k) => k?,
            None => {
                return err(
                    ty.span(),
                    format!("a kernel returns `{fname}` or `[{fname}; K]`"),
                )
            }
        },
        ReturnType::Default => {
            return err(
                f.sig.span(),
                format!("a kernel returns `{fname}` or `[{fname}; K]`"),
            )
        }
    };
    Ok(Signature {
        name: f.sig.ident.clone(),
        field,
        index,
        params,
        outputs,
    })
}

/// A variable in scope: its C name and type.
struct Var {
    rust: String,
    c: String,
    ty: Ty,
}

/// Translates one function body.
pub struct Translator {
    field: String,
    scopes: Vec<Vec<Var>>,
    used: std::collections::HashSet<String>,
    out: String,
    depth: usize,
}

/// `DEVICE void KF(k_name)(u64 v_i, …, u32 *fz_fault, FZ_F *fz_out)`: the kernel body as
/// a device function writing its outputs to `fz_out` and setting `*fz_fault` when it reads
/// past an array's end or divides by zero (private memory: the caller reports it).
pub fn kernel_c(f: &ItemFn, sig: &Signature) -> Result<String> {
    let mut t = Translator::new(&sig.field);
    let mut args = vec![format!("u64 {}", t.declare(&sig.index, Ty::Int))];
    for p in &sig.params {
        args.push(match p {
            Param::Input(n) => {
                let c = t.declare(n, Ty::Input);
                format!("GLOBAL const FZ_F *{c}, u64 {c}_len")
            }
            Param::BaseInput(n) => {
                let c = t.declare(n, Ty::BaseInput);
                format!("GLOBAL const FZ_B *{c}, u64 {c}_len")
            }
            Param::Field(n) => format!("FZ_F {}", t.declare(n, Ty::Field)),
            Param::Int(n) => format!("u64 {}", t.declare(n, Ty::Int)),
        });
    }
    args.push("u32 *fz_fault".into());
    args.push("FZ_F *fz_out".into());
    let ret = if sig.outputs == 1 {
        Ty::Field
    } else {
        Ty::Local(sig.outputs)
    };
    t.body(&f.block, ret)?;
    Ok(format!(
        "DEVICE void KF(k_{})({}) {{\n{}}}\n",
        sig.name,
        args.join(", "),
        t.out
    ))
}

/// `DEVICE FZ_F KF(r_name)(FZ_F a, FZ_F b)` and `DEVICE FZ_F KF(r_name_identity)(void)`:
/// a reducer's combine and identity.
pub fn reducer_c(f: &ItemFn, identity: &Expr) -> Result<(Ident, String)> {
    let field = single_field_generic(f)?;
    let fname = field.to_string();
    let mut t = Translator::new(&field);
    let mut args = Vec::new();
    for a in &f.sig.inputs {
        match a {
            FnArg::Typed(p) if is_ident_type(&p.ty, &fname) => args.push(format!(
                "FZ_F {}",
                t.declare(&param_name(&p.pat)?, Ty::Field)
            )),
            _ => return err(a.span(), format!("a reducer combines two `{fname}`")),
        }
    }
    if args.len() != 2 {
        return err(
            f.sig.inputs.span(),
            format!("a reducer combines two `{fname}`"),
        );
    }
    match &f.sig.output {
        ReturnType::Type(_, ty) if is_ident_type(ty, &fname) => {}
        _ => return err(f.sig.span(), format!("a reducer returns `{fname}`")),
    }
    t.depth = 1;
    t.body(&f.block, Ty::Field)?;
    let mut id = Translator::new(&field);
    let (id_c, id_ty) = id.expr(identity)?;
    if id_ty != Ty::Field {
        return err(identity.span(), "a reducer's identity is a field element");
    }
    let name = &f.sig.ident;
    // The combine has no faults to report: its fault flag is a local.
    Ok((
        name.clone(),
        format!(
            "DEVICE FZ_F KF(r_{name}_identity)(void) {{ return {id_c}; }}\n\
             DEVICE FZ_F KF(r_{name})({}) {{\nu32 fz_fault_local = 0; u32 *fz_fault = &fz_fault_local; FZ_F fz_out[1];\n{}return fz_out[0];\n}}\n",
            args.join(", "),
            t.out
        ),
    ))
}

impl Translator {
    pub fn new(field: &Ident) -> Self {
        Self {
            field: field.to_string(),
            scopes: vec![Vec::new()],
            used: Default::default(),
            out: String::new(),
            depth: 1,
        }
    }

    /// A new variable: a fresh C name, so shadowing in Rust never redeclares in C.
    fn declare(&mut self, name: &Ident, ty: Ty) -> String {
        let rust = name.to_string();
        // `{c}_len` (an input's length) and `{c}_end` (a loop's bound) are reserved with it.
        let taken = |u: &std::collections::HashSet<String>, c: &str| {
            [String::new(), "_len".into(), "_end".into()]
                .iter()
                .any(|s| u.contains(&format!("{c}{s}")))
        };
        let mut c = format!("v_{rust}");
        let mut k = 1;
        while taken(&self.used, &c) {
            c = format!("v_{rust}_{k}");
            k += 1;
        }
        for s in ["", "_len", "_end"] {
            self.used.insert(format!("{c}{s}"));
        }
        self.scopes.last_mut().expect("a scope").push(Var {
            rust,
            c: c.clone(),
            ty,
        });
        c
    }

    fn lookup(&self, name: &Ident) -> Result<(&str, Ty)> {
        let rust = name.to_string();
        // The innermost, latest declaration: Rust's shadowing.
        match self
            .scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|v| v.rust == rust)
        {
            Some(v) => Ok((&v.c, v.ty)),
            None => err(
                name.span(),
                format!("`{rust}` is not a variable of this kernel"),
            ),
        }
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// The function's body: statements, then the tail expression as the result.
    fn body(&mut self, block: &Block, ret: Ty) -> Result<()> {
        let n = block.stmts.len();
        for (k, s) in block.stmts.iter().enumerate() {
            match s {
                Stmt::Expr(e, None) if k + 1 == n && !is_block_like(e) => {
                    return self.result(e, ret);
                }
                _ => self.stmt(s)?,
            }
        }
        err(
            block.span(),
            "a kernel ends with the expression of its result (no `return`)",
        )
    }

    fn result(&mut self, e: &Expr, ret: Ty) -> Result<()> {
        match ret {
            Ty::Field => {
                let c = self.expect(e, Ty::Field)?;
                self.line(&format!("fz_out[0] = {c};"));
            }
            Ty::Local(k) => {
                if let Expr::Array(a) = e {
                    if a.elems.len() != k {
                        return err(a.span(), format!("the kernel returns {k} field elements"));
                    }
                    for (j, x) in a.elems.iter().enumerate() {
                        let c = self.expect(x, Ty::Field)?;
                        self.line(&format!("fz_out[{j}] = {c};"));
                    }
                } else {
                    let c = self.expect(e, Ty::Local(k))?;
                    self.line(&format!(
                        "for (int fz_j = 0; fz_j < {k}; fz_j++) fz_out[fz_j] = {c}[fz_j];"
                    ));
                }
            }
            _ => return err(e.span(), "a kernel returns field elements"),
        }
        Ok(())
    }

    fn block(&mut self, b: &Block) -> Result<()> {
        self.scopes.push(Vec::new());
        self.depth += 1;
        for s in &b.stmts {
            match s {
                Stmt::Expr(e, None) if !is_block_like(e) => {
                    return err(e.span(), "a block inside a kernel has no value (add `;`)")
                }
                _ => self.stmt(s)?,
            }
        }
        self.depth -= 1;
        self.scopes.pop();
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> Result<()> {
        match s {
            Stmt::Local(l) => {
                let (pat, declared) = match &l.pat {
                    Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
                    p => (p, None),
                };
                let name = param_name(pat)?;
                let Some(init) = &l.init else {
                    return err(
                        l.span(),
                        "a kernel variable is initialised where it is declared",
                    );
                };
                if let Some((_, d)) = &init.diverge {
                    return err(d.span(), "`let … else` is not in the kernel subset");
                }
                let want = match declared {
                    None => None,
                    Some(ty) => Some(self.rust_type(ty)?),
                };
                let (c, ty) = self.expr(&init.expr)?;
                if let Some(w) = want {
                    if w != ty {
                        return err(
                            init.expr.span(),
                            format!("expected {}, found {}", w.describe(), ty.describe()),
                        );
                    }
                }
                let decl = match ty {
                    Ty::Field => format!("FZ_F {} = {c};", self.declare(&name, ty)),
                    Ty::Base => format!("FZ_B {} = {c};", self.declare(&name, ty)),
                    Ty::Int => format!("u64 {} = {c};", self.declare(&name, ty)),
                    Ty::Bool => format!("int {} = {c};", self.declare(&name, ty)),
                    Ty::Local(k) => {
                        let v = self.declare(&name, ty);
                        // `c` is a brace list or another local array.
                        if c.starts_with('{') {
                            format!("FZ_F {v}[{k}] = {c};")
                        } else {
                            format!(
                                "FZ_F {v}[{k}]; for (int fz_j = 0; fz_j < {k}; fz_j++) {v}[fz_j] = {c}[fz_j];"
                            )
                        }
                    }
                    Ty::Input | Ty::BaseInput => {
                        return err(init.expr.span(), "an input array is not copied")
                    }
                };
                self.line(&decl);
                Ok(())
            }
            Stmt::Expr(e, _) => self.effect(e),
            Stmt::Item(i) => err(i.span(), "items are not in the kernel subset"),
            Stmt::Macro(m) => err(m.span(), "macros are not in the kernel subset"),
        }
    }

    /// The type a `let` declares.
    fn rust_type(&self, ty: &Type) -> Result<Ty> {
        if is_ident_type(ty, &self.field) {
            Ok(Ty::Field)
        } else if is_base_type(ty, &self.field) {
            Ok(Ty::Base)
        } else if is_ident_type(ty, "usize") {
            Ok(Ty::Int)
        } else if is_ident_type(ty, "bool") {
            Ok(Ty::Bool)
        } else if let Some(k) = array_len(ty, &Ident::new(&self.field, Span::call_site())) {
            Ok(Ty::Local(k?))
        } else {
            err(
                ty.span(),
                format!(
                    "a kernel variable is `{0}`, `{0}::Base`, `usize`, `bool` or `[{0}; K]`",
                    self.field
                ),
            )
        }
    }

    /// An expression evaluated for its effect: assignment, loop, branch.
    fn effect(&mut self, e: &Expr) -> Result<()> {
        match e {
            Expr::Assign(a) => {
                let (place, ty) = self.place(&a.left)?;
                let c = self.expect(&a.right, ty)?;
                self.line(&format!("{place} = {c};"));
                Ok(())
            }
            Expr::Binary(b) if compound(&b.op).is_some() => {
                let op = compound(&b.op).expect("checked");
                let (place, ty) = self.place(&b.left)?;
                let (rc, rt) = self.expr(&b.right)?;
                let c = self.binary(op, (&place, ty), (&rc, rt), b.span())?.0;
                self.line(&format!("{place} = {c};"));
                Ok(())
            }
            Expr::ForLoop(f) => {
                let name = param_name(&f.pat)?;
                let Expr::Range(r) = &*f.expr else {
                    return err(f.expr.span(), "a kernel loop runs over a range `a..b`");
                };
                let (Some(lo), Some(hi), syn::RangeLimits::HalfOpen(_)) =
                    (&r.start, &r.end, &r.limits)
                else {
                    return err(r.span(), "a kernel loop runs over a range `a..b`");
                };
                let lo = self.expect(lo, Ty::Int)?;
                let hi = self.expect(hi, Ty::Int)?;
                if let Some(l) = &f.label {
                    return err(l.span(), "labels are not in the kernel subset");
                }
                self.scopes.push(Vec::new());
                let v = self.declare(&name, Ty::Int);
                self.line(&format!(
                    "for (u64 {v} = {lo}, {v}_end = {hi}; {v} < {v}_end; {v}++) {{"
                ));
                self.block(&f.body)?;
                self.scopes.pop();
                self.line("}");
                Ok(())
            }
            Expr::If(i) => {
                let c = self.expect(&i.cond, Ty::Bool)?;
                self.line(&format!("if ({c}) {{"));
                self.block(&i.then_branch)?;
                match &i.else_branch {
                    None => self.line("}"),
                    Some((_, e)) => {
                        self.line("} else {");
                        self.depth += 1;
                        match &**e {
                            Expr::Block(b) => self.block(&b.block)?,
                            other => self.effect(other)?,
                        }
                        self.depth -= 1;
                        self.line("}");
                    }
                }
                Ok(())
            }
            Expr::Block(b) if b.label.is_none() => {
                self.line("{");
                self.block(&b.block)?;
                self.line("}");
                Ok(())
            }
            _ => err(
                e.span(),
                "a kernel statement is a `let`, an assignment, a `for` over a range or an `if`",
            ),
        }
    }

    /// An assignable place: a mutable variable or an element of a local array.
    fn place(&mut self, e: &Expr) -> Result<(String, Ty)> {
        match e {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let (c, ty) = self.lookup(p.path.get_ident().expect("checked"))?;
                match ty {
                    Ty::Field | Ty::Base | Ty::Int | Ty::Bool => Ok((c.to_string(), ty)),
                    _ => err(e.span(), "an array is assigned element by element"),
                }
            }
            Expr::Index(ix) => {
                let (c, ty) = self.expr(&ix.expr)?;
                match ty {
                    Ty::Local(k) => {
                        let i = self.expect(&ix.index, Ty::Int)?;
                        Ok((local_at(&c, &i, k), Ty::Field))
                    }
                    Ty::Input | Ty::BaseInput => err(ix.span(), "input arrays are read-only"),
                    _ => err(ix.span(), format!("{} cannot be indexed", ty.describe())),
                }
            }
            _ => err(
                e.span(),
                "only variables and local array elements are assigned",
            ),
        }
    }

    fn expect(&mut self, e: &Expr, want: Ty) -> Result<String> {
        let (c, ty) = self.expr(e)?;
        if ty != want {
            return err(
                e.span(),
                format!("expected {}, found {}", want.describe(), ty.describe()),
            );
        }
        Ok(c)
    }

    /// C for a value, and its type.
    pub fn expr(&mut self, e: &Expr) -> Result<(String, Ty)> {
        match e {
            Expr::Lit(l) => match &l.lit {
                Lit::Int(i) => {
                    if !matches!(i.suffix(), "" | "usize") {
                        return err(i.span(), "integers in a kernel are `usize`");
                    }
                    let v: u64 = i.base10_parse()?;
                    Ok((format!("((u64){v}UL)"), Ty::Int))
                }
                Lit::Bool(b) => Ok(((if b.value { "1" } else { "0" }).into(), Ty::Bool)),
                _ => err(
                    l.span(),
                    "only integer and bool literals are in the kernel subset",
                ),
            },
            Expr::Path(p) if p.qself.is_none() => {
                if let Some(id) = p.path.get_ident() {
                    let (c, ty) = self.lookup(id)?;
                    return Ok((c.to_string(), ty));
                }
                let segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                // `F::ZERO`, `F::ONE`, `F::Base::ZERO`, `F::Base::ONE`.
                let (ty, kf, konst) = match segs.as_slice() {
                    [f, k] if *f == self.field => (Ty::Field, "KF", k),
                    [f, b, k] if *f == self.field && b == "Base" => (Ty::Base, "KB", k),
                    _ => return err(p.span(), "not a variable of this kernel"),
                };
                match konst.as_str() {
                    "ZERO" => Ok((format!("{kf}(zero)()"), ty)),
                    "ONE" => Ok((format!("{kf}(one)()"), ty)),
                    other => err(
                        p.span(),
                        format!("`{other}` is not in the kernel subset (ZERO, ONE)"),
                    ),
                }
            }
            Expr::Paren(p) => {
                let (c, ty) = self.expr(&p.expr)?;
                Ok((format!("({c})"), ty))
            }
            Expr::Binary(b) => {
                if compound(&b.op).is_some() {
                    return err(b.span(), "an assignment is a statement");
                }
                let l = self.expr(&b.left)?;
                let r = self.expr(&b.right)?;
                self.binary(b.op, (&l.0, l.1), (&r.0, r.1), b.span())
            }
            Expr::Unary(u) => {
                let (c, ty) = self.expr(&u.expr)?;
                match (&u.op, ty) {
                    (UnOp::Neg(_), Ty::Field) => Ok((format!("KF(neg)({c})"), Ty::Field)),
                    (UnOp::Neg(_), Ty::Base) => Ok((format!("KB(neg)({c})"), Ty::Base)),
                    (UnOp::Not(_), Ty::Bool) => Ok((format!("(!{c})"), Ty::Bool)),
                    _ => err(
                        u.span(),
                        format!("this operator does not apply to {}", ty.describe()),
                    ),
                }
            }
            Expr::MethodCall(m) => {
                let (c, ty) = self.expr(&m.receiver)?;
                let ops = match ty {
                    Ty::Field => "KF",
                    Ty::Base => "KB",
                    _ => "",
                };
                if ops.is_empty() || m.turbofish.is_some() {
                    return err(m.span(), "methods in a kernel: `x.square()`, `x.double()`, `x.is_zero()` on field elements, `x.mul_by_base(b)`");
                }
                let method = m.method.to_string();
                if method == "mul_by_base" && ty == Ty::Field && m.args.len() == 1 {
                    let b = self.expect(&m.args[0], Ty::Base)?;
                    return Ok((format!("KF(mul_base)({c}, {b})"), Ty::Field));
                }
                if !m.args.is_empty() {
                    return err(m.span(), "only `x.mul_by_base(b)` takes an argument (`x` a field element, `b` of its base)");
                }
                match method.as_str() {
                    "square" => Ok((format!("{ops}(sqr)({c})"), ty)),
                    "double" => Ok((format!("{ops}(dbl)({c})"), ty)),
                    "is_zero" => Ok((format!("{ops}(is_zero)({c})"), Ty::Bool)),
                    other => err(
                        m.method.span(),
                        format!("`{other}` is not in the kernel subset (square, double, is_zero, mul_by_base)"),
                    ),
                }
            }
            Expr::Call(call) => {
                // `F::lift(b)`: a base-field element as a field element.
                let is_lift = matches!(&*call.func, Expr::Path(p) if p.qself.is_none()
                    && p.path.segments.len() == 2
                    && p.path.segments[0].ident == self.field
                    && p.path.segments[1].ident == "lift");
                if !is_lift || call.args.len() != 1 {
                    return err(
                        call.span(),
                        format!(
                            "this call is not in the kernel subset (the only call is `{}::lift(b)`)",
                            self.field
                        ),
                    );
                }
                let b = self.expect(&call.args[0], Ty::Base)?;
                Ok((format!("KF(from_base)({b})"), Ty::Field))
            }
            Expr::Index(ix) => {
                let (c, ty) = self.expr(&ix.expr)?;
                let i = self.expect(&ix.index, Ty::Int)?;
                match ty {
                    Ty::Input => Ok((format!("KF(k_at)({c}, {c}_len, {i}, fz_fault)"), Ty::Field)),
                    Ty::BaseInput => Ok((
                        format!("KF(k_at_base)({c}, {c}_len, {i}, fz_fault)"),
                        Ty::Base,
                    )),
                    Ty::Local(k) => Ok((local_at(&c, &i, k), Ty::Field)),
                    _ => err(ix.span(), format!("{} cannot be indexed", ty.describe())),
                }
            }
            Expr::Array(a) => {
                if a.elems.is_empty() {
                    return err(a.span(), "an array has at least one element");
                }
                let mut parts = Vec::new();
                for x in &a.elems {
                    parts.push(self.expect(x, Ty::Field)?);
                }
                Ok((
                    format!("{{{}}}", parts.join(", ")),
                    Ty::Local(a.elems.len()),
                ))
            }
            Expr::Repeat(r) => {
                let k = int_literal(&r.len)?;
                if k == 0 {
                    return err(r.len.span(), "an array has at least one element");
                }
                let x = self.expect(&r.expr, Ty::Field)?;
                // Evaluated once in Rust: a C temporary would need a statement, so the
                // element is restricted to what has no effect and no cost worth saving.
                if !matches!(&*r.expr, Expr::Path(_)) {
                    return err(
                        r.expr.span(),
                        "`[x; K]` repeats a variable or `F::ZERO`/`F::ONE`",
                    );
                }
                Ok((format!("{{{}}}", vec![x; k].join(", ")), Ty::Local(k)))
            }
            Expr::If(i) => {
                let c = self.expect(&i.cond, Ty::Bool)?;
                let Some((_, els)) = &i.else_branch else {
                    return err(i.span(), "an `if` with a value has an `else`");
                };
                let a = self.value_block(&i.then_branch)?;
                let b = match &**els {
                    Expr::Block(b) => self.value_block(&b.block)?,
                    other => self.expr(other)?,
                };
                if a.1 != b.1 || matches!(a.1, Ty::Local(_) | Ty::Input | Ty::BaseInput) {
                    return err(i.span(), "both branches give the same scalar type");
                }
                Ok((format!("({c} ? {} : {})", a.0, b.0), a.1))
            }
            _ => err(e.span(), "this expression is not in the kernel subset"),
        }
    }

    /// A branch that is one expression, `{ x }`.
    fn value_block(&mut self, b: &Block) -> Result<(String, Ty)> {
        match b.stmts.as_slice() {
            [Stmt::Expr(e, None)] => self.expr(e),
            _ => err(b.span(), "a branch with a value is one expression"),
        }
    }

    fn binary(
        &self,
        op: BinOp,
        (l, lt): (&str, Ty),
        (r, rt): (&str, Ty),
        span: Span,
    ) -> Result<(String, Ty)> {
        use Ty::*;
        let bad = || {
            err(
                span,
                format!(
                    "this operator does not apply to {} and {}",
                    lt.describe(),
                    rt.describe()
                ),
            )
        };
        if lt != rt {
            return bad();
        }
        let out = match (op, lt) {
            (BinOp::Add(_), Field) => (format!("KF(add)({l}, {r})"), Field),
            (BinOp::Sub(_), Field) => (format!("KF(sub)({l}, {r})"), Field),
            (BinOp::Mul(_), Field) => (format!("KF(mul)({l}, {r})"), Field),
            (BinOp::Eq(_), Field) => (format!("KF(eq)({l}, {r})"), Bool),
            (BinOp::Ne(_), Field) => (format!("(!KF(eq)({l}, {r}))"), Bool),
            (BinOp::Add(_), Base) => (format!("KB(add)({l}, {r})"), Base),
            (BinOp::Sub(_), Base) => (format!("KB(sub)({l}, {r})"), Base),
            (BinOp::Mul(_), Base) => (format!("KB(mul)({l}, {r})"), Base),
            (BinOp::Eq(_), Base) => (format!("KB(eq)({l}, {r})"), Bool),
            (BinOp::Ne(_), Base) => (format!("(!KB(eq)({l}, {r}))"), Bool),
            (BinOp::Add(_), Int) => (format!("({l} + {r})"), Int),
            (BinOp::Sub(_), Int) => (format!("({l} - {r})"), Int),
            (BinOp::Mul(_), Int) => (format!("({l} * {r})"), Int),
            // Division by zero is a fault, not undefined behaviour.
            (BinOp::Div(_), Int) => (format!("fz_div({l}, {r}, fz_fault)"), Int),
            (BinOp::Rem(_), Int) => (format!("fz_rem({l}, {r}, fz_fault)"), Int),
            // Shift counts wrap at 64, as in Rust without overflow checks.
            (BinOp::Shl(_), Int) => (format!("({l} << ({r} & 63))"), Int),
            (BinOp::Shr(_), Int) => (format!("({l} >> ({r} & 63))"), Int),
            (BinOp::BitAnd(_), Int) => (format!("({l} & {r})"), Int),
            (BinOp::BitOr(_), Int) => (format!("({l} | {r})"), Int),
            (BinOp::BitXor(_), Int) => (format!("({l} ^ {r})"), Int),
            (BinOp::Eq(_), Int | Bool) => (format!("({l} == {r})"), Bool),
            (BinOp::Ne(_), Int | Bool) => (format!("({l} != {r})"), Bool),
            (BinOp::Lt(_), Int) => (format!("({l} < {r})"), Bool),
            (BinOp::Le(_), Int) => (format!("({l} <= {r})"), Bool),
            (BinOp::Gt(_), Int) => (format!("({l} > {r})"), Bool),
            (BinOp::Ge(_), Int) => (format!("({l} >= {r})"), Bool),
            (BinOp::And(_), Bool) => (format!("({l} && {r})"), Bool),
            (BinOp::Or(_), Bool) => (format!("({l} || {r})"), Bool),
            _ => return bad(),
        };
        Ok(out)
    }
}

/// A local array's element, the index checked: out of range is a fault (and element 0).
fn local_at(c: &str, i: &str, k: usize) -> String {
    format!("{c}[fz_local_index({i}, {k}, fz_fault)]")
}

fn compound(op: &BinOp) -> Option<BinOp> {
    Some(match op {
        BinOp::AddAssign(t) => BinOp::Add(syn::Token![+](t.span())),
        BinOp::SubAssign(t) => BinOp::Sub(syn::Token![-](t.span())),
        BinOp::MulAssign(t) => BinOp::Mul(syn::Token![*](t.span())),
        _ => return None,
    })
}

fn is_block_like(e: &Expr) -> bool {
    matches!(e, Expr::ForLoop(_) | Expr::If(_) | Expr::Block(_))
}

#[cfg(test)]
/// For tests: the C of a kernel, or the error message.
pub fn kernel_c_of(src: &str) -> std::result::Result<String, String> {
    let f: ItemFn = syn::parse_str(src).map_err(|e| e.to_string())?;
    let sig = signature(&f).map_err(|e| e.to_string())?;
    kernel_c(&f, &sig).map_err(|e| e.to_string())
}
