//! The single-source layer: kernels written once, run on the CPU against plain Rust loops
//! written here, and on the first OpenCL device (PoCL in CI; `FASTZK_TEST_CUDA_DEVICE=i`
//! on a GPU host) against the CPU. Checks that need a device are reported ignored, with
//! the reason, where there is none.

use std::sync::Arc;

use fastzk_field::{bls12_381, bn254, Field, Goldilocks, GoldilocksExt2, GoldilocksExt3};
use fastzk_gpu::Device;
use fastzk_runtime::lanes::{LaneChoice, LaneGroups};
use fastzk_runtime::{
    kernel, reducer, Arg, Context, FieldVec, KernelField, Product, Residency, RuntimeError, Sum,
};
use fastzk_testing::gen::{edge_elements, elements, rng};
use fastzk_testing::Trials;

/// Binding the first variable of a multilinear table: `lo + r·(hi − lo)`.
#[kernel]
fn fold<F: KernelField>(i: usize, v: &[F], r: F) -> F {
    let lo = v[2 * i];
    lo + r * (v[2 * i + 1] - lo)
}

/// A zip: `a·x + y`.
#[kernel]
fn axpy<F: KernelField>(i: usize, a: F, x: &[F], y: &[F]) -> F {
    a * x[i] + y[i]
}

#[kernel]
fn product_of<F: KernelField>(i: usize, a: &[F], b: &[F]) -> F {
    a[i] * b[i]
}

/// A sumcheck round's message for `Σ a·b·c` (degree 3): the product at 0, 1, 2 and 3 of
/// the first variable, from each table's pair — a loop over a local array, a branch.
#[kernel]
fn cubic_round<F: KernelField>(i: usize, a: &[F], b: &[F], c: &[F]) -> [F; 4] {
    let mut x = [a[2 * i], b[2 * i], c[2 * i]];
    let step = [
        a[2 * i + 1] - x[0],
        b[2 * i + 1] - x[1],
        c[2 * i + 1] - x[2],
    ];
    let mut evals = [F::ZERO; 4];
    for t in 0..4 {
        if t > 0 {
            for j in 0..3 {
                x[j] += step[j];
            }
        }
        evals[t] = x[0] * x[1] * x[2];
    }
    evals
}

/// Integer arithmetic, shadowing, a value `if`, the field's constants, methods.
#[kernel]
fn mixed<F: KernelField>(i: usize, v: &[F], stride: usize) -> F {
    let j = (i * stride) % 7 + (i >> 1);
    let x = v[j % 5];
    let x = if (i & 1) == 1 {
        x.square()
    } else {
        -x.double()
    };
    let mut acc = F::ONE;
    for k in 0..(i % 3) {
        acc *= x + v[k];
    }
    if acc.is_zero() || acc == F::ONE {
        acc -= F::ONE;
    }
    acc
}

/// Over a field and its base (an extension's, or a prime field's own): a base-field
/// table's first variable bound to a challenge of the field, and base-field arithmetic,
/// constants and methods.
#[kernel]
fn bind_base_table<F: KernelField>(i: usize, v: &[F::Base], r: F, w: &[F]) -> [F; 2] {
    let lo = v[2 * i];
    let d: F::Base = v[2 * i + 1] - lo;
    let sq = if d.is_zero() || d == F::Base::ONE {
        F::Base::ONE
    } else {
        d.square() - lo.double()
    };
    let neg = -sq * lo + F::Base::ZERO;
    [
        F::lift(lo) + r.mul_by_base(d),
        w[i].mul_by_base(neg) + F::lift(lo * sq),
    ]
}

/// Reads one past the end at the last index.
/// Parameter names that, suffixed, are each other's (`v` and `v_len`, `w` and `w_0`):
/// the device program must name its parameters apart.
#[kernel]
fn suffixed_names<F: KernelField>(i: usize, v: &[F], v_len: usize, w: F, w_0: usize) -> F {
    v[i % v_len] * w + v[w_0]
}

#[kernel]
fn reads_past_end<F: KernelField>(i: usize, v: &[F]) -> F {
    v[i + 1]
}

#[kernel]
fn divides<F: KernelField>(i: usize, v: &[F], d: usize) -> F {
    v[i / d]
}

/// A reducer of the user's (the same as `Product`, through the macro).
#[reducer(identity = F::ONE)]
fn times<F: KernelField>(a: F, b: F) -> F {
    a * b
}

fn device() -> Result<Arc<Device>, String> {
    Device::for_tests()
}

fn device_available() -> Result<(), &'static str> {
    Device::for_tests_available()
}

/// The device, or the CPU with each way its loop can run kernels: plain, on lanes of
/// plain elements, and on every vector backend this CPU has (`fastzk_runtime::lanes`).
fn contexts(on_device: bool) -> Vec<Context> {
    if on_device {
        vec![Context::device(device().expect("checked by the trial"))]
    } else {
        LANE_CHOICES
            .into_iter()
            .filter(|c| c.is_supported())
            .map(|c| Context::cpu().with_lanes(c).expect("supported"))
            .collect()
    }
}

const LANE_CHOICES: [LaneChoice; 4] = [
    LaneChoice::Off,
    LaneChoice::Portable,
    LaneChoice::Avx2,
    LaneChoice::Avx512,
];

/// Where a trial ran, for its messages.
fn describe(ctx: &Context) -> String {
    match ctx.device_handle() {
        Some(_) => ctx.describe(),
        None => format!("cpu, lanes {:?}", ctx.lanes()),
    }
}

/// Random elements with the edge elements (0, 1, −1, p−1, …) spread through them.
fn inputs<F: Field>(seed: u64, n: usize) -> Vec<F> {
    let mut v: Vec<F> = elements(&mut rng(seed), n);
    for (k, e) in edge_elements::<F>().into_iter().enumerate() {
        if n > 0 {
            v[(k * 7919) % n] = e;
        }
    }
    v
}

const SIZES: [usize; 7] = [0, 1, 2, 63, 64, 65, 1000];

/// Each kernel against a plain loop, on every context.
fn maps_match_plain_loops<F: KernelField>(on_device: bool) {
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        for (s, &n) in SIZES.iter().enumerate() {
            let v = inputs::<F>(s as u64, 2 * n);
            let (x, y) = (
                inputs::<F>(100 + s as u64, n),
                inputs::<F>(200 + s as u64, n),
            );
            let r = F::random(&mut rng(300 + s as u64));
            let vv = ctx.vec(v.clone());
            let (xv, yv) = (ctx.vec(x.clone()), ctx.vec(y.clone()));

            let folded = ctx.map(Fold, n, &[Arg::Vec(&vv), Arg::Field(r)]).unwrap();
            let want: Vec<F> = (0..n)
                .map(|i| v[2 * i] + r * (v[2 * i + 1] - v[2 * i]))
                .collect();
            assert_eq!(folded.to_vec().unwrap(), want, "fold, n = {n}, {at}");

            let z = ctx
                .map(Axpy, n, &[Arg::Field(r), Arg::Vec(&xv), Arg::Vec(&yv)])
                .unwrap();
            let want: Vec<F> = (0..n).map(|i| r * x[i] + y[i]).collect();
            assert_eq!(z.to_vec().unwrap(), want, "axpy, n = {n}, {at}");

            // Reading the map's output as the next kernel's input (on the device, where it
            // was made).
            let twice = ctx
                .map(Axpy, n, &[Arg::Field(F::ONE), Arg::Vec(&z), Arg::Vec(&z)])
                .unwrap();
            let want: Vec<F> = want.iter().map(|w| w.double()).collect();
            assert_eq!(twice.to_vec().unwrap(), want, "axpy of axpy, n = {n}, {at}");

            if n >= 5 {
                for stride in [0usize, 1, 3] {
                    let m = ctx
                        .map(Mixed, n, &[Arg::Vec(&xv), Arg::Int(stride)])
                        .unwrap();
                    let want: Vec<F> = (0..n).map(|i| mixed_plain(&x, i, stride)).collect();
                    assert_eq!(m.to_vec().unwrap(), want, "mixed, n = {n}, {at}");
                }
                let args = [Arg::Vec(&xv), Arg::Int(5), Arg::Field(r), Arg::Int(3)];
                let m = ctx.map(SuffixedNames, n, &args).unwrap();
                let want: Vec<F> = (0..n).map(|i| x[i % 5] * r + x[3]).collect();
                assert_eq!(m.to_vec().unwrap(), want, "suffixed names, n = {n}, {at}");
            }
        }
    }
}

