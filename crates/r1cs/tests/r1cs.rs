//! CSR construction, the three SpMV schemes against a dense reference, satisfiability,
//! and synthetic instances.

use fastzk_field::bn254::Fr;
use fastzk_field::Field;
use fastzk_r1cs::synth::{synthesize, SynthParams};
use fastzk_r1cs::{spmv, spmv_with, Csr, CsrError, R1cs, R1csError, SpmvScheme};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn dense_mul(m: &Csr<Fr>, z: &[Fr]) -> Vec<Fr> {
    let mut out = vec![Fr::ZERO; m.n_rows()];
    for (row, col, v) in m.triplets() {
        out[row] += v * z[col as usize];
    }
    out
}

fn random_matrix(rng: &mut ChaCha8Rng, rows: usize, cols: usize, lengths: &[usize]) -> Csr<Fr> {
    Csr::from_rows(
        cols,
        (0..rows).map(|i| {
            let len = lengths[i % lengths.len()];
            (0..len)
                .map(|_| (rng.gen_range(0..cols) as u32, Fr::random(rng)))
                .collect::<Vec<_>>()
        }),
    )
    .unwrap()
}

const SCHEMES: [SpmvScheme; 3] = [SpmvScheme::Scalar, SpmvScheme::Vector, SpmvScheme::Balanced];

#[test]
fn schemes_agree_with_dense_reference_on_many_shapes() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    // Uniform short rows, empty rows, one huge row, long rows, a single column.
    let shapes: [(usize, usize, Vec<usize>); 6] = [
        (5000, 3000, vec![3]),
        (3000, 100, vec![0, 0, 5, 0, 1]),
        (2000, 5000, vec![1, 1, 1, 40_000, 1, 2]),
        (40, 2000, vec![700]),
        (100, 1, vec![2]),
        (1, 10, vec![0]),
    ];
    for (rows, cols, lengths) in shapes {
        let m = random_matrix(&mut rng, rows, cols, &lengths);
        let mut z: Vec<Fr> = (0..cols).map(|_| Fr::random(&mut rng)).collect();
        z[0] = -Fr::ONE; // p − 1
        let want = dense_mul(&m, &z);
        for s in SCHEMES {
            assert_eq!(spmv_with(&m, &z, s), want, "{} on {rows}×{cols}", s.name());
        }
        assert_eq!(spmv(&m, &z), want);
    }
}

#[test]
fn scheme_choice_follows_row_statistics() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    assert_eq!(
        SpmvScheme::choose(&random_matrix(&mut rng, 10_000, 10_000, &[2, 3, 4])),
        SpmvScheme::Scalar
    );
    assert_eq!(
        SpmvScheme::choose(&random_matrix(&mut rng, 100, 1000, &[1000])),
        SpmvScheme::Vector
    );
    // One constraint summing many variables among short ones.
    let mut lengths = vec![2; 9_999];
    lengths.push(50_000);
    assert_eq!(
        SpmvScheme::choose(&random_matrix(&mut rng, 10_000, 10_000, &lengths)),
        SpmvScheme::Balanced
    );
    assert_eq!(
        SpmvScheme::choose(&Csr::<Fr>::zeros(0, 3).unwrap()),
        SpmvScheme::Scalar
    );
}

#[test]
fn empty_matrix_gives_empty_product() {
    let m = Csr::<Fr>::zeros(0, 4).unwrap();
    for s in SCHEMES {
        assert!(spmv_with(&m, &[Fr::ONE; 4], s).is_empty());
    }
    let m = Csr::<Fr>::zeros(3, 2).unwrap();
    for s in SCHEMES {
        assert_eq!(spmv_with(&m, &[Fr::ONE; 2], s), vec![Fr::ZERO; 3]);
    }
}

#[test]
fn csr_rejects_out_of_range_indices() {
    assert_eq!(
        Csr::from_rows(3, [vec![(3u32, Fr::ONE)]]),
        Err(CsrError::ColumnOutOfRange {
            entry: 0,
            col: 3,
            n_cols: 3
        })
    );
    assert_eq!(
        Csr::from_triplets(2, 3, &[(0, 1, Fr::ONE), (2, 0, Fr::ONE)]),
        Err(CsrError::RowOutOfRange {
            entry: 1,
            row: 2,
            n_rows: 2
        })
    );
    assert!(matches!(
        Csr::<Fr>::from_triplets(2, 3, &[(1, 7, Fr::ONE)]),
        Err(CsrError::ColumnOutOfRange { .. })
    ));
}

