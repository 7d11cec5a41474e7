//! The CPU side of a kernel: its own body, with what the device checks checked here too,
//! so that both sides fault where one does and neither panics. Array reads and writes go
//! through `fastzk_runtime::at`/`at_mut`, division and remainder through `div`/`rem`,
//! shifts wrap at 64 — each taking the fault flag the function gains as its last
//! parameter.

use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{parse_quote, BinOp, Expr};

pub const FAULT: &str = "__fz_fault";

struct Checked;

fn fault() -> syn::Ident {
    syn::Ident::new(FAULT, proc_macro2::Span::call_site())
}

impl Checked {
    /// `a[i]` as a place: `*at_mut(&mut a, i, fault)`.
    fn place(&mut self, e: &mut Expr) {
        if let Expr::Index(ix) = e {
            self.visit_expr_mut(&mut ix.index);
            let (base, index, f) = (&ix.expr, &ix.index, fault());
            *e = parse_quote!(*::fastzk_runtime::at_mut(&mut #base, #index, #f));
        } else {
            self.visit_expr_mut(e);
        }
    }
}

impl VisitMut for Checked {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Assign(a) => {
                self.place(&mut a.left);
                self.visit_expr_mut(&mut a.right);
            }
            Expr::Binary(b)
                if matches!(
                    b.op,
                    BinOp::AddAssign(_) | BinOp::SubAssign(_) | BinOp::MulAssign(_)
                ) =>
            {
                self.place(&mut b.left);
                self.visit_expr_mut(&mut b.right);
            }
            Expr::Binary(b)
                if matches!(
                    b.op,
                    BinOp::Div(_) | BinOp::Rem(_) | BinOp::Shl(_) | BinOp::Shr(_)
                ) =>
            {
                self.visit_expr_mut(&mut b.left);
                self.visit_expr_mut(&mut b.right);
                let (l, r, f) = (unparen(&b.left), unparen(&b.right), fault());
                let call = match b.op {
                    BinOp::Div(_) => quote!(div),
                    BinOp::Rem(_) => quote!(rem),
                    BinOp::Shl(_) => quote!(shl),
                    _ => quote!(shr),
                };
                *e = parse_quote!(::fastzk_runtime::#call(#l, #r, #f));
            }
            Expr::Index(ix) => {
                self.visit_expr_mut(&mut ix.expr);
                self.visit_expr_mut(&mut ix.index);
                let (base, index, f) = (&ix.expr, &ix.index, fault());
                *e = parse_quote!(::fastzk_runtime::at(&#base, #index, #f));
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// An operand as a call's argument: its own parentheses are redundant there.
fn unparen(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => unparen(&p.expr),
        e => e,
    }
}

/// Rewrites `block` in place.
pub fn rewrite(block: &mut syn::Block) {
    Checked.visit_block_mut(block);
}