/// A kernel over a field and its base against a plain loop (which multiplies by the
/// lifted base elements, a full product), and `mul_by_base` against that product.
fn base_inputs_match_plain_loops<F: KernelField>(on_device: bool) {
    let mut g = rng(77);
    let (xs, bs): (Vec<F>, Vec<F::Base>) = (elements(&mut g, 200), inputs(78, 200));
    for (x, b) in xs.iter().zip(&bs) {
        assert_eq!(x.mul_by_base(*b), *x * F::lift(*b));
    }
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        for (s, &n) in SIZES.iter().enumerate() {
            let mut v = inputs::<F::Base>(400 + s as u64, 2 * n);
            // Pairs whose difference is 0 and 1: both sides of the kernel's branch.
            if n >= 2 {
                v[1] = v[0];
                v[3] = v[2] + F::Base::ONE;
            }
            let w = inputs::<F>(500 + s as u64, n);
            let r = F::random(&mut rng(600 + s as u64));
            let (vv, wv) = (ctx.vec(v.clone()), ctx.vec(w.clone()));
            let (outs, _) = ctx
                .task()
                .unwrap()
                .run(
                    BindBaseTable,
                    Sum,
                    n,
                    2,
                    &[Arg::BaseVec(&vv), Arg::Field(r), Arg::Vec(&wv)],
                )
                .unwrap();
            let (bound, other): (Vec<F>, Vec<F>) = (0..n)
                .map(|i| {
                    let (lo, hi) = (v[2 * i], v[2 * i + 1]);
                    let d = hi - lo;
                    let sq = if d.is_zero() || d == F::Base::ONE {
                        F::Base::ONE
                    } else {
                        d.square() - lo.double()
                    };
                    (
                        F::lift(lo) + r * F::lift(d),
                        w[i] * F::lift(-sq * lo) + F::lift(lo * sq),
                    )
                })
                .unzip();
            assert_eq!(outs[0].to_vec().unwrap(), bound, "bound, n = {n}, {at}");
            assert_eq!(outs[1].to_vec().unwrap(), other, "other, n = {n}, {at}");
        }
        // A vector of the field where the base's is asked for is refused, and the base
        // table read past its end faults.
        let w = ctx.vec(inputs::<F>(1, 8));
        let v = ctx.vec(inputs::<F::Base>(2, 8));
        let args = [Arg::Vec(&w), Arg::Field(F::ONE), Arg::Vec(&w)];
        assert!(matches!(
            ctx.task().unwrap().run(BindBaseTable, Sum, 4, 2, &args),
            Err(RuntimeError::Kind { param: "v", .. })
        ));
        let args = [Arg::BaseVec(&v), Arg::Field(F::ONE), Arg::Vec(&w)];
        assert!(matches!(
            ctx.task().unwrap().run(BindBaseTable, Sum, 5, 2, &args),
            Err(RuntimeError::Fault {
                kernel: "bind_base_table"
            })
        ));
    }
}

/// `eq(r, ·)` on the context against the multilinear crate's table, on both sides of the
/// size below which it is made on the host, with edge coordinates among random ones.
fn eq_tables_match<F: KernelField>(on_device: bool) {
    for ctx in contexts(on_device) {
        let mut task = ctx.task().unwrap();
        for n in [0usize, 1, 5, 11, 12, 13, 16] {
            let r = inputs::<F>(700 + n as u64, n);
            let got = task.eq_table(&r).unwrap().to_vec().unwrap();
            let want = fastzk_multilinear::mle::eq_table(&r);
            assert!(got == want, "n = {n}, {}", describe(&ctx));
        }
    }
}

/// `Σ m·v` and `wᵀ·M` (library calls: reduced once per sum on the CPU, kernels on a
/// device) against sums over lifted base values: all rows weighted, some and none, edge
/// values among random ones; shapes that do not fit refused.
fn dense_products_match_their_sums<E>(on_device: bool)
where
    E: KernelField + fastzk_pcs::ExtensionOf<E::Base>,
    E::Base: fastzk_field::NttField,
{
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        let mut task = ctx.task().unwrap();
        for (rows, k) in [(1usize, 1usize), (4, 3), (37, 300), (130, 129)] {
            let m: Vec<E::Base> = inputs(900 + k as u64, rows * k);
            let mv = ctx.vec(m.clone());
            for used in [rows, rows / 2, 0] {
                let w: Vec<E> = inputs(950 + used as u64, used);
                let want: Vec<E> = (0..k)
                    .map(|j| (0..used).map(|i| w[i] * E::lift(m[i * k + j])).sum())
                    .collect();
                let got = task.combine_rows_host(&m, k, &w).unwrap();
                assert_eq!(
                    got.to_vec().unwrap(),
                    want,
                    "host, {rows}×{k}, {used}, {at}"
                );
                let got = task.combine_rows(&mv, k, &ctx.vec(w)).unwrap();
                assert_eq!(
                    got.to_vec().unwrap(),
                    want,
                    "{rows}×{k}, {used} weights, {at}"
                );
            }
            let too_many = ctx.vec(inputs::<E>(1, rows + 1));
            assert!(task.combine_rows(&mv, k, &too_many).is_err());
            assert!(task
                .combine_rows(&mv, 0, &ctx.vec(Vec::<E>::new()))
                .is_err());
            let too_many: Vec<E> = inputs(2, rows + 1);
            assert!(task.combine_rows_host(&m, k, &too_many).is_err());
            assert!(task.combine_rows_host::<E>(&m, 0, &[]).is_err());
            // Σ m·v over the matrix read as one vector (past a CPU chunk at 130×129).
            let x: Vec<E> = inputs(990 + k as u64, rows * k);
            let want: E = x.iter().zip(&m).map(|(a, b)| *a * E::lift(*b)).sum();
            let xv = ctx.vec(x);
            assert_eq!(task.dot_base(&xv, &mv).unwrap(), want, "{rows}×{k}, {at}");
            let short = ctx.vec(m[..rows * k - 1].to_vec());
            assert!(task.dot_base(&xv, &short).is_err());
        }
        let seven = ctx.vec(inputs::<E::Base>(3, 7));
        assert!(task
            .combine_rows(&seven, 2, &ctx.vec(Vec::<E>::new()))
            .is_err());
        let none = ctx.vec(Vec::<E>::new());
        assert_eq!(task.dot_base(&none, &seven).unwrap(), E::ZERO, "{at}");
    }
}

fn mixed_plain<F: Field>(v: &[F], i: usize, stride: usize) -> F {
    let x = v[((i * stride) % 7 + (i >> 1)) % 5];
    let x = if i % 2 == 1 { x.square() } else { -x.double() };
    let mut acc = F::ONE;
    for vk in &v[..i % 3] {
        acc *= x + *vk;
    }
    if acc.is_zero() || acc == F::ONE {
        acc -= F::ONE;
    }
    acc
}

/// Reductions against plain folds: Sum, Product, the user's reducer, several outputs.
fn reductions_match_plain_folds<F: KernelField>(on_device: bool) {
    // 70,000 is past what 1024 work-groups of 64 threads take in one pass.
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        for (s, &n) in SIZES.iter().chain(&[70_000]).enumerate() {
            let (a, b) = (inputs::<F>(s as u64, n), inputs::<F>(50 + s as u64, n));
            let (av, bv) = (ctx.vec(a.clone()), ctx.vec(b.clone()));
            let args = [Arg::Vec(&av), Arg::Vec(&bv)];
            let dot = ctx.map_reduce(ProductOf, Sum, n, &args).unwrap();
            let want: F = a.iter().zip(&b).map(|(x, y)| *x * *y).sum();
            assert_eq!(dot, vec![want], "Σ a·b, n = {n}, {at}");
            let prod = ctx.map_reduce(ProductOf, Product, n, &args).unwrap();
            let want: F = a.iter().zip(&b).map(|(x, y)| *x * *y).product();
            assert_eq!(prod, vec![want], "Π a·b, n = {n}, {at}");
            assert_eq!(
                ctx.map_reduce(ProductOf, Times, n, &args).unwrap(),
                prod,
                "the user's reducer, n = {n}, {at}"
            );
            // All-equal inputs.
            let ones = ctx.vec(vec![F::ONE; n]);
            let count = ctx
                .map_reduce(ProductOf, Sum, n, &[Arg::Vec(&ones), Arg::Vec(&ones)])
                .unwrap();
            assert_eq!(count, vec![F::from_u64(n as u64)], "Σ 1, n = {n}, {at}");

            let c = inputs::<F>(90 + s as u64, 2 * n);
            let (a2, b2) = (
                inputs::<F>(70 + s as u64, 2 * n),
                inputs::<F>(80 + s as u64, 2 * n),
            );
            let vs = [ctx.vec(a2.clone()), ctx.vec(b2.clone()), ctx.vec(c.clone())];
            let msg = ctx
                .map_reduce(
                    CubicRound,
                    Sum,
                    n,
                    &[Arg::Vec(&vs[0]), Arg::Vec(&vs[1]), Arg::Vec(&vs[2])],
                )
                .unwrap();
            let mut want = vec![F::ZERO; 4];
            for i in 0..n {
                for (t, w) in want.iter_mut().enumerate() {
                    let at_t = |v: &[F]| {
                        let (lo, hi) = (v[2 * i], v[2 * i + 1]);
                        lo + F::from_u64(t as u64) * (hi - lo)
                    };
                    *w += at_t(&a2) * at_t(&b2) * at_t(&c);
                }
            }
            assert_eq!(msg, want, "cubic round, n = {n}, {at}");
        }
    }
}

