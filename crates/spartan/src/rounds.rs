//! The first rounds of Spartan's two sumchecks on the single-source layer. Their tables
//! (`Az`, `Bz`, `Cz`; the witness `Z` and its mask `R`) are base-field vectors and their
//! weights and challenges are in the extension, so these kernels read `&[F::Base]` and
//! multiply by base elements (a third of an extension product in Goldilocks' cubic
//! extension), where lifting the tables would cost a full product per entry. Pairs are
//! `(j, j + half)`: the first variable is the index's top bit, as in the drivers of
//! `fastzk_runtime::sumcheck`.

use fastzk_runtime::{kernel, Arg, FieldVec, KernelField, RuntimeError, Sum, Task};

/// `s(0), s(2), s(3)` of `e·(a·b − c)` over pair `j`: the constraint side in the base
/// field at each point, then one product by the base.
#[kernel]
pub fn outer_first_message<F: KernelField>(
    j: usize,
    e: &[F],
    a: &[F::Base],
    b: &[F::Base],
    c: &[F::Base],
    half: usize,
) -> [F; 3] {
    let a0 = a[j];
    let b0 = b[j];
    let c0 = c[j];
    let e0 = e[j];
    let da = a[j + half] - a0;
    let db = b[j + half] - b0;
    let dc = c[j + half] - c0;
    let de = e[j + half] - e0;
    let a2 = a[j + half] + da;
    let b2 = b[j + half] + db;
    let c2 = c[j + half] + dc;
    let e2 = e[j + half] + de;
    [
        e0.mul_by_base(a0 * b0 - c0),
        e2.mul_by_base(a2 * b2 - c2),
        (e2 + de).mul_by_base((a2 + da) * (b2 + db) - (c2 + dc)),
    ]
}

/// The three base-field tables with their first variable bound to `r`.
#[kernel]
pub fn bind_base3<F: KernelField>(
    j: usize,
    a: &[F::Base],
    b: &[F::Base],
    c: &[F::Base],
    half: usize,
    r: F,
) -> [F; 3] {
    [
        F::lift(a[j]) + r.mul_by_base(a[j + half] - a[j]),
        F::lift(b[j]) + r.mul_by_base(b[j + half] - b[j]),
        F::lift(c[j]) + r.mul_by_base(c[j + half] - c[j]),
    ]
}

/// `s(0), s(2)` of `m·z` and of `m·R` over pair `j`, `z` and `R` in the base field.
#[kernel]
pub fn inner_first_message<F: KernelField>(
    j: usize,
    m: &[F],
    z: &[F::Base],
    mask: &[F::Base],
    half: usize,
) -> [F; 4] {
    let m0 = m[j];
    let m2 = m[j + half] + m[j + half] - m0;
    let z2 = z[j + half] + z[j + half] - z[j];
    let r2 = mask[j + half] + mask[j + half] - mask[j];
    [
        m0.mul_by_base(z[j]),
        m0.mul_by_base(mask[j]),
        m2.mul_by_base(z2),
        m2.mul_by_base(r2),
    ]
}

/// A table with its first variable bound to `r`.
#[kernel]
pub fn bind_first<F: KernelField>(j: usize, v: &[F], half: usize, r: F) -> F {
    v[j] + r * (v[j + half] - v[j])
}

/// `Z + ρ'·R` with its first variable bound to `r`: `z_0 + ρ'·R_0 + r·Δz + rρ'·ΔR`, the
/// differences in the base field.
#[kernel]
pub fn bind_masked<F: KernelField>(
    j: usize,
    z: &[F::Base],
    mask: &[F::Base],
    half: usize,
    rho: F,
    r: F,
    r_rho: F,
) -> F {
    F::lift(z[j])
        + rho.mul_by_base(mask[j])
        + r.mul_by_base(z[j + half] - z[j])
        + r_rho.mul_by_base(mask[j + half] - mask[j])
}