#[test]
fn csr_parts_are_validated() {
    let v = vec![Fr::ONE; 3];
    let m = Csr::from_parts(4, vec![0, 2, 2, 3], vec![0, 3, 1], v.clone()).unwrap();
    assert_eq!(m.row(0).0, &[0, 3]);
    assert_eq!(m.row(2).0, &[1]);
    for (ptr, cols) in [
        (vec![1, 2, 3], vec![0, 1, 2]),    // does not start at 0
        (vec![0, 2, 1, 3], vec![0, 1, 2]), // decreases
        (vec![0, 2], vec![0, 1, 2]),       // does not end at the entry count
        (vec![], vec![0, 1, 2]),           // no rows pointer at all
    ] {
        assert_eq!(
            Csr::from_parts(4, ptr, cols, v.clone()),
            Err(CsrError::BadRowPointers)
        );
    }
    assert_eq!(
        Csr::from_parts(4, vec![0, 3], vec![0, 4, 1], v.clone()),
        Err(CsrError::ColumnOutOfRange {
            entry: 1,
            col: 4,
            n_cols: 4
        })
    );
    assert_eq!(
        Csr::from_parts(4, vec![0, 3], vec![0, 1, 1], vec![Fr::ONE; 2]),
        Err(CsrError::BadRowPointers)
    );
}

#[test]
fn triplets_in_any_order_give_the_rows() {
    let t = [
        (1u32, 0u32, Fr::from_u64(5)),
        (0, 2, Fr::from_u64(7)),
        (1, 1, Fr::from_u64(9)),
    ];
    let m = Csr::from_triplets(3, 3, &t).unwrap();
    assert_eq!(m.row(0), (&[2u32][..], &[Fr::from_u64(7)][..]));
    assert_eq!(m.row(1).0, &[0, 1]);
    assert_eq!(m.row(2).0.len(), 0);
    assert_eq!(m.nnz(), 3);
}

fn small_system() -> (R1cs<Fr>, Vec<Fr>) {
    // z = [1, out, x, y]: x·y = out, (x + 1)·1 = y − 1 + 2 … written as rows.
    let one = Fr::ONE;
    let a = Csr::from_rows(4, [vec![(2u32, one)], vec![(2, one), (0, one)]]).unwrap();
    let b = Csr::from_rows(4, [vec![(3u32, one)], vec![(0, one)]]).unwrap();
    let c = Csr::from_rows(4, [vec![(1u32, one)], vec![(3, one)]]).unwrap();
    let r = R1cs::new(1, a, b, c).unwrap();
    let z = vec![one, Fr::from_u64(12), Fr::from_u64(3), Fr::from_u64(4)];
    (r, z)
}

#[test]
fn satisfiability_names_the_first_failing_constraint() {
    let (r, z) = small_system();
    r.check(&z).unwrap();
    let mut bad = z.clone();
    bad[1] = Fr::from_u64(13); // breaks row 0 only
    assert_eq!(r.check(&bad), Err(R1csError::Unsatisfied { index: 0 }));
    let mut bad = z.clone();
    bad[3] = Fr::from_u64(5); // breaks rows 0 and 1: the first is named
    assert_eq!(r.check(&bad), Err(R1csError::Unsatisfied { index: 0 }));
    let mut bad = z;
    bad[0] = Fr::ZERO;
    assert_eq!(r.check(&bad), Err(R1csError::WitnessConstant));
    assert_eq!(
        r.check(&[Fr::ONE; 3]),
        Err(R1csError::WitnessLength {
            expected: 4,
            got: 3
        })
    );
}