/// Vectors move once, lazily, and only when the other side reads them.
fn traffic_is_lazy() {
    let ctx = Context::device(device().expect("checked by the trial"));
    type F = bn254::Fr;
    let n = 1000;
    let x = ctx.vec(inputs::<F>(1, n));
    let y = ctx.vec(inputs::<F>(2, n));
    assert_eq!(x.residency(), Residency::Host);
    assert_eq!(ctx.traffic().uploads, 0);
    let z = ctx
        .map(Axpy, n, &[Arg::Field(F::ONE), Arg::Vec(&x), Arg::Vec(&y)])
        .unwrap();
    let t = ctx.traffic();
    assert_eq!((t.uploads, t.upload_bytes), (2, 2 * 32 * n as u64));
    assert_eq!((t.downloads, t.launches), (0, 1));
    assert_eq!(x.residency(), Residency::Both);
    assert_eq!(z.residency(), Residency::Device);
    // Used again on the device: nothing moves.
    let w = ctx
        .map(Axpy, n, &[Arg::Field(F::ONE), Arg::Vec(&z), Arg::Vec(&x)])
        .unwrap();
    assert_eq!(ctx.traffic().uploads, 2);
    // Read on the host: one download, then none.
    let zh = z.to_vec().unwrap();
    let _ = w.host().unwrap();
    let _ = z.host().unwrap();
    let t = ctx.traffic();
    assert_eq!((t.downloads, t.download_bytes), (2, 2 * 32 * n as u64));
    assert_eq!(z.residency(), Residency::Both);
    assert_eq!(zh, ctx.vec(zh.clone()).to_vec().unwrap());

    // On the CPU nothing moves at all.
    let cpu = Context::cpu();
    let (a, b) = (cpu.vec(inputs::<F>(1, n)), cpu.vec(inputs::<F>(2, n)));
    cpu.map(Axpy, n, &[Arg::Field(F::ONE), Arg::Vec(&a), Arg::Vec(&b)])
        .unwrap();
    assert_eq!(cpu.traffic(), Default::default());
}

/// Calls that do not match their kernel, and kernels that fault, are errors on every
/// context.
fn bad_calls_are_errors(on_device: bool) {
    type F = Goldilocks;
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        let v: FieldVec<F> = ctx.vec(inputs(3, 10));
        let fault = |r: Result<FieldVec<F>, RuntimeError>, kernel: &str| match r {
            Err(RuntimeError::Fault { kernel: k }) => assert_eq!(k, kernel, "{at}"),
            Err(e) => panic!("{at}: {e}"),
            Ok(_) => panic!("{at}: {kernel} did not fault"),
        };
        fault(ctx.map(ReadsPastEnd, 10, &[Arg::Vec(&v)]), "reads_past_end");
        ctx.map(ReadsPastEnd, 9, &[Arg::Vec(&v)]).unwrap();
        // Past the end within a group of eight (a group of lanes gives up; the plain body
        // faults), and a divisor of zero in every lane.
        let w: FieldVec<F> = ctx.vec(inputs(4, 16));
        fault(ctx.map(ReadsPastEnd, 16, &[Arg::Vec(&w)]), "reads_past_end");
        ctx.map(ReadsPastEnd, 15, &[Arg::Vec(&w)]).unwrap();
        fault(
            ctx.map(Divides, 16, &[Arg::Vec(&w), Arg::Int(0)]),
            "divides",
        );
        ctx.map(Divides, 16, &[Arg::Vec(&w), Arg::Int(1)]).unwrap();
        fault(
            ctx.map(Divides, 10, &[Arg::Vec(&v), Arg::Int(0)]),
            "divides",
        );
        fault(
            ctx.map(Fold, 6, &[Arg::Vec(&v), Arg::Field(F::ONE)]),
            "fold",
        );
        match ctx.map(Fold, 5, &[Arg::Vec(&v)]) {
            Err(RuntimeError::Arity {
                expected: 2,
                given: 1,
                ..
            }) => {}
            other => panic!("{at}: {:?}", other.err()),
        }
        let e = ctx
            .map(Fold, 5, &[Arg::Field(F::ONE), Arg::Field(F::ONE)])
            .err()
            .expect("a field for an array");
        assert!(e.to_string().contains("argument `v`"), "{at}: {e}");
        let e = ctx
            .map(CubicRound, 5, &[Arg::Vec(&v), Arg::Vec(&v), Arg::Vec(&v)])
            .err()
            .expect("four outputs");
        assert!(e.to_string().contains("map_reduce"), "{at}: {e}");
        let other = Context::cpu();
        let w = other.vec(inputs::<F>(3, 10));
        let e = ctx
            .map(Fold, 5, &[Arg::Vec(&w), Arg::Field(F::ONE)])
            .err()
            .expect("another context's vector");
        assert!(e.to_string().contains("another context"), "{at}: {e}");
        // Reductions fault too.
        match ctx.map_reduce(ProductOf, Sum, 11, &[Arg::Vec(&v), Arg::Vec(&v)]) {
            Err(RuntimeError::Fault { .. }) => {}
            other => panic!("{at}: {other:?}"),
        }
    }
}

/// Listing 4.1 of the thesis, both scenarios, eager and deferred, on every context:
/// (1) folds of several vectors in parallel tasks, nested two deep, each task on its own
/// stream, the streams joined into the parent's; (2) a chain of dependent launches on one
/// task (halving folds, as a Merkle tree's layers), synchronised once at the end.
fn tasks_join_and_defer(on_device: bool) {
    type F = bn254::Fr;
    for ctx in contexts(on_device) {
        for deferred in [false, true] {
            let at = format!("{}, deferred {deferred}", describe(&ctx));
            let n = 1 << 10;
            let tables: Vec<Vec<F>> = (0..4).map(|s| inputs(40 + s, 2 * n)).collect();
            let vs: Vec<FieldVec<F>> = tables.iter().map(|t| ctx.vec(t.clone())).collect();
            let r = inputs::<F>(5, 2)[1];
            let fold_plain = |v: &[F]| -> Vec<F> {
                (0..v.len() / 2)
                    .map(|i| v[2 * i] + r * (v[2 * i + 1] - v[2 * i]))
                    .collect()
            };
            let streams_before = ctx.traffic().streams;
            let mut root = if deferred {
                ctx.deferred_task()
            } else {
                ctx.task()
            }
            .unwrap();
            assert_eq!(root.is_deferred(), deferred);
            let fold = |t: &mut fastzk_runtime::Task<'_>, v: &FieldVec<F>| {
                t.map(Fold, v.len() / 2, &[Arg::Vec(v), Arg::Field(r)])
                    .unwrap()
            };
            let ((a, b), (c, d)) = root
                .join(
                    |t| t.join(|t| fold(t, &vs[0]), |t| fold(t, &vs[1])).unwrap(),
                    |t| t.join(|t| fold(t, &vs[2]), |t| fold(t, &vs[3])).unwrap(),
                )
                .unwrap();
            // A stream for the root and each of its six descendants, on a device.
            let taken = ctx.traffic().streams - streams_before;
            assert_eq!(taken, if on_device { 7 } else { 0 }, "{at}");
            // The parent reads what its children made, ordered after them.
            let ab = root
                .map(Axpy, n, &[Arg::Field(F::ONE), Arg::Vec(&a), Arg::Vec(&b)])
                .unwrap();
            root.sync().unwrap();
            for (k, got) in [a, b, c, d].iter().enumerate() {
                assert_eq!(
                    got.to_vec().unwrap(),
                    fold_plain(&tables[k]),
                    "fold {k}, {at}"
                );
            }
            let want: Vec<F> = fold_plain(&tables[0])
                .iter()
                .zip(fold_plain(&tables[1]))
                .map(|(x, y)| *x + y)
                .collect();
            assert_eq!(ab.to_vec().unwrap(), want, "after the join, {at}");

            // Scenario 2: a chain, one sync.
            let mut task = if deferred {
                ctx.deferred_task()
            } else {
                ctx.task()
            }
            .unwrap();
            let mut layer = fold(&mut task, &vs[0]);
            let mut plain = fold_plain(&tables[0]);
            while layer.len() > 1 {
                layer = fold(&mut task, &layer);
                plain = fold_plain(&plain);
            }
            task.sync().unwrap();
            assert_eq!(layer.to_vec().unwrap(), plain, "chain, {at}");
        }
    }
}