/// `Az, Bz, Cz` at row `i`, zero past the constraints' `n` rows, and 1 where a
/// constraint row is unsatisfied (`a·b ≠ c`), 0 elsewhere (summed: how many are).
#[kernel]
pub fn padded_product_row<F: KernelField>(i: usize, a: &[F], b: &[F], c: &[F], n: usize) -> [F; 4] {
    let inside = i < n;
    let x = if inside { a[i] } else { F::ZERO };
    let y = if inside { b[i] } else { F::ZERO };
    let w = if inside { c[i] } else { F::ZERO };
    let bad = if x * y == w { F::ZERO } else { F::ONE };
    [x, y, w, bad]
}

/// Half a table's length, refused unless it is an even length of at least 2.
fn half_of(len: usize, what: &'static str) -> Result<usize, RuntimeError> {
    if len < 2 || !len.is_multiple_of(2) {
        return Err(RuntimeError::Call {
            kernel: what,
            what: format!("a table of even length, at least 2 ({len} given)"),
        });
    }
    Ok(len / 2)
}

/// The outer sumcheck's first message for `eq·(Az·Bz − Cz)`.
pub fn outer_first<E: KernelField>(
    task: &mut Task<'_>,
    eq: &FieldVec<E>,
    [a, b, c]: [&FieldVec<E::Base>; 3],
) -> Result<Vec<E>, RuntimeError> {
    let half = half_of(eq.len(), "outer_first_message")?;
    let args = [
        Arg::Vec(eq),
        Arg::BaseVec(a),
        Arg::BaseVec(b),
        Arg::BaseVec(c),
        Arg::Int(half),
    ];
    task.map_reduce(OuterFirstMessage, Sum, half, &args)
}

/// `Az, Bz, Cz` with their first variable bound to `r`, on the context.
pub fn bind_tables<E: KernelField>(
    task: &mut Task<'_>,
    [a, b, c]: [&FieldVec<E::Base>; 3],
    r: E,
) -> Result<[FieldVec<E>; 3], RuntimeError> {
    let half = half_of(a.len(), "bind_base3")?;
    let args = [
        Arg::BaseVec(a),
        Arg::BaseVec(b),
        Arg::BaseVec(c),
        Arg::Int(half),
        Arg::Field(r),
    ];
    let (v, _) = task.run(BindBase3, Sum, half, 3, &args)?;
    v.try_into()
        .map_err(|_| RuntimeError::Internal("bind_base3 makes three vectors".into()))
}

/// The inner sumcheck's first message for `M·(Z + ρ'·R)`.
pub fn inner_first<E: KernelField>(
    task: &mut Task<'_>,
    m: &FieldVec<E>,
    z: &FieldVec<E::Base>,
    mask: &FieldVec<E::Base>,
    rho: E,
) -> Result<Vec<E>, RuntimeError> {
    let half = half_of(m.len(), "inner_first_message")?;
    let args = [
        Arg::Vec(m),
        Arg::BaseVec(z),
        Arg::BaseVec(mask),
        Arg::Int(half),
    ];
    let s = task.map_reduce(InnerFirstMessage, Sum, half, &args)?;
    Ok(vec![s[0] + rho * s[1], s[2] + rho * s[3]])
}

/// `M` and `Z + ρ'·R` with their first variable bound to `r`, on the context.
pub fn bind_inner<E: KernelField>(
    task: &mut Task<'_>,
    m: &FieldVec<E>,
    z: &FieldVec<E::Base>,
    mask: &FieldVec<E::Base>,
    rho: E,
    r: E,
) -> Result<[FieldVec<E>; 2], RuntimeError> {
    let half = half_of(m.len(), "bind_first")?;
    let m = task.map(
        BindFirst,
        half,
        &[Arg::Vec(m), Arg::Int(half), Arg::Field(r)],
    )?;
    let args = [
        Arg::BaseVec(z),
        Arg::BaseVec(mask),
        Arg::Int(half),
        Arg::Field(rho),
        Arg::Field(r),
        Arg::Field(r * rho),
    ];
    Ok([m, task.map(BindMasked, half, &args)?])
}

