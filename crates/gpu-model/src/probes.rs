//! What the model compiles: every kernel the runtime launches, and a probe kernel per
//! arithmetic primitive whose body is that primitive as a called function, so that its
//! SASS can be counted alone.

use fastzk_curve::bn254;
use fastzk_field::{GoldilocksExt2, GoldilocksExt3};
use fastzk_gpu::{DeviceCurve, DeviceField, Source};

/// Field primitives probed: `{field} {op}` for op in mul, sqr, add.
pub const FIELD_OPS: [&str; 3] = ["mul", "sqr", "add"];
/// Group formulas probed (XYZZ, as the MSM uses them).
pub const GROUP_OPS: [&str; 3] = ["xyzz_add_affine", "xyzz_dbl", "xyzz_add"];

/// The fields, groups and NTT fields of the model.
pub fn fields() -> Vec<&'static str> {
    vec![
        "bn254_fr",
        "bn254_fq",
        "bn254_fq2",
        "bls12_381_fr",
        "bls12_381_fq",
        "bls12_381_fq2",
        "gl",
        "gl2",
        "gl3",
    ]
}
pub fn groups() -> Vec<&'static str> {
    vec!["bn254_g1", "bn254_g2", "bls12_381_g1", "bls12_381_g2"]
}
pub fn ntt_fields() -> Vec<&'static str> {
    vec!["bn254_fr", "bls12_381_fr", "gl"]
}

/// The name of the probe kernel for a field or group.
pub fn probe_kernel(what: &str) -> String {
    format!("fz_probe_{what}")
}

fn field_probe(f: &str, butterfly: bool) -> String {
    let mut s = format!(
        "DEVICE_CALLED {f} fz_probe_{f}_mul({f} a, {f} b) {{ return {f}_mul(a, b); }}\n\
         DEVICE_CALLED {f} fz_probe_{f}_sqr({f} a) {{ return {f}_sqr(a); }}\n\
         DEVICE_CALLED {f} fz_probe_{f}_add({f} a, {f} b) {{ return {f}_add(a, b); }}\n"
    );
    let mut body = format!(
        "  {f} a = io[4 * i], b = io[4 * i + 1], w = io[4 * i + 2];\n\
         \x20 io[4 * i] = fz_probe_{f}_mul(a, b);\n\
         \x20 io[4 * i + 1] = fz_probe_{f}_sqr(a);\n\
         \x20 io[4 * i + 2] = fz_probe_{f}_add(a, b);\n"
    );
    if butterfly {
        // The NTT level's butterfly: (u + v·w, u − v·w).
        s.push_str(&format!(
            "typedef struct {{ {f} lo, hi; }} fz_pair_{f};\n\
             DEVICE_CALLED fz_pair_{f} fz_probe_{f}_butterfly({f} u, {f} v, {f} w) {{\n\
             \x20 fz_pair_{f} r;\n  {f} t = {f}_mul(v, w);\n\
             \x20 r.lo = {f}_add(u, t);\n  r.hi = {f}_sub(u, t);\n  return r;\n}}\n"
        ));
        body.push_str(&format!(
            "  fz_pair_{f} p = fz_probe_{f}_butterfly(a, b, w);\n\
             \x20 io[4 * i + 3] = {f}_add(p.lo, p.hi);\n"
        ));
    }
    s.push_str(&format!(
        "KERNEL fz_probe_{f}(GLOBAL {f} *io) {{\n  u64 i = GLOBAL_ID();\n{body}}}\n"
    ));
    s
}

fn group_probe(g: &str) -> String {
    format!(
        "KERNEL fz_probe_{g}(GLOBAL {g}_xyzz *io, GLOBAL const {g}_affine *q) {{\n\
         \x20 u64 i = GLOBAL_ID();\n\
         \x20 {g}_xyzz p = {g}_xyzz_add_affine(io[i], q[i]);\n\
         \x20 p = {g}_xyzz_dbl(p);\n\
         \x20 io[i] = {g}_xyzz_add(p, io[i + 1]);\n}}\n"
    )
}

/// Every kernel of the runtime and every probe.
pub fn everything() -> Source {
    let mut s = Source::all_kernels();
    s.field::<fastzk_field::bn254::Fq>()
        .field::<fastzk_field::bls12_381::Fq>()
        .field::<GoldilocksExt2>()
        .field::<GoldilocksExt3>();
    debug_assert_eq!(<bn254::G1Config as DeviceCurve>::DEVICE_NAME, "bn254_g1");
    debug_assert_eq!(<GoldilocksExt2 as DeviceField>::DEVICE_NAME, "gl2");
    let ntt = ntt_fields();
    for f in fields() {
        s.append(&field_probe(f, ntt.contains(&f)));
    }
    for g in groups() {
        s.append(&group_probe(g));
    }
    s
}

/// The kernel the guard's test compiles with too few registers, so that it spills.
pub const SPILL_PROBE: &str = "fz_probe_bn254_g2";

/// A source holding only the spill probe.
pub fn spill_probe() -> Source {
    let mut s = Source::new();
    s.curve::<bn254::G2Config>();
    s.append(&group_probe("bn254_g2"));
    s
}