/// A deferred launch that faults is reported at the sync, naming its kernel among the
/// others; an eager one at once.
fn deferred_faults_at_sync(on_device: bool) {
    type F = Goldilocks;
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        let v: FieldVec<F> = ctx.vec(inputs(3, 10));
        let mut t = ctx.deferred_task().unwrap();
        t.map(Fold, 5, &[Arg::Vec(&v), Arg::Field(F::ONE)]).unwrap();
        let r = t.map(ReadsPastEnd, 10, &[Arg::Vec(&v)]);
        let r = match (on_device, r) {
            // On the device the launch returns at once; the sync reports it.
            (true, Ok(_)) => t.sync().map(drop),
            (_, r) => r.map(drop),
        };
        match r {
            Err(RuntimeError::Fault { kernel }) => assert_eq!(kernel, "reads_past_end", "{at}"),
            other => panic!("{at}: {other:?}"),
        }
        // The fault is reported once; the task goes on.
        t.map(Fold, 5, &[Arg::Vec(&v), Arg::Field(F::ONE)]).unwrap();
        t.sync().unwrap();
    }
}

/// The layer's sumchecks of `a·b·c` and `a·b` give the hand-written `run_fused`'s proofs:
/// the same messages, challenges, final claim and table values, on every context, from 1
/// to 12 variables; and they verify.
fn sumcheck_matches_hand_written<F: KernelField + fastzk_multilinear::Absorb>(on_device: bool) {
    use fastzk_multilinear::sumcheck::{run_fused, verify};
    use fastzk_multilinear::{HashKind, Transcript};
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        for vars in [1usize, 2, 3, 7, 12] {
            let n = 1 << vars;
            let t: Vec<Vec<F>> = (0..3).map(|s| inputs(60 + s + vars as u64, n)).collect();
            let claim: F = (0..n).map(|i| t[0][i] * t[1][i] * t[2][i]).sum();
            // As `prove_claimed` does, and `verify` expects.
            let start_with = |claim: F| {
                let mut t = Transcript::new(HashKind::Blake3, b"layer test");
                t.append_elements(b"sumcheck claim", &[claim]);
                t
            };
            let start = || start_with(claim);
            let mut tr = start();
            let (rounds, point, running, tables) = run_fused(
                [t[0].clone(), t[1].clone(), t[2].clone()],
                3,
                |v: &[F; 3]| v[0] * v[1] * v[2],
                claim,
                vars,
                None,
                &mut tr,
            )
            .unwrap();
            let mut tl = start();
            let mut task = ctx.deferred_task().unwrap();
            let (l_rounds, l_point, l_running, values) = fastzk_runtime::sumcheck::prove_product3(
                &mut task,
                [t[0].clone(), t[1].clone(), t[2].clone()],
                claim,
                &mut tl,
            )
            .unwrap();
            task.sync().unwrap();
            assert_eq!(l_rounds, rounds, "messages, {vars} variables, {at}");
            assert_eq!(l_point, point, "challenges, {vars} variables, {at}");
            assert_eq!(l_running, running, "{vars} variables, {at}");
            assert_eq!(
                values.to_vec(),
                vec![tables[0][0], tables[1][0], tables[2][0]],
                "{at}"
            );
            assert_eq!(values[0] * values[1] * values[2], running, "{at}");
            let mut tv = Transcript::new(HashKind::Blake3, b"layer test");
            let proof = fastzk_multilinear::sumcheck::SumcheckProof { rounds: l_rounds };
            let (r, last) = verify(claim, vars, 3, &proof, &mut tv).unwrap();
            assert_eq!((r, last), (point, running), "{at}");

            // a·b (degree 2), as Spartan's inner sumcheck.
            let claim2: F = (0..n).map(|i| t[0][i] * t[1][i]).sum();
            let mut tr = start_with(claim2);
            let want = run_fused(
                [t[0].clone(), t[1].clone()],
                2,
                |v: &[F; 2]| v[0] * v[1],
                claim2,
                vars,
                None,
                &mut tr,
            )
            .unwrap();
            let mut tl = start_with(claim2);
            let got = fastzk_runtime::sumcheck::prove_product2(
                &mut ctx.task().unwrap(),
                [t[0].clone(), t[1].clone()],
                claim2,
                &mut tl,
            )
            .unwrap();
            assert_eq!(got.0, want.0, "a·b messages, {vars} variables, {at}");
            assert_eq!(
                (&got.1, got.2),
                (&want.1, want.2),
                "a·b, {vars} variables, {at}"
            );
            assert_eq!(got.3.to_vec(), vec![want.3[0][0], want.3[1][0]], "{at}");
            let mut tv = Transcript::new(HashKind::Blake3, b"layer test");
            let proof = fastzk_multilinear::sumcheck::SumcheckProof { rounds: got.0 };
            let (r, last) = verify(claim2, vars, 2, &proof, &mut tv).unwrap();
            assert_eq!((r, last), (got.1, got.2), "a·b verifies, {at}");
        }
        // Tables that are not one power-of-two length are refused.
        let mut task = ctx.task().unwrap();
        let t = inputs::<F>(1, 6);
        let mut tr = Transcript::new(HashKind::Blake3, b"layer test");
        let e = fastzk_runtime::sumcheck::prove_product3(
            &mut task,
            [t.clone(), t.clone(), t],
            F::ZERO,
            &mut tr,
        )
        .expect_err("6 entries");
        assert!(e.to_string().contains("power-of-two"), "{at}: {e}");
    }
}

/// The layer's rounds of `α·eq(q, ·)·(a·b − c)` give the hand-written `run_fused_eq`'s:
/// the same messages, challenges, claim, bound tables and `α`, for 1 to 10 variables,
/// every round count, masked (after an earlier challenge) or not, and with a zero
/// coordinate of `q` (the path that sums `t(1)` instead of taking it from the claim).
fn eq_sumcheck_matches_hand_written<F: KernelField + fastzk_multilinear::Absorb>(on_device: bool) {
    use fastzk_multilinear::mle::eq_table;
    use fastzk_multilinear::sumcheck::{run_fused_eq, Masking};
    use fastzk_multilinear::{HashKind, Transcript, UnivariateMask};
    let g = |v: &[F; 3]| v[0] * v[1] - v[2];
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        for vars in [1usize, 2, 5, 10] {
            let n = 1 << vars;
            let t: Vec<Vec<F>> = (0..3).map(|s| inputs(80 + s + vars as u64, n)).collect();
            let mut r = rng(90 + vars as u64);
            let alpha = F::random(&mut r);
            let mask = UnivariateMask::<F>::random(&vec![3; vars + 1], &mut r);
            let masking = Masking {
                mask: &mask,
                rho: F::random(&mut r),
                earlier: vec![F::random(&mut r)],
            };
            for zero_at in [None, Some(0), Some(vars - 1)] {
                let mut q: Vec<F> = elements(&mut r, vars);
                if let Some(z) = zero_at {
                    q[z] = F::ZERO;
                }
                let eq = eq_table(&q);
                let sum: F = (0..n)
                    .map(|x| alpha * eq[x] * g(&[t[0][x], t[1][x], t[2][x]]))
                    .sum();
                for count in [0, 1, vars - 1, vars] {
                    for masked in [false, true] {
                        let m = masked.then_some(&masking);
                        // The claim need not be the sum: the rounds take it as given.
                        let claim = if masked { sum + F::ONE } else { sum };
                        let tables = || -> [Vec<F>; 3] { std::array::from_fn(|k| t[k].clone()) };
                        let start = || Transcript::new(HashKind::Blake3, b"layer eq test");
                        let mut tr = start();
                        let want =
                            run_fused_eq(tables(), &q, alpha, 2, g, claim, count, m, &mut tr)
                                .unwrap();
                        let mut tl = start();
                        let mut task = ctx.task().unwrap();
                        let got = fastzk_runtime::sumcheck::prove_eq_r1cs(
                            &mut task,
                            tables(),
                            &q,
                            alpha,
                            claim,
                            count,
                            m,
                            &mut tl,
                        )
                        .unwrap();
                        let what = format!(
                            "{vars} variables, zero at {zero_at:?}, {count} rounds, \
                             masked {masked}, {at}"
                        );
                        assert_eq!(got.0, want.0, "messages, {what}");
                        assert_eq!((&got.1, got.2), (&want.1, want.2), "{what}");
                        assert_eq!(got.3, want.3, "bound tables, {what}");
                        assert_eq!(got.4, want.4, "alpha, {what}");
                        assert_eq!(got.3[0].len(), n >> count, "{what}");
                    }
                }
            }
        }
        // Tables that do not match q are refused, as are more rounds than variables.
        let mut task = ctx.task().unwrap();
        let t = inputs::<F>(1, 8);
        let mut tr = Transcript::new(HashKind::Blake3, b"layer eq test");
        let three = || [t.clone(), t.clone(), t.clone()];
        let q = [F::ONE; 3];
        for (q, count) in [(&q[..2], 1), (&q[..], 4)] {
            let e = fastzk_runtime::sumcheck::prove_eq_r1cs(
                &mut task,
                three(),
                q,
                F::ONE,
                F::ZERO,
                count,
                None,
                &mut tr,
            )
            .expect_err("refused");
            assert!(e.to_string().contains("length 2^"), "{at}: {e}");
        }
    }
}