/// `Az, Bz, Cz` padded with zeros to `rows` entries, and how many of their rows are
/// unsatisfied (`a·b ≠ c`; as a field element, so zero when none is).
pub fn padded_products<F: KernelField>(
    task: &mut Task<'_>,
    [a, b, c]: [&FieldVec<F>; 3],
    rows: usize,
) -> Result<([FieldVec<F>; 3], F), RuntimeError> {
    let n = a.len();
    if b.len() != n || c.len() != n || rows < n {
        return Err(RuntimeError::Call {
            kernel: "padded_product_row",
            what: format!(
                "products of {}, {} and {} rows padded to {rows}",
                n,
                b.len(),
                c.len()
            ),
        });
    }
    let args = [Arg::Vec(a), Arg::Vec(b), Arg::Vec(c), Arg::Int(n)];
    let (v, sums) = task.run(PaddedProductRow, Sum, rows, 3, &args)?;
    let [pa, pb, pc]: [FieldVec<F>; 3] = v
        .try_into()
        .map_err(|_| RuntimeError::Internal("three vectors expected".into()))?;
    Ok(([pa, pb, pc], sums[0]))
}

#[cfg(test)]
mod tests {
    //! Each step against its formula written out over lifted tables, on the CPU (the
    //! device runs them in `tests/suite/device.rs`, where its proofs must equal the CPU's).
    use super::*;
    use fastzk_field::{bn254, Field, Goldilocks, GoldilocksExt3};
    use fastzk_runtime::Context;
    use fastzk_testing::gen::{elements, rng};

    fn lifted<E: KernelField>(v: &[E::Base]) -> Vec<E> {
        v.iter().map(|b| E::lift(*b)).collect()
    }

    /// `v` at `t` on pair `j`: `v[j] + t·(v[j + half] − v[j])`.
    fn at<E: KernelField>(v: &[E], j: usize, half: usize, t: u64) -> E {
        v[j] + E::from_u64(t) * (v[j + half] - v[j])
    }

    fn steps_match_their_formulas<E: KernelField>() {
        let ctx = Context::cpu();
        for (seed, n) in [(1u64, 2usize), (2, 8), (3, 1024)] {
            let mut g = rng(seed);
            let half = n / 2;
            let base = |g: &mut _| -> Vec<E::Base> { elements(g, n) };
            let (a, b, c, z, mask) = (
                base(&mut g),
                base(&mut g),
                base(&mut g),
                base(&mut g),
                base(&mut g),
            );
            let (e, m): (Vec<E>, Vec<E>) = (elements(&mut g, n), elements(&mut g, n));
            let (r, rho) = (E::random(&mut g), E::random(&mut g));
            let (al, bl, cl, zl, ml) = (
                lifted::<E>(&a),
                lifted::<E>(&b),
                lifted::<E>(&c),
                lifted::<E>(&z),
                lifted::<E>(&mask),
            );
            let v = |x: &[E::Base]| ctx.vec(x.to_vec());
            let (av, bv, cv, zv, maskv) = (v(&a), v(&b), v(&c), v(&z), v(&mask));
            let (ev, mv) = (ctx.vec(e.clone()), ctx.vec(m.clone()));
            let mut task = ctx.task().unwrap();

            let want: Vec<E> = [0, 2, 3]
                .iter()
                .map(|&t| {
                    (0..half)
                        .map(|j| {
                            let (x, y, w) = (
                                at(&al, j, half, t),
                                at(&bl, j, half, t),
                                at(&cl, j, half, t),
                            );
                            at(&e, j, half, t) * (x * y - w)
                        })
                        .sum()
                })
                .collect();
            assert_eq!(
                outer_first(&mut task, &ev, [&av, &bv, &cv]).unwrap(),
                want,
                "n = {n}"
            );

            let bind = |t: &[E]| -> Vec<E> {
                (0..half).map(|j| t[j] + r * (t[j + half] - t[j])).collect()
            };
            let bound = bind_tables(&mut task, [&av, &bv, &cv], r).unwrap();
            for (got, t) in bound.iter().zip([&al, &bl, &cl]) {
                assert_eq!(got.to_vec().unwrap(), bind(t), "n = {n}");
            }

            let s = |v: &[E], t: u64| -> E {
                (0..half)
                    .map(|j| at(&m, j, half, t) * at(v, j, half, t))
                    .sum()
            };
            let want = vec![s(&zl, 0) + rho * s(&ml, 0), s(&zl, 2) + rho * s(&ml, 2)];
            assert_eq!(
                inner_first(&mut task, &mv, &zv, &maskv, rho).unwrap(),
                want,
                "n = {n}"
            );

            let [mb, zb] = bind_inner(&mut task, &mv, &zv, &maskv, rho, r).unwrap();
            let zr: Vec<E> = zl.iter().zip(&ml).map(|(x, y)| *x + rho * *y).collect();
            assert_eq!(mb.to_vec().unwrap(), bind(&m), "n = {n}");
            assert_eq!(zb.to_vec().unwrap(), bind(&zr), "n = {n}");
        }
    }

