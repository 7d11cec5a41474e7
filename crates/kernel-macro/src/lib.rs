//! `#[kernel]` and `#[reducer]`: a data-parallel loop body written once, in a subset of
//! Rust over one field type (and its base), becomes both the CPU loop (the function itself, called by the
//! runtime's rayon loop) and device source in the GPU backend's C dialect (translated
//! here). Use them through `fastzk_runtime`, which re-exports them.
//!
//! ```ignore
//! #[kernel]
//! fn fold<F: KernelField>(i: usize, v: &[F], r: F) -> F {
//!     v[2 * i] + r * (v[2 * i + 1] - v[2 * i])
//! }
//! // `Fold` is the kernel: ctx.map(Fold, n / 2, &[Arg::Vec(&v), Arg::Field(r)])
//! ```
//!
//! The subset: `let`, assignment (`=`, `+=`, `-=`, `*=`), `for j in a..b`, `if`/`else`
//! (statements, or values when each branch is one expression); field `+ - *`, unary `-`,
//! `==`, `!=`, `.square()`, `.double()`, `.is_zero()`, `F::ZERO`, `F::ONE`, the same over
//! the field's base (`F::Base`, `F::Base::ZERO`, …) and between the two `x.mul_by_base(b)`
//! and `F::lift(b)`; `usize` arithmetic, shifts, bit operations and comparisons; reads of
//! input arrays (`&[F]` and `&[F::Base]` parameters) and of local `[F; K]` arrays, writes
//! to local arrays. Reads past an array's end and division by zero are faults the runtime
//! reports as errors, on both sides.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::ItemFn;

mod checked;
mod lanes;
mod translate;

use translate::Param;