/// Reed–Solomon encoding of many rows in one batch (Orion's): each row padded with zeros
/// and transformed, against the naive DFT row by row on the CPU and against the CPU on
/// the device; rows of 1 to the codeword's length, no rows, and bad shapes refused.
fn rs_encoding_matches_naive<F: KernelField + fastzk_field::NttField>(on_device: bool) {
    use fastzk_poly::{NaiveDft, Order, Subgroup, Transform, TwoAdicTransform};
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        let mut task = ctx.task().unwrap();
        for (k, width, rows) in [
            (1, 1, 3),
            (1, 4, 2),
            (3, 4, 5),
            (4, 4, 1),
            (5, 16, 7),
            (6, 8, 0),
        ] {
            let m = inputs::<F>(k as u64 + width as u64, k * rows);
            let before = ctx.traffic();
            let got = task.rs_encode(&ctx.vec(m.clone()), k, width).unwrap();
            let dft = NaiveDft::on(Subgroup::<F>::new(width.trailing_zeros()).unwrap());
            let mut want = Vec::new();
            for row in m.chunks(k) {
                let mut w = row.to_vec();
                w.resize(width, F::ZERO);
                dft.apply(Transform::Forward, &mut w, Order::Natural, Order::Natural)
                    .unwrap();
                want.extend(w);
            }
            assert_eq!(
                got.to_vec().unwrap(),
                want,
                "{rows} rows of {k} into {width}, {at}"
            );
            if on_device && rows > 0 {
                // The rows go up once, the codewords come down once (when read).
                let moved = ctx.traffic().since(&before);
                assert_eq!((moved.uploads, moved.downloads), (1, 1), "{at}");
            }
        }
        for (len, k, width) in [(6, 4, 8), (8, 0, 8), (8, 8, 4), (6, 3, 6)] {
            let e = task
                .rs_encode(&ctx.vec(inputs::<F>(2, len)), k, width)
                .err()
                .expect("a bad shape");
            assert!(
                e.to_string().contains("codewords"),
                "{len} {k} {width}, {at}: {e}"
            );
        }
    }
}

/// The library NTT from a task: against the naive DFT on the CPU and against the CPU on
/// the device, every kind and order, sizes 1 to 2^10, on the field's own subgroup and on
/// another root and coset (as a key's Lagrange basis may fix); a forward and inverse
/// round trip on the device moves nothing back to the host until read.
fn ntt_from_tasks<F: KernelField + fastzk_field::NttField>(on_device: bool) {
    use fastzk_poly::{NaiveDft, Order, Subgroup, Transform, TwoAdicTransform};
    let cpu = Context::cpu();
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        let mut task = ctx.task().unwrap();
        for log_n in [0u32, 1, 2, 5, 10] {
            let n = 1usize << log_n;
            let x = inputs::<F>(log_n as u64, n);
            let v = ctx.vec(x.clone());
            let own = Subgroup::<F>::new(log_n).unwrap();
            let other = Subgroup::with_root(log_n, own.generator().pow_u64(3))
                .unwrap()
                .with_coset(own.coset_shift().square())
                .unwrap();
            for (sub, which) in [(own, "own"), (other, "other")] {
                for kind in [
                    Transform::Forward,
                    Transform::Inverse,
                    Transform::CosetForward,
                    Transform::CosetInverse,
                ] {
                    for (input, output) in [
                        (Order::Natural, Order::Natural),
                        (Order::BitReversed, Order::Natural),
                        (Order::Natural, Order::BitReversed),
                    ] {
                        let got = task.ntt_on(sub, &v, kind, input, output).unwrap();
                        let want = if on_device {
                            let c = cpu.vec(x.clone());
                            let mut t = cpu.task().unwrap();
                            let w = t.ntt_on(sub, &c, kind, input, output).unwrap();
                            w.to_vec().unwrap()
                        } else {
                            let mut w = x.clone();
                            NaiveDft::on(sub)
                                .apply(kind, &mut w, input, output)
                                .unwrap();
                            w
                        };
                        assert_eq!(
                            got.to_vec().unwrap(),
                            want,
                            "{which} {kind:?} {input:?}→{output:?} 2^{log_n}, {at}"
                        );
                    }
                }
            }
            if log_n > 0 {
                let e = task
                    .ntt_on(
                        own,
                        &ctx.vec(x[..n / 2].to_vec()),
                        Transform::Forward,
                        Order::Natural,
                        Order::Natural,
                    )
                    .err()
                    .expect("half the subgroup's size");
                assert!(e.to_string().contains("subgroup"), "{at}: {e}");
            }
            // Round trip on the device: one upload, one download.
            let before = ctx.traffic();
            let w = ctx.vec(x.clone());
            let f = task
                .ntt(&w, Transform::Forward, Order::Natural, Order::Natural)
                .unwrap();
            let back = task
                .ntt(&f, Transform::Inverse, Order::Natural, Order::Natural)
                .unwrap();
            assert_eq!(back.to_vec().unwrap(), x, "round trip 2^{log_n}, {at}");
            if on_device {
                let moved = ctx.traffic().since(&before);
                assert_eq!((moved.uploads, moved.downloads), (1, 1), "{at}");
            }
        }
        let e = task
            .ntt(
                &ctx.vec(inputs::<F>(1, 6)),
                Transform::Forward,
                Order::Natural,
                Order::Natural,
            )
            .err()
            .expect("6 elements");
        assert!(e.to_string().contains("power of two"), "{at}: {e}");
    }
}

/// The library MSM from a task, on scalars the task's context holds (made on the host,
/// or by a kernel on the device) and points prepared or uploaded once: against the naive
/// sum, with edge scalars, all-one scalars (a sum of points), the empty MSM, fewer scalars
/// than points (a prefix) and more (refused).
fn msm_from_tasks<C: fastzk_gpu::DeviceCurve>(on_device: bool)
where
    C::Scalar: KernelField,
{
    use fastzk_curve::Jacobian;
    use fastzk_runtime::Points;
    use fastzk_testing::gen::points;
    use fastzk_testing::msm::naive;
    type S<C> = <C as fastzk_curve::CurveConfig>::Scalar;
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        let mut task = ctx.task().unwrap();
        for n in [0usize, 1, 2, 100, 300] {
            let bases = points::<C>(n, 7 + n as u64);
            let points = Points::new(&bases);
            if n == 100 {
                // Ready before the first MSM (uploaded or prepared), as a caller overlaps it.
                task.prepare(&points).unwrap();
            }
            let scalars = inputs::<S<C>>(n as u64, n);
            let sv = ctx.vec(scalars.clone());
            let got = task.msm(&points, &sv).unwrap();
            assert_eq!(got, naive(&bases, &scalars), "n = {n}, {at}");
            // Scalars a kernel made: s·1 + s.
            let ones = ctx.vec(vec![S::<C>::ONE; n]);
            let made = ctx
                .map(
                    Axpy,
                    n,
                    &[Arg::Field(S::<C>::ONE), Arg::Vec(&sv), Arg::Vec(&sv)],
                )
                .unwrap();
            let doubled: Vec<S<C>> = scalars.iter().map(|s| s.double()).collect();
            assert_eq!(
                task.msm(&points, &made).unwrap(),
                naive(&bases, &doubled),
                "{at}"
            );
            let sum = task.msm(&points, &ones).unwrap();
            let want = bases
                .iter()
                .fold(Jacobian::<C>::default(), |acc, p| acc + Jacobian::from(*p));
            assert_eq!(sum, want, "Σ points, n = {n}, {at}");
            // Fewer scalars than points: the first points only (a polynomial of lower
            // degree over a key's powers of tau).
            for k in [n / 2, n.saturating_sub(1)] {
                let part = ctx.vec(scalars[..k].to_vec());
                assert_eq!(
                    task.msm(&points, &part).unwrap(),
                    naive(&bases[..k], &scalars[..k]),
                    "{k} of {n}, {at}"
                );
            }
        }
        let bases = points::<C>(2, 1);
        let e = task
            .msm(&Points::new(&bases), &ctx.vec(inputs::<S<C>>(1, 3)))
            .expect_err("2 points, 3 scalars");
        assert!(
            e.to_string().contains("3 scalars for 2 points"),
            "{at}: {e}"
        );
    }
}