    #[test]
    fn steps_match_their_formulas_goldilocks_ext3() {
        steps_match_their_formulas::<GoldilocksExt3>();
    }

    #[test]
    fn steps_match_their_formulas_bn254() {
        steps_match_their_formulas::<bn254::Fr>();
    }

    /// The padded products and the count of unsatisfied rows, with none, one (the first,
    /// the last) and several rows broken; padding shorter than the rows refused.
    #[test]
    fn products_are_padded_and_their_unsatisfied_rows_counted() {
        type F = Goldilocks;
        let ctx = Context::cpu();
        let mut task = ctx.task().unwrap();
        let mut g = rng(4);
        for (n, rows) in [(0usize, 2usize), (1, 2), (5, 8), (1000, 1024), (1024, 1024)] {
            let a: Vec<F> = elements(&mut g, n);
            let b: Vec<F> = elements(&mut g, n);
            let good: Vec<F> = a.iter().zip(&b).map(|(x, y)| *x * *y).collect();
            let broken: Vec<Vec<usize>> = if n == 0 {
                vec![vec![]]
            } else {
                vec![vec![], vec![0], vec![n - 1], (0..n).step_by(3).collect()]
            };
            for bad in broken {
                let mut c = good.clone();
                bad.iter().for_each(|&i| c[i] += F::ONE);
                let v = |x: &[F]| ctx.vec(x.to_vec());
                let (p, count) =
                    padded_products(&mut task, [&v(&a), &v(&b), &v(&c)], rows).unwrap();
                assert_eq!(count, F::from_u64(bad.len() as u64), "{n} rows, {bad:?}");
                for (got, want) in p.iter().zip([&a, &b, &c]) {
                    let mut want = want.clone();
                    want.resize(rows, F::ZERO);
                    assert_eq!(got.to_vec().unwrap(), want, "{n} rows");
                }
            }
        }
        let one = ctx.vec(vec![F::ONE; 3]);
        assert!(padded_products(&mut task, [&one, &one, &one], 2).is_err());
        let two = ctx.vec(vec![F::ONE; 2]);
        assert!(padded_products(&mut task, [&one, &two, &one], 4).is_err());
    }

    #[test]
    fn odd_and_short_tables_are_refused() {
        let ctx = Context::cpu();
        let mut task = ctx.task().unwrap();
        let one = ctx.vec(vec![Goldilocks::ONE]);
        let e = ctx.vec(vec![GoldilocksExt3::ONE]);
        assert!(matches!(
            outer_first(&mut task, &e, [&one, &one, &one]),
            Err(RuntimeError::Call { .. })
        ));
        let three = ctx.vec(vec![Goldilocks::ONE; 3]);
        assert!(bind_tables(&mut task, [&three, &three, &three], GoldilocksExt3::ONE).is_err());
        // Tables shorter than the weights: a fault, not a panic.
        let e4 = ctx.vec(vec![GoldilocksExt3::ONE; 4]);
        let two = ctx.vec(vec![Goldilocks::ONE; 2]);
        assert!(matches!(
            outer_first(&mut task, &e4, [&two, &two, &two]),
            Err(RuntimeError::Fault { .. })
        ));
    }
}