#[test]
fn r1cs_shape_is_validated() {
    let a = Csr::<Fr>::zeros(2, 4).unwrap();
    let b = Csr::<Fr>::zeros(3, 4).unwrap();
    assert!(matches!(
        R1cs::new(1, a.clone(), b, a.clone()),
        Err(R1csError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        R1cs::new(4, a.clone(), a.clone(), a),
        Err(R1csError::TooManyPublic { .. })
    ));
}

#[test]
fn synthetic_instances_are_satisfied_and_sized() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for log in [2u32, 5, 12] {
        let params = SynthParams {
            n_public: 2,
            ..SynthParams::new(log)
        };
        let (r, z) = synthesize::<Fr>(&params, &mut rng).unwrap();
        assert_eq!(r.n_constraints() + r.n_public() + 1, 1 << log);
        assert_eq!(r.n_vars(), 1 << log);
        assert_eq!(z[0], Fr::ONE);
        r.check(&z).unwrap();
        // Any single changed private value breaks some constraint.
        let mut bad = z.clone();
        let k = r.n_public() + 1;
        bad[k] += Fr::ONE;
        assert!(matches!(r.check(&bad), Err(R1csError::Unsatisfied { .. })));
    }
    // Too many public variables for the size: an error.
    let params = SynthParams {
        n_public: 10,
        ..SynthParams::new(2)
    };
    assert!(synthesize::<Fr>(&params, &mut rng).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn prop_schemes_agree(seed in any::<u64>(), rows in 0usize..300, cols in 1usize..300, maxlen in 0usize..40) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let lengths: Vec<usize> = (0..7).map(|_| rng.gen_range(0..=maxlen)).collect();
        let m = random_matrix(&mut rng, rows, cols, &lengths);
        let z: Vec<Fr> = (0..cols).map(|_| Fr::random(&mut rng)).collect();
        let want = dense_mul(&m, &z);
        for s in SCHEMES {
            prop_assert_eq!(spmv_with(&m, &z, s), want.clone());
        }
    }
}

#[test]
fn synthetic_sizes_out_of_range_say_what_the_limit_is() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let e = synthesize::<Fr>(&SynthParams::new(40), &mut rng).unwrap_err();
    assert!(matches!(e, R1csError::OutOfRange { got: 40, .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("log2 size is 40") && msg.contains("0..=30"),
        "{msg}"
    );
    let params = SynthParams {
        terms: 0,
        ..SynthParams::new(4)
    };
    let e = synthesize::<Fr>(&params, &mut rng).unwrap_err();
    assert!(e.to_string().contains("terms per row is 0"), "{e}");
}

/// The digest binds every entry: equal systems agree (cached or not, and equality
/// ignores the cache), a system with one coefficient, column or public count changed
/// does not, and the cached value is the computed one.
#[test]
fn digests_bind_the_whole_system() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let (r, _) = synthesize::<Fr>(&SynthParams::new(13), &mut rng).unwrap();
    let fresh = r.clone();
    let d = r.digest();
    assert_eq!(r.digest(), d);
    assert_eq!(fresh, r);
    let rows = |m: &Csr<Fr>| -> Vec<Vec<(u32, Fr)>> {
        (0..m.n_rows())
            .map(|i| {
                let (cs, vs) = m.row(i);
                cs.iter().copied().zip(vs.iter().copied()).collect()
            })
            .collect()
    };
    let rebuild = |a: Vec<Vec<(u32, Fr)>>, n_public: usize| {
        let n = r.n_vars();
        R1cs::new(
            n_public,
            Csr::from_rows(n, a).unwrap(),
            Csr::from_rows(n, rows(r.b())).unwrap(),
            Csr::from_rows(n, rows(r.c())).unwrap(),
        )
        .unwrap()
    };
    assert_eq!(rebuild(rows(r.a()), r.n_public()).digest(), d);
    let last = r.n_constraints() - 1;
    let mut a = rows(r.a());
    a[last][0].1 += Fr::ONE;
    assert_ne!(rebuild(a, r.n_public()).digest(), d);
    let mut a = rows(r.a());
    a[0][0].0 = (a[0][0].0 + 1) % r.n_vars() as u32;
    a[0].sort_by_key(|e| e.0);
    a[0].dedup_by_key(|e| e.0);
    assert_ne!(rebuild(a, r.n_public()).digest(), d);
    assert_ne!(rebuild(rows(r.a()), r.n_public() + 1).digest(), d);
}