/// The library SpMV from a task: against a dense product written here, on matrices with
/// empty rows, a row longer than a device chunk (32 nonzeros) and duplicate entries, two
/// vectors per matrix; a vector of the wrong length refused.
fn spmv_from_tasks<F: KernelField>(on_device: bool) {
    use fastzk_runtime::Matrix;
    use rand::Rng;
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        let mut task = ctx.task().unwrap();
        let mut r = rng(11);
        for (rows, cols) in [(1usize, 1usize), (5, 3), (70, 40), (300, 257)] {
            let mut triplets = Vec::new();
            for row in 0..rows {
                let len = match row % 7 {
                    0 => 0,
                    1 => 40.min(cols * 2),
                    _ => r.gen_range(1..=cols.min(5)),
                };
                for _ in 0..len {
                    let c = r.gen_range(0..cols);
                    triplets.push((row as u32, c as u32, inputs::<F>(r.gen(), 2)[1]));
                }
            }
            let csr = fastzk_r1cs::Csr::from_triplets(rows, cols, &triplets).unwrap();
            let m = Matrix::new(&csr);
            let mut dense = vec![vec![F::ZERO; cols]; rows];
            for &(row, c, v) in &triplets {
                dense[row as usize][c as usize] += v;
            }
            for seed in 0..2 {
                let z = inputs::<F>(seed, cols);
                let want: Vec<F> = dense
                    .iter()
                    .map(|row| row.iter().zip(&z).map(|(a, b)| *a * *b).sum())
                    .collect();
                let y = task.spmv(&m, &ctx.vec(z)).unwrap();
                assert_eq!(y.to_vec().unwrap(), want, "{rows}×{cols}, {at}");
            }
            let e = task
                .spmv(&m, &ctx.vec(inputs::<F>(1, cols + 1)))
                .err()
                .expect("one column too many");
            assert!(e.to_string().contains("columns"), "{at}: {e}");
        }
    }
}

/// The library's transposed products `Σ_k w_k·M_kᵀ·v` from a task: against a dense sum
/// written here (base entries lifted into the field), for one to three matrices with
/// empty columns, a column longer than a device chunk (32 entries), duplicate entries
/// and edge values; shapes, weights and vectors that do not fit refused.
fn transposed_from_tasks<E: KernelField>(on_device: bool) {
    use fastzk_runtime::Transposed;
    use rand::Rng;
    type B<E> = <E as KernelField>::Base;
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        let mut task = ctx.task().unwrap();
        let mut r = rng(12);
        for (rows, cols, k) in [
            (1usize, 1usize, 1usize),
            (4, 3, 2),
            (70, 40, 3),
            (300, 257, 3),
            (5, 0, 2),
            (0, 6, 1),
        ] {
            let mats: Vec<fastzk_r1cs::Csr<B<E>>> = (0..k)
                .map(|m| {
                    let mut triplets = Vec::new();
                    let values = inputs::<B<E>>(r.gen(), 4 * rows + 50);
                    for row in 0..rows {
                        // Column 1 (when there is one) fills up past a chunk.
                        let long = cols > 1 && row % 2 == 0 && m == 0;
                        let len = if cols == 0 { 0 } else { r.gen_range(0..=3) };
                        for j in 0..len + usize::from(long) {
                            let c = if j == len { 1 } else { r.gen_range(0..cols) };
                            triplets.push((
                                row as u32,
                                c as u32,
                                values[triplets.len() % values.len()],
                            ));
                        }
                    }
                    fastzk_r1cs::Csr::from_triplets(rows, cols, &triplets).unwrap()
                })
                .collect();
            let refs: Vec<&fastzk_r1cs::Csr<B<E>>> = mats.iter().collect();
            let t = Transposed::new(&refs).unwrap();
            for seed in 0..2 {
                let v = inputs::<E>(seed, rows);
                let w = inputs::<E>(seed + 7, k);
                let mut want = vec![E::ZERO; cols];
                for (m, wk) in refs.iter().zip(&w) {
                    for (i, c, a) in m.triplets() {
                        want[c as usize] += *wk * v[i] * E::lift(a);
                    }
                }
                let y = task.spmv_transposed(&t, &w, &ctx.vec(v)).unwrap();
                assert_eq!(
                    y.to_vec().unwrap(),
                    want,
                    "{rows}×{cols}, {k} matrices, {at}"
                );
            }
            let e = task
                .spmv_transposed(&t, &inputs::<E>(1, k + 1), &ctx.vec(inputs::<E>(1, rows)))
                .err()
                .expect("a weight too many");
            assert!(e.to_string().contains("weights"), "{at}: {e}");
            let e = task
                .spmv_transposed(&t, &inputs::<E>(1, k), &ctx.vec(inputs::<E>(1, rows + 1)))
                .err()
                .expect("a row too many");
            assert!(e.to_string().contains("rows"), "{at}: {e}");
        }
        let (a, b) = (
            fastzk_r1cs::Csr::<B<E>>::zeros(3, 4).unwrap(),
            fastzk_r1cs::Csr::<B<E>>::zeros(3, 5).unwrap(),
        );
        let e = Transposed::new(&[&a, &b]).err().expect("two shapes");
        assert!(e.to_string().contains("matrix 1 is 3×5"), "{at}: {e}");
    }
}

/// The library's Merkle trees over a matrix's columns from a task: every layer against
/// the tree built here from each column hashed on its own (salt, then the elements'
/// canonical bytes) with both hashes, for heights whose inputs end inside the first
/// block, past it, at one and several BLAKE3 chunks (the stack merged during and after
/// the input) and past SHA3's rate, with and without salts, edge values among the
/// elements; shapes and salt counts that do not fit refused.
fn merkle_from_tasks<F: KernelField<Base = F> + fastzk_field::PrimeField>(on_device: bool) {
    use fastzk_multilinear::HashKind;
    use fastzk_pcs::merkle::{hash_leaf, MerkleTree};
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        let mut task = ctx.task().unwrap();
        let cases = [
            (0usize, 1usize),
            (1, 1),
            (7, 2),
            (8, 4),
            (17, 2),
            (34, 1),
            (127, 2),
            (128, 2),
            (256, 1),
            (384, 2),
            (1000, 1),
            (1024, 2),
            (3, 64),
        ];
        for kind in [HashKind::Blake3, HashKind::Sha3_256] {
            for (c, &(height, width)) in cases.iter().enumerate() {
                let m = inputs::<F>(c as u64, height * width);
                let salts: Vec<[u8; 16]> = (0..width)
                    .map(|j| core::array::from_fn(|b| (j * 31 + b * 7 + c) as u8))
                    .collect();
                for salts in [&salts[..], &[]] {
                    let leaves = (0..width)
                        .map(|j| {
                            let mut bytes = salts.get(j).map_or(Vec::new(), |s| s.to_vec());
                            for i in 0..height {
                                bytes.extend_from_slice(&m[i * width + j].to_le_bytes());
                            }
                            hash_leaf(kind, &bytes)
                        })
                        .collect();
                    let want = MerkleTree::new(kind, leaves).unwrap();
                    let got = task
                        .merkle_columns(kind, &ctx.vec(m.clone()), width, salts)
                        .unwrap();
                    assert_eq!(
                        got.layers(),
                        want.layers(),
                        "{kind:?}, {height}×{width}, {} salts, {at}",
                        salts.len()
                    );
                }
            }
        }
        let m = ctx.vec(inputs::<F>(3, 12));
        for (width, salts, says) in [
            (3, 0, "power of two"),
            (8, 0, "12 values"),
            (4, 3, "3 salts"),
        ] {
            let e = task
                .merkle_columns(HashKind::Blake3, &m, width, &vec![[0u8; 16]; salts])
                .expect_err("refused");
            assert!(e.to_string().contains(says), "{at}: {e}");
        }
    }
}

/// Grand products on the layer against `fastzk_multilinear::product::prove` on the same
/// tables: the same products, proof and leaf claims, and the transcripts in the same
/// state after; one to four products of 2 to 2^9 leaves, random with edge values, all
/// equal, with zeros, all ones; shapes it cannot take refused.
fn grand_products_from_tasks<F: KernelField + fastzk_multilinear::Absorb>(on_device: bool) {
    use fastzk_multilinear::{product, HashKind, Transcript};
    use fastzk_runtime::prove_grand_products;
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        let mut task = ctx.task().unwrap();
        for p in 1..=4usize {
            for log in [1usize, 2, 3, 9] {
                let n = 1 << log;
                let random: Vec<Vec<F>> = (0..p)
                    .map(|k| inputs::<F>((p * 10 + k) as u64, n))
                    .collect();
                let equal = vec![vec![F::from_u64(7); n]; p];
                let mut zeros = random.clone();
                zeros[p - 1][n / 2] = F::ZERO;
                let ones = vec![vec![F::ONE; n]; p];
                for (name, tables) in [
                    ("random", random),
                    ("equal", equal),
                    ("zeros", zeros),
                    ("ones", ones),
                ] {
                    let mut t_ref = Transcript::new(HashKind::Blake3, b"products");
                    let want = product::prove(tables.clone(), &mut t_ref).unwrap();
                    let interleaved: Vec<F> = (0..n * p).map(|i| tables[i % p][i / p]).collect();
                    let mut t = Transcript::new(HashKind::Blake3, b"products");
                    let got =
                        prove_grand_products(&mut task, ctx.vec(interleaved), p, &mut t).unwrap();
                    assert_eq!(got, want, "{p} products of 2^{log}, {name}, {at}");
                    let (a, b): (F, F) = (t.challenge(b"after"), t_ref.challenge(b"after"));
                    assert_eq!(a, b, "{p} products of 2^{log}, {name}: transcripts, {at}");
                }
            }
        }
        for (len, p) in [(8usize, 0usize), (10, 5), (4, 4), (12, 2), (9, 2)] {
            let mut t = Transcript::new(HashKind::Blake3, b"products");
            let e = prove_grand_products(&mut task, ctx.vec(inputs::<F>(1, len)), p, &mut t)
                .expect_err("refused");
            assert!(e.to_string().contains("products"), "{len}, {p}, {at}: {e}");
        }
    }
}