#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand_kernel(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `#[reducer(identity = F::ZERO)] fn add<F: KernelField>(a: F, b: F) -> F { a + b }`: an
/// associative and commutative combine with its identity, for `Context::map_reduce`.
#[proc_macro_attribute]
pub fn reducer(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand_reducer(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The function as the CPU runs it: checked indexing and division, and the fault flag
/// they set as its last parameter.
fn with_fault_param(f: &mut ItemFn) {
    let fault = syn::Ident::new(checked::FAULT, proc_macro2::Span::call_site());
    f.sig
        .inputs
        .push(syn::parse_quote!(#fault: &::fastzk_runtime::Fault));
    checked::rewrite(&mut f.block);
    // A loop body takes what it reads as parameters, often many.
    f.attrs
        .push(syn::parse_quote!(#[allow(clippy::too_many_arguments)]));
    // Into the CPU loop's body, so the loop sees through it (a call per index costs more
    // than a short body's arithmetic).
    f.attrs.push(syn::parse_quote!(#[inline(always)]));
}

/// `snake_case` → `CamelCase`: the kernel's type beside its function.
fn camel(name: &syn::Ident) -> syn::Ident {
    let mut s = String::new();
    for part in name.to_string().split('_').filter(|p| !p.is_empty()) {
        let mut c = part.chars();
        if let Some(f) = c.next() {
            s.extend(f.to_uppercase());
            s.push_str(c.as_str());
        }
    }
    syn::Ident::new(&s, name.span())
}

fn expand_kernel(attr: Tokens, item: Tokens) -> syn::Result<Tokens> {
    if !attr.is_empty() {
        return Err(syn::Error::new(attr.span(), "#[kernel] takes no arguments"));
    }
    let mut f: ItemFn = syn::parse2(item)?;
    let sig = translate::signature(&f)?;
    let c = translate::kernel_c(&f, &sig)?;
    let field = &sig.field;
    with_fault_param(&mut f);
    let lanes_fn = lanes::lanes_fn(&f, field);
    let lanes_name = &lanes_fn.sig.ident;
    let backend = syn::Ident::new(lanes::BACKEND, proc_macro2::Span::call_site());
    let fname = &sig.name;
    let name_str = fname.to_string();
    let ty = camel(fname);
    let vis = &f.vis;
    let outputs = sig.outputs;
    let kinds = sig.params.iter().map(|p| match p {
        Param::Input(_) => quote!(::fastzk_runtime::ParamKind::Input),
        Param::BaseInput(_) => quote!(::fastzk_runtime::ParamKind::BaseInput),
        Param::Field(_) => quote!(::fastzk_runtime::ParamKind::Field),
        Param::Int(_) => quote!(::fastzk_runtime::ParamKind::Int),
    });
    let names = sig.params.iter().map(|p| p.ident().to_string());
    // The arguments, resolved once per loop; the closure reads them per index.
    let locals: Vec<syn::Ident> = (0..sig.params.len())
        .map(|k| quote::format_ident!("__fz_arg{}", k))
        .collect();
    let get = |k: usize, p: &Param| {
        let get = match p {
            Param::Input(_) => quote!(input_at),
            Param::BaseInput(_) => quote!(base_input_at),
            Param::Field(_) => quote!(field_at),
            Param::Int(_) => quote!(int_at),
        };
        quote!(::fastzk_runtime::CpuArg::#get(args, #k, fault))
    };
    let resolve = sig.params.iter().enumerate().map(|(k, p)| {
        let (local, arg) = (&locals[k], get(k, p));
        quote!(let #local = #arg;)
    });
    // The same for the lanes: a field value and an integer in every lane.
    let resolve_lanes = sig.params.iter().enumerate().map(|(k, p)| {
        let (local, arg) = (&locals[k], get(k, p));
        match p {
            Param::Input(_) | Param::BaseInput(_) => quote!(let #local = #arg;),
            Param::Field(_) => {
                quote!(let #local = ::fastzk_runtime::lanes::splat::<#field, #backend>(#arg);)
            }
            Param::Int(_) => quote!(let #local = ::fastzk_runtime::lanes::LaneIdx::splat(#arg);),
        }
    });
    let to_lanes = quote!(<<#field as ::fastzk_runtime::KernelField>::Lanes<#backend>
        as ::fastzk_runtime::lanes::LaneField<#field, #backend>>::to_lanes);
    let store_lanes = if outputs == 1 {
        quote!(if let Some(o) = out.first_mut() {
            *o = #to_lanes(r);
        })
    } else {
        quote!(for (o, x) in out.iter_mut().zip(r) {
            *o = #to_lanes(x);
        })
    };
    let store = if outputs == 1 {
        quote!(if let Some(o) = out.first_mut() {
            *o = r;
        })
    } else {
        quote!(for (o, x) in out.iter_mut().zip(r) {
            *o = x;
        })
    };
    let doc = format!("The kernel of [`{name_str}`], to run with a `fastzk_runtime::Context`.");
    let n_params = sig.params.len();
    Ok(quote! {
        #f

        #lanes_fn

        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #ty;

        impl<#field: ::fastzk_runtime::KernelField> ::fastzk_runtime::Kernel<#field> for #ty {
            const NAME: &'static str = #name_str;
            const PARAMS: &'static [::fastzk_runtime::ParamKind] = &[#(#kinds),*];
            const PARAM_NAMES: &'static [&'static str] = &[#(#names),*];
            const OUTPUTS: usize = #outputs;
            const DEVICE_C: &'static str = #c;
            fn body<'a>(
                args: &'a [::fastzk_runtime::CpuArg<'a, #field>],
                fault: &'a ::fastzk_runtime::Fault,
            ) -> impl Fn(usize, &mut [#field]) + Sync + 'a {
                if args.len() != #n_params {
                    fault.set();
                }
                #(#resolve)*
                move |i: usize, out: &mut [#field]| {
                    let r = #fname::<#field>(i, #(#locals,)* fault);
                    #store
                }
            }
            #[inline(always)]
            fn lanes<#backend: ::fastzk_runtime::lanes::LaneBackend>(
                args: &[::fastzk_runtime::CpuArg<'_, #field>],
                fault: &::fastzk_runtime::Fault,
                i0: usize,
                out: &mut [[#field; ::fastzk_runtime::lanes::LANES]],
            ) -> bool {
                #(#resolve_lanes)*
                let i = ::fastzk_runtime::lanes::LaneIdx::from_start(i0);
                match #lanes_name::<#field, #backend>(i, #(#locals,)* fault) {
                    Some(r) => {
                        #store_lanes
                        true
                    }
                    None => false,
                }
            }
        }
    })
}

fn expand_reducer(attr: Tokens, item: Tokens) -> syn::Result<Tokens> {
    let parser = syn::meta::parser;
    let mut identity: Option<syn::Expr> = None;
    let p = parser(|meta| {
        if meta.path.is_ident("identity") {
            identity = Some(meta.value()?.parse()?);
            Ok(())
        } else {
            Err(meta.error("#[reducer(identity = …)] takes only `identity`"))
        }
    });
    p.parse2(attr.clone())?;
    let Some(identity) = identity else {
        return Err(syn::Error::new(
            attr.span(),
            "a reducer names its identity: #[reducer(identity = F::ZERO)]",
        ));
    };
    let mut f: ItemFn = syn::parse2(item)?;
    let (name, c) = translate::reducer_c(&f, &identity)?;
    with_fault_param(&mut f);
    let field = translate::single_field_generic(&f)?;
    let ty = camel(&name);
    let vis = &f.vis;
    let name_str = name.to_string();
    let doc = format!("The reducer of [`{name_str}`], for `fastzk_runtime::Context::map_reduce`.");
    Ok(quote! {
        #f

        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #ty;

        impl<#field: ::fastzk_runtime::KernelField> ::fastzk_runtime::Reducer<#field> for #ty {
            const NAME: &'static str = #name_str;
            const DEVICE_C: &'static str = #c;
            fn identity() -> #field {
                #identity
            }
            fn combine(a: #field, b: #field) -> #field {
                // As on the device, a combine has no faults to report.
                #name::<#field>(a, b, &::fastzk_runtime::Fault::default())
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::translate::kernel_c_of;

    fn ok(src: &str) -> String {
        kernel_c_of(src).unwrap_or_else(|e| panic!("{src}: {e}"))
    }

    fn fails(src: &str, says: &str) {
        match kernel_c_of(src) {
            Ok(c) => panic!("accepted {src}:\n{c}"),
            Err(e) => assert!(e.contains(says), "{src}: `{e}` does not say `{says}`"),
        }
    }

    #[test]
    fn translates_field_and_index_arithmetic() {
        let c = ok("fn fold<F: KernelField>(i: usize, v: &[F], r: F) -> F { \
                    let lo = v[2 * i]; lo + r * (v[2 * i + 1] - lo) }");
        assert!(c.starts_with("DEVICE void KF(k_fold)(u64 v_i, GLOBAL const FZ_F *v_v, u64 v_v_len, FZ_F v_r, u32 *fz_fault, FZ_F *fz_out)"), "{c}");
        assert!(
            c.contains("FZ_F v_lo = KF(k_at)(v_v, v_v_len, (((u64)2UL) * v_i), fz_fault);"),
            "{c}"
        );
        assert!(c.contains("fz_out[0] = KF(add)(v_lo, KF(mul)(v_r, (KF(sub)(KF(k_at)(v_v, v_v_len, ((((u64)2UL) * v_i) + ((u64)1UL)), fz_fault), v_lo))));"), "{c}");
    }

    #[test]
    fn loops_locals_shadowing_and_arrays() {
        let c = ok(
            "fn m<F: KernelField>(i: usize, a: &[F], n: usize) -> [F; 2] { \
                    let mut acc = [F::ZERO; 2]; \
                    for j in 0..n { let x = a[i * n + j]; acc[0] += x; acc[1] += x.square(); } \
                    let x = if acc[0].is_zero() { F::ONE } else { -acc[1] }; \
                    acc[1] = x; acc }",
        );
        assert!(
            c.contains("FZ_F v_acc[2] = {KF(zero)(), KF(zero)()};"),
            "{c}"
        );
        assert!(
            c.contains("for (u64 v_j = ((u64)0UL), v_j_end = v_n; v_j < v_j_end; v_j++) {"),
            "{c}"
        );
        // The second `x` is a new C variable.
        assert!(c.contains("FZ_F v_x_1 = (KF(is_zero)("), "{c}");
        assert!(c.contains("2, fz_fault)] = v_x_1;"), "{c}");
        assert!(c.contains("v_acc[fz_local_index(((u64)1UL), 2, fz_fault)] = KF(add)(v_acc[fz_local_index(((u64)1UL), 2, fz_fault)], KF(sqr)(v_x));"), "{c}");
        assert!(
            c.contains("for (int fz_j = 0; fz_j < 2; fz_j++) fz_out[fz_j] = v_acc[fz_j];"),
            "{c}"
        );
    }

    #[test]
    fn translates_the_base_field_and_its_products() {
        let c = ok(
            "fn b<F: KernelField>(i: usize, v: &[F::Base], r: F) -> F { \
                    let lo = v[2 * i]; let d: F::Base = v[2 * i + 1] - lo; \
                    let s = if d.is_zero() { F::Base::ONE } else { -d.square() }; \
                    F::lift(lo * s) + r.mul_by_base(d) }",
        );
        assert!(
            c.contains("GLOBAL const FZ_B *v_v, u64 v_v_len, FZ_F v_r"),
            "{c}"
        );
        assert!(
            c.contains("FZ_B v_lo = KF(k_at_base)(v_v, v_v_len, (((u64)2UL) * v_i), fz_fault);"),
            "{c}"
        );
        assert!(c.contains("FZ_B v_d = KB(sub)("), "{c}");
        assert!(
            c.contains("FZ_B v_s = (KB(is_zero)(v_d) ? KB(one)() : KB(neg)(KB(sqr)(v_d)));"),
            "{c}"
        );
        assert!(
            c.contains(
                "fz_out[0] = KF(add)(KF(from_base)(KB(mul)(v_lo, v_s)), KF(mul_base)(v_r, v_d));"
            ),
            "{c}"
        );
    }

    #[test]
    fn keeps_the_field_and_its_base_apart() {
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F::Base], r: F) -> F { r * v[i] }",
            "does not apply",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F::Base]) -> F { v[i] }",
            "expected a field element, found a base-field element",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F::Base], r: F) -> F { v[i].mul_by_base(r) }",
            "takes an argument",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F], r: F) -> F { F::lift(r) }",
            "expected a base-field element, found a field element",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F::Base]) -> F { F::from_base(v[i]) }",
            "`F::lift(b)`",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F::Base]) -> F { let x: F = v[i]; x }",
            "expected a field element",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[G::Base]) -> F { F::ONE }",
            "a kernel parameter is",
        );
    }

    #[test]
    fn reserved_names_do_not_collide() {
        let c = ok("fn k<F: KernelField>(i: usize, a_len: usize, a: &[F]) -> F { a[a_len + i] }");
        assert!(
            c.contains("u64 v_a_len, GLOBAL const FZ_F *v_a_1, u64 v_a_1_len"),
            "{c}"
        );
    }

    #[test]
    fn refuses_what_is_outside_the_subset() {
        fails("fn k(i: usize) -> u64 { 1 }", "exactly one type");
        fails("fn k<F: KernelField>(v: &[F]) -> F { v[0] }", "its index");
        fails(
            "fn k<F: KernelField>(i: usize, v: &mut [F]) -> F { v[0] }",
            "parameter is",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F]) -> u64 { 0 }",
            "returns",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F]) -> F { v[0].inverse() }",
            "`inverse` is not",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F]) -> F { v[0] + i }",
            "does not apply",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F]) -> F { let x = v[0]; x[0] }",
            "cannot be indexed",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F]) -> F { v[0] = F::ZERO; F::ONE }",
            "read-only",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F]) -> F { while true {} F::ONE }",
            "statement is",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F]) -> F { println!(\"{}\", i); F::ONE }",
            "macros",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F]) -> F { return F::ONE; }",
            "statement is",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F]) -> F { F::from_u64(3) }",
            "not in the kernel subset",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F]) -> F { y }",
            "not a variable",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F]) -> [F; 2] { [v[0]] }",
            "returns 2",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F]) -> F { let x: usize = v[0]; F::ONE }",
            "expected a usize",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F]) -> F { for j in 0..=3 { } F::ONE }",
            "range",
        );
        fails(
            "fn k<F: KernelField>(i: usize, v: &[F]) -> F { let x = 1u32; F::ONE }",
            "usize",
        );
    }
}
