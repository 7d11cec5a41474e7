//! A kernel's body on eight lanes (`fastzk_runtime::lanes`): the CPU function, its
//! checks already in place (`checked`), with its types mapped — the field to its lanes,
//! its base to the base's, `usize` to `LaneIdx`, `bool` to `LaneMask` — and its
//! operations to the lanes' (`?` where a group gives up: a branch, a loop's bounds or a
//! local index that differs between lanes, a read or division that would fault).
//! The translator has typed the body already, so this rewrite can be purely syntactic.

use quote::format_ident;
use syn::visit_mut::VisitMut;
use syn::{parse_quote, BinOp, Expr, FnArg, Ident, ItemFn, Lit, ReturnType, Stmt, Type};

/// The lane backend's type parameter (a name no kernel uses: the translator refuses
/// every generic but the field).
pub const BACKEND: &str = "__FzLanes";

pub fn lanes_name(name: &Ident) -> Ident {
    format_ident!("__fz_lanes_{}", name)
}

struct Lanes {
    field: Ident,
    backend: Ident,
}

impl Lanes {
    fn field_lanes(&self) -> Type {
        let (f, b) = (&self.field, &self.backend);
        parse_quote!(<#f as ::fastzk_runtime::KernelField>::Lanes<#b>)
    }
    fn base(&self) -> Type {
        let f = &self.field;
        parse_quote!(<#f as ::fastzk_runtime::KernelField>::Base)
    }
    fn base_lanes(&self) -> Type {
        let (base, b) = (self.base(), &self.backend);
        parse_quote!(<#base as ::fastzk_runtime::KernelField>::Lanes<#b>)
    }
    /// The segments of a plain path, and the field's name: what the rewrite matches on.
    fn segments(&self, p: &syn::Path) -> (Vec<String>, String) {
        let segs = p.segments.iter().map(|s| s.ident.to_string()).collect();
        (segs, self.field.to_string())
    }
}

impl VisitMut for Lanes {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        match ty {
            Type::Path(p) if p.qself.is_none() => {
                let (segs, f) = self.segments(&p.path);
                *ty = match strs(&segs).as_slice() {
                    [x] if *x == f => self.field_lanes(),
                    [x, "Base"] if *x == f => self.base_lanes(),
                    ["usize"] => parse_quote!(::fastzk_runtime::lanes::LaneIdx),
                    ["bool"] => parse_quote!(::fastzk_runtime::lanes::LaneMask),
                    _ => return,
                };
            }
            // An array's length stays a literal.
            Type::Array(a) => self.visit_type_mut(&mut a.elem),
            // Input slices stay as they are: reads gather from them.
            Type::Reference(_) => {}
            _ => syn::visit_mut::visit_type_mut(self, ty),
        }
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let b = self.backend.clone();
        let f = self.field.clone();
        match e {
            Expr::Lit(l) => match &l.lit {
                Lit::Int(_) => *e = parse_quote!(::fastzk_runtime::lanes::LaneIdx::splat(#l)),
                Lit::Bool(_) => *e = parse_quote!(::fastzk_runtime::lanes::LaneMask::splat(#l)),
                _ => {}
            },
            Expr::Repeat(r) => self.visit_expr_mut(&mut r.expr),
            Expr::Path(p) if p.qself.is_none() && p.path.segments.len() > 1 => {
                let (segs, fs) = self.segments(&p.path);
                let ty: Type = match strs(&segs).as_slice() {
                    [x, _] if *x == fs => parse_quote!(#f),
                    [x, "Base", _] if *x == fs => self.base(),
                    _ => return,
                };
                *e = parse_quote!(::fastzk_runtime::lanes::splat::<#ty, #b>(#p));
            }
            Expr::Call(c) => {
                for a in c.args.iter_mut() {
                    self.visit_expr_mut(a);
                }
                let Expr::Path(p) = &*c.func else { return };
                let (segs, fs) = self.segments(&p.path);
                let args = &c.args;
                match strs(&segs).as_slice() {
                    [x, "lift"] if *x == fs => {
                        *e = parse_quote!(::fastzk_runtime::lanes::lift::<#f, #b>(#args));
                    }
                    ["fastzk_runtime", "at"] => {
                        *e = parse_quote!(::fastzk_runtime::lanes::at::<#b, _>(#args)?);
                    }
                    ["fastzk_runtime", op @ ("at_mut" | "div" | "rem")] => {
                        let op = format_ident!("{}", op);
                        *e = parse_quote!(::fastzk_runtime::lanes::#op(#args)?);
                    }
                    ["fastzk_runtime", op @ ("shl" | "shr")] => {
                        let op = format_ident!("{}", op);
                        *e = parse_quote!(::fastzk_runtime::lanes::#op(#args));
                    }
                    _ => {}
                }
            }
            Expr::Binary(x) => {
                self.visit_expr_mut(&mut x.left);
                self.visit_expr_mut(&mut x.right);
                let op = match x.op {
                    BinOp::Lt(_) => "lt",
                    BinOp::Le(_) => "le",
                    BinOp::Gt(_) => "gt",
                    BinOp::Ge(_) => "ge",
                    BinOp::Eq(_) => "eq",
                    BinOp::Ne(_) => "ne",
                    BinOp::And(_) => "and",
                    BinOp::Or(_) => "or",
                    _ => return,
                };
                let (l, r, op) = (&x.left, &x.right, format_ident!("{}", op));
                *e = parse_quote!(::fastzk_runtime::lanes::#op(#l, #r));
            }
            Expr::If(i) => {
                syn::visit_mut::visit_expr_if_mut(self, i);
                let c = &i.cond;
                *i.cond = parse_quote!(::fastzk_runtime::lanes::uniform(#c)?);
            }
            Expr::ForLoop(l) => {
                syn::visit_mut::visit_expr_for_loop_mut(self, l);
                if let Expr::Range(r) = &*l.expr {
                    if let (Some(a), Some(z)) = (&r.start, &r.end) {
                        *l.expr = parse_quote!(::fastzk_runtime::lanes::range(#a, #z)?);
                    }
                }
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// `__fz_lanes_NAME<F, __FzLanes>(i: LaneIdx, …) -> Option<…>` from the CPU function
/// `f` (after `checked`, with its fault parameter).
pub fn lanes_fn(f: &ItemFn, field: &Ident) -> ItemFn {
    let mut l = f.clone();
    let backend = Ident::new(BACKEND, proc_macro2::Span::call_site());
    let mut v = Lanes {
        field: field.clone(),
        backend: backend.clone(),
    };
    l.sig.ident = lanes_name(&f.sig.ident);
    l.sig
        .generics
        .params
        .push(parse_quote!(#backend: ::fastzk_runtime::lanes::LaneBackend));
    for a in l.sig.inputs.iter_mut() {
        if let FnArg::Typed(t) = a {
            v.visit_type_mut(&mut t.ty);
        }
    }
    if let ReturnType::Type(_, ty) = &mut l.sig.output {
        v.visit_type_mut(ty);
        **ty = parse_quote!(::core::option::Option<#ty>);
    }
    v.visit_block_mut(&mut l.block);
    if let Some(Stmt::Expr(tail, None)) = l.block.stmts.last_mut() {
        *tail = parse_quote!(::core::option::Option::Some(#tail));
    }
    l.block.stmts.insert(
        0,
        parse_quote!(
            use ::fastzk_runtime::lanes::LaneField as _;
        ),
    );
    l.attrs.push(parse_quote!(#[doc(hidden)]));
    l.attrs.push(parse_quote!(#[allow(
        unused_imports,
        unused_mut,
        unused_parens,
        clippy::all
    )]));
    l
}