/// The library's gather from a task against indexing here: empty, single and long index
/// lists into vectors of one to 300 elements, first and last elements, repeats; the
/// result read as the next kernel's input; an index past the end refused.
fn gather_from_tasks<F: KernelField>(on_device: bool) {
    use rand::Rng;
    for ctx in contexts(on_device) {
        let at = describe(&ctx);
        let mut task = ctx.task().unwrap();
        let mut r = rng(21);
        for (len, n) in [(1usize, 0usize), (1, 1), (7, 5), (300, 1000)] {
            let v = inputs::<F>(len as u64, len);
            let mut idx: Vec<u32> = (0..n).map(|_| r.gen_range(0..len as u32)).collect();
            if n > 1 {
                idx[0] = 0;
                idx[n - 1] = len as u32 - 1;
            }
            let vv = ctx.vec(v.clone());
            let got = task.gather(&vv, &idx).unwrap();
            let want: Vec<F> = idx.iter().map(|&i| v[i as usize]).collect();
            let twice = task
                .map(
                    Axpy,
                    n,
                    &[Arg::Field(F::ONE), Arg::Vec(&got), Arg::Vec(&got)],
                )
                .unwrap();
            assert_eq!(got.to_vec().unwrap(), want, "{n} of {len}, {at}");
            let doubled: Vec<F> = want.iter().map(|w| w.double()).collect();
            assert_eq!(twice.to_vec().unwrap(), doubled, "{n} of {len}, {at}");
            let Err(e) = task.gather(&vv, &[0, len as u32]) else {
                panic!("an index past the end taken, {at}");
            };
            assert!(e.to_string().contains(&format!("index {len}")), "{at}: {e}");
        }
    }
}

/// `lift` is the field crate's embedding of the base (checked where the field crate has
/// one: the extensions).
/// Which groups of eight the CPU loop runs on lanes: every group of a kernel whose lanes
/// agree (where the field's lanes pay, or on the plain-element lanes for every field),
/// none of a kernel that branches on its index's parity, and the groups of a data-
/// dependent branch whose lanes agree. The results themselves are checked against plain
/// loops by the other trials, on every lane choice.
fn lanes_run_where_they_agree<F: KernelField>() {
    for choice in LANE_CHOICES.into_iter().filter(|c| c.is_supported()) {
        let ctx = Context::cpu().with_lanes(choice).unwrap();
        let on = match choice {
            LaneChoice::Off => false,
            LaneChoice::Portable => true,
            _ => F::LANES_PAY,
        };
        let groups = |ran, gave_up| match on {
            true => LaneGroups { ran, gave_up },
            false => LaneGroups::default(),
        };
        let at = describe(&ctx);
        let n = 1003;
        let v = ctx.vec(inputs::<F>(1, 2 * n));
        ctx.map(Fold, n, &[Arg::Vec(&v), Arg::Field(F::random(&mut rng(2)))])
            .unwrap();
        assert_eq!(ctx.lane_groups(), groups(125, 0), "fold, {at}");
        ctx.map_reduce(
            CubicRound,
            Sum,
            64,
            &[Arg::Vec(&v), Arg::Vec(&v), Arg::Vec(&v)],
        )
        .unwrap();
        assert_eq!(ctx.lane_groups(), groups(133, 0), "cubic round, {at}");
        ctx.map(Mixed, 64, &[Arg::Vec(&v), Arg::Int(1)]).unwrap();
        assert_eq!(ctx.lane_groups(), groups(133, 8), "mixed, {at}");
        // A base table whose difference is zero at one index of the second group only.
        let mut b: Vec<F::Base> = elements(&mut rng(3), 64);
        b[2 * 11 + 1] = b[2 * 11];
        let (b, w) = (ctx.vec(b), ctx.vec(inputs::<F>(4, 32)));
        let args = [Arg::BaseVec(&b), Arg::Field(F::ONE), Arg::Vec(&w)];
        ctx.task()
            .unwrap()
            .run(BindBaseTable, Sum, 32, 2, &args)
            .unwrap();
        assert_eq!(ctx.lane_groups(), groups(136, 9), "base table, {at}");
    }
}

fn lift_is_the_field_embedding() {
    use fastzk_field::ExtensionField;
    fn check<F: KernelField + ExtensionField<Base = <F as KernelField>::Base>>() {
        for b in inputs::<<F as KernelField>::Base>(9, 100) {
            assert_eq!(
                <F as KernelField>::lift(b),
                <F as ExtensionField>::from_base(b)
            );
        }
    }
    check::<GoldilocksExt2>();
    check::<GoldilocksExt3>();
    check::<bn254::Fq2>();
    check::<bls12_381::Fq2>();
}

/// The programs the layer builds are valid CUDA too: NVRTC compiles a few for sm_80 at
/// CUDA's block size (what a CUDA device would build; no GPU needed).
fn nvrtc_compiles_layer_programs() {
    use fastzk_runtime::program_source;
    use fastzk_runtime::sumcheck::Product3Round;
    let sources = [
        ("fold", program_source::<bn254::Fr, Fold, Sum>(1, 256)),
        ("mixed", program_source::<Goldilocks, Mixed, Sum>(1, 256)),
        (
            "cubic_round",
            program_source::<bls12_381::Fq, CubicRound, Times>(0, 256),
        ),
        (
            "product3_round",
            program_source::<GoldilocksExt2, Product3Round, Sum>(6, 256),
        ),
        (
            "bind_base_table, cubic",
            program_source::<GoldilocksExt3, BindBaseTable, Sum>(2, 256),
        ),
        (
            "bind_base_table, quadratic",
            program_source::<bn254::Fq2, BindBaseTable, Sum>(2, 256),
        ),
        (
            "bind_base_table, prime",
            program_source::<bn254::Fr, BindBaseTable, Sum>(2, 256),
        ),
    ];
    for (name, src) in sources {
        let ptx =
            fastzk_gpu::cuda::compile_ptx(&src, "sm_80").unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            ptx.contains(".entry fzk_run"),
            "{name}: no fzk_run in the PTX"
        );
    }
    for (name, src) in fastzk_runtime::dense_sources::<GoldilocksExt3>(256)
        .into_iter()
        .chain(fastzk_runtime::dense_sources::<bn254::Fr>(256))
    {
        let ptx =
            fastzk_gpu::cuda::compile_ptx(&src, "sm_80").unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(ptx.contains(".entry fzk_run"), "{name}: no fzk_run");
    }
    use fastzk_runtime::{gather_source, merkle_source};
    for (name, src) in [
        ("gather, cubic", gather_source::<GoldilocksExt3>()),
        ("gather, BN254", gather_source::<bn254::Fr>()),
    ] {
        let ptx =
            fastzk_gpu::cuda::compile_ptx(&src, "sm_80").unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(ptx.contains(".entry fzg_gather"), "{name}: no fzg_gather");
    }
    for (name, src) in [
        ("merkle, Goldilocks", merkle_source::<Goldilocks>()),
        ("merkle, BN254", merkle_source::<bn254::Fr>()),
    ] {
        let ptx =
            fastzk_gpu::cuda::compile_ptx(&src, "sm_80").unwrap_or_else(|e| panic!("{name}: {e}"));
        for entry in ["fzm_leaves", "fzm_nodes"] {
            assert!(
                ptx.contains(&format!(".entry {entry}")),
                "{name}: no {entry}"
            );
        }
    }
    use fastzk_runtime::transposed_source;
    for (name, src) in [
        ("transposed, cubic", transposed_source::<GoldilocksExt3>()),
        ("transposed, quadratic", transposed_source::<bn254::Fq2>()),
        ("transposed, prime", transposed_source::<bn254::Fr>()),
    ] {
        let ptx =
            fastzk_gpu::cuda::compile_ptx(&src, "sm_80").unwrap_or_else(|e| panic!("{name}: {e}"));
        for entry in ["fzt_chunks", "fzt_columns"] {
            assert!(
                ptx.contains(&format!(".entry {entry}")),
                "{name}: no {entry}"
            );
        }
    }
}

fn main() {
    let mut t = Trials::default();
    macro_rules! per_field {
        ($name:literal, $f:ty) => {
            t.plain(concat!("cpu::maps::", $name), || {
                maps_match_plain_loops::<$f>(false)
            });
            t.plain(concat!("cpu::reductions::", $name), || {
                reductions_match_plain_folds::<$f>(false)
            });
            t.when(
                concat!("device::layer::maps::", $name),
                device_available(),
                || maps_match_plain_loops::<$f>(true),
            );
            t.when(
                concat!("device::layer::reductions::", $name),
                device_available(),
                || reductions_match_plain_folds::<$f>(true),
            );
            t.plain(concat!("cpu::lanes::", $name), || {
                lanes_run_where_they_agree::<$f>()
            });
        };
    }
    per_field!("goldilocks", Goldilocks);
    per_field!("goldilocks_ext2", GoldilocksExt2);
    per_field!("goldilocks_ext3", GoldilocksExt3);
    per_field!("bn254_fr", bn254::Fr);
    per_field!("bls12_381_fr", bls12_381::Fr);
    per_field!("bls12_381_fq", bls12_381::Fq);
    macro_rules! per_extension {
        ($name:literal, $f:ty) => {
            t.plain(concat!("cpu::base_inputs::", $name), || {
                base_inputs_match_plain_loops::<$f>(false)
            });
            t.when(
                concat!("device::layer::base_inputs::", $name),
                device_available(),
                || base_inputs_match_plain_loops::<$f>(true),
            );
        };
    }
    per_extension!("goldilocks_ext3", GoldilocksExt3);
    per_extension!("goldilocks_ext2", GoldilocksExt2);
    per_extension!("bn254_fq2", bn254::Fq2);
    per_extension!("bn254_fr", bn254::Fr);
    t.plain(
        "cpu::lift_is_the_field_embedding",
        lift_is_the_field_embedding,
    );
    t.plain("cpu::eq_table::goldilocks_ext3", || {
        eq_tables_match::<GoldilocksExt3>(false)
    });
    t.when(
        "device::layer::eq_table::goldilocks_ext3",
        device_available(),
        || eq_tables_match::<GoldilocksExt3>(true),
    );
    t.when(
        "device::layer::eq_table::bn254_fr",
        device_available(),
        || eq_tables_match::<bn254::Fr>(true),
    );
    t.plain("cpu::dense::goldilocks_ext3", || {
        dense_products_match_their_sums::<GoldilocksExt3>(false)
    });
    t.plain("cpu::dense::bn254_fr", || {
        dense_products_match_their_sums::<bn254::Fr>(false)
    });
    t.when(
        "device::layer::dense::goldilocks_ext3",
        device_available(),
        || dense_products_match_their_sums::<GoldilocksExt3>(true),
    );
    t.when("device::layer::dense::bn254_fr", device_available(), || {
        dense_products_match_their_sums::<bn254::Fr>(true)
    });
    t.plain("cpu::bad_calls", || bad_calls_are_errors(false));
    t.when("device::layer::bad_calls", device_available(), || {
        bad_calls_are_errors(true)
    });
    t.when(
        "device::layer::traffic",
        device_available(),
        traffic_is_lazy,
    );
    t.plain("cpu::sumcheck::goldilocks", || {
        sumcheck_matches_hand_written::<Goldilocks>(false)
    });
    t.plain("cpu::sumcheck::bn254_fr", || {
        sumcheck_matches_hand_written::<bn254::Fr>(false)
    });
    t.when(
        "device::layer::sumcheck::goldilocks",
        device_available(),
        || sumcheck_matches_hand_written::<Goldilocks>(true),
    );
    t.when(
        "device::layer::sumcheck::goldilocks_ext2",
        device_available(),
        || sumcheck_matches_hand_written::<GoldilocksExt2>(true),
    );
    t.when(
        "device::layer::sumcheck::bn254_fr",
        device_available(),
        || sumcheck_matches_hand_written::<bn254::Fr>(true),
    );
    t.plain("cpu::eq_sumcheck::goldilocks_ext2", || {
        eq_sumcheck_matches_hand_written::<GoldilocksExt2>(false)
    });
    t.plain("cpu::eq_sumcheck::bn254_fr", || {
        eq_sumcheck_matches_hand_written::<bn254::Fr>(false)
    });
    t.when(
        "device::layer::eq_sumcheck::goldilocks_ext2",
        device_available(),
        || eq_sumcheck_matches_hand_written::<GoldilocksExt2>(true),
    );
    t.when(
        "device::layer::eq_sumcheck::bn254_fr",
        device_available(),
        || eq_sumcheck_matches_hand_written::<bn254::Fr>(true),
    );
    t.plain("cpu::rs_encode::goldilocks", || {
        rs_encoding_matches_naive::<Goldilocks>(false)
    });
    t.when(
        "device::layer::rs_encode::goldilocks",
        device_available(),
        || rs_encoding_matches_naive::<Goldilocks>(true),
    );
    t.plain("cpu::ntt::goldilocks", || {
        ntt_from_tasks::<Goldilocks>(false)
    });
    t.plain("cpu::ntt::bn254_fr", || ntt_from_tasks::<bn254::Fr>(false));
    t.when("device::layer::ntt::goldilocks", device_available(), || {
        ntt_from_tasks::<Goldilocks>(true)
    });
    t.when("device::layer::ntt::bn254_fr", device_available(), || {
        ntt_from_tasks::<bn254::Fr>(true)
    });
    t.plain("cpu::msm::bn254_g1", || {
        msm_from_tasks::<fastzk_curve::bn254::G1Config>(false)
    });
    t.when("device::layer::msm::bn254_g1", device_available(), || {
        msm_from_tasks::<fastzk_curve::bn254::G1Config>(true)
    });
    t.when(
        "device::layer::msm::bls12_381_g1",
        device_available(),
        || msm_from_tasks::<fastzk_curve::bls12_381::G1Config>(true),
    );
    t.plain("cpu::spmv::bn254_fr", || {
        spmv_from_tasks::<bn254::Fr>(false)
    });
    t.when("device::layer::spmv::bn254_fr", device_available(), || {
        spmv_from_tasks::<bn254::Fr>(true)
    });
    t.when(
        "device::layer::spmv::goldilocks",
        device_available(),
        || spmv_from_tasks::<Goldilocks>(true),
    );
    t.plain("cpu::spmv_transposed::goldilocks_ext3", || {
        transposed_from_tasks::<GoldilocksExt3>(false)
    });
    t.plain("cpu::spmv_transposed::bn254_fr", || {
        transposed_from_tasks::<bn254::Fr>(false)
    });
    t.when(
        "device::layer::spmv_transposed::goldilocks_ext3",
        device_available(),
        || transposed_from_tasks::<GoldilocksExt3>(true),
    );
    t.when(
        "device::layer::spmv_transposed::bn254_fq2",
        device_available(),
        || transposed_from_tasks::<bn254::Fq2>(true),
    );
    t.when(
        "device::layer::spmv_transposed::bn254_fr",
        device_available(),
        || transposed_from_tasks::<bn254::Fr>(true),
    );
    t.plain("cpu::grand_products::goldilocks_ext3", || {
        grand_products_from_tasks::<GoldilocksExt3>(false)
    });
    t.plain("cpu::grand_products::bn254_fr", || {
        grand_products_from_tasks::<bn254::Fr>(false)
    });
    t.when(
        "device::layer::grand_products::goldilocks_ext3",
        device_available(),
        || grand_products_from_tasks::<GoldilocksExt3>(true),
    );
    t.when(
        "device::layer::grand_products::bn254_fr",
        device_available(),
        || grand_products_from_tasks::<bn254::Fr>(true),
    );
    t.plain("cpu::gather::goldilocks_ext3", || {
        gather_from_tasks::<GoldilocksExt3>(false)
    });
    t.when(
        "device::layer::gather::goldilocks_ext3",
        device_available(),
        || gather_from_tasks::<GoldilocksExt3>(true),
    );
    t.when(
        "device::layer::gather::bn254_fr",
        device_available(),
        || gather_from_tasks::<bn254::Fr>(true),
    );
    t.plain("cpu::merkle_columns::goldilocks", || {
        merkle_from_tasks::<Goldilocks>(false)
    });
    t.when(
        "device::layer::merkle_columns::goldilocks",
        device_available(),
        || merkle_from_tasks::<Goldilocks>(true),
    );
    t.when(
        "device::layer::merkle_columns::bn254_fr",
        device_available(),
        || merkle_from_tasks::<bn254::Fr>(true),
    );
    t.when(
        "device::layer::nvrtc_compiles_programs",
        fastzk_gpu::cuda::nvrtc_present()
            .map_err(|_| "NVRTC not found (pip nvidia-cuda-nvrtc, on LD_LIBRARY_PATH)"),
        nvrtc_compiles_layer_programs,
    );
    t.plain("cpu::tasks", || tasks_join_and_defer(false));
    t.when("device::layer::tasks", device_available(), || {
        tasks_join_and_defer(true)
    });
    t.plain("cpu::deferred_faults", || deferred_faults_at_sync(false));
    t.when("device::layer::deferred_faults", device_available(), || {
        deferred_faults_at_sync(true)
    });
    t.run()
}
