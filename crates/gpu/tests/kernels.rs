//! Every kernel against the CPU: field arithmetic, group formulas, the MSM suite and the
//! NTT suite, on the first OpenCL device (PoCL in CI; `FASTZK_TEST_OPENCL_DEVICE=i` picks
//! another), or on CUDA device `i` with `FASTZK_TEST_CUDA_DEVICE=i` (on a GPU host). Checks that need a device or NVRTC are reported ignored, with the reason,
//! where there is none. The errors a machine without a driver gives are checked too.

use std::sync::Arc;

use fastzk_curve::{bls12_381, bn254, Affine, Jacobian};
use fastzk_field::{Field, Goldilocks, GoldilocksExt2, GoldilocksExt3};
use fastzk_gpu::source::{
    affine_words, from_words, jacobian_from_words, to_words, xyzz_from_words,
};
use fastzk_gpu::{
    Arg, Backend, Device, DeviceCurve, DeviceField, DeviceMsm, DeviceNtt, GpuError, Source,
};
use fastzk_testing::gen::{edge_elements, elements, points, rng};
use fastzk_testing::Trials;

fn opencl() -> Result<Arc<Device>, String> {
    Device::for_tests()
}

fn opencl_available() -> Result<(), &'static str> {
    Device::for_tests_available()
}

fn device() -> Arc<Device> {
    opencl().expect("checked by the trial")
}

/// a + b, a − b, a·b, a², −a on the device for every pair, against the host.
fn field_arith<F: DeviceField>() {
    let d = device();
    let mut r = rng(7);
    let mut a: Vec<F> = elements(&mut r, 200);
    let mut b: Vec<F> = elements(&mut r, 200);
    for x in edge_elements::<F>() {
        for y in edge_elements::<F>() {
            a.push(x);
            b.push(y);
        }
    }
    // On CUDA, the PTX carry chains and the portable ones (OpenCL has only the latter).
    let mut sources = vec![Source::new()];
    if d.info().backend == Backend::Cuda {
        sources.push(Source::with_portable_carries());
    }
    for mut src in sources {
        src.field_checks::<F>();
        check_field_arith(&d, src.text(), &a, &b);
    }
}

fn check_field_arith<F: DeviceField>(d: &Device, src: &str, a: &[F], b: &[F]) {
    let prog = d.program(src).unwrap();
    let (ab, bb) = (
        d.upload(&to_words(a)).unwrap(),
        d.upload(&to_words(b)).unwrap(),
    );
    let out = d.alloc(8 * 5 * F::WORDS * a.len()).unwrap();
    d.launch(
        &prog,
        &format!("{}_check_arith", F::DEVICE_NAME),
        a.len(),
        &[
            Arg::Buf(&ab),
            Arg::Buf(&bb),
            Arg::U32(a.len() as u32),
            Arg::Buf(&out),
        ],
    )
    .unwrap();
    let got: Vec<F> = from_words(&d.read_vec(&out, 5 * F::WORDS * a.len()).unwrap());
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        let want = [x + y, x - y, x * y, x.square(), -x];
        assert_eq!(
            got[5 * i..5 * i + 5],
            want,
            "{} pair {i}: {x:?}, {y:?}",
            F::DEVICE_NAME
        );
    }
}

/// The XYZZ and Jacobian formulas on random, equal and opposite pairs.
fn group_formulas<C: DeviceCurve>() {
    let d = device();
    let ps = points::<C>(40, 3);
    let qs = points::<C>(40, 4);
    let mut p: Vec<Affine<C>> = ps.clone();
    let mut q: Vec<Affine<C>> = qs;
    p.extend_from_slice(&ps[..5]);
    q.extend_from_slice(&ps[..5]); // p = q: the doubling path
    p.extend_from_slice(&ps[5..10]);
    q.extend(ps[5..10].iter().map(|x| -*x)); // q = −p: the identity
    let n = p.len();
    let words = |v: &[Affine<C>]| {
        let mut w = Vec::new();
        v.iter().for_each(|x| affine_words(x, &mut w));
        w
    };
    let mut src = Source::new();
    src.msm::<C>();
    let prog = d.program(src.text()).unwrap();
    let (pb, qb) = (d.upload(&words(&p)).unwrap(), d.upload(&words(&q)).unwrap());
    let k = C::Base::WORDS;
    let xo = d.alloc(8 * 5 * 4 * k * n).unwrap();
    let jo = d.alloc(8 * 4 * 3 * k * n).unwrap();
    d.launch(
        &prog,
        &format!("{}_check_formulas", C::DEVICE_NAME),
        n,
        &[
            Arg::Buf(&pb),
            Arg::Buf(&qb),
            Arg::U32(n as u32),
            Arg::Buf(&xo),
            Arg::Buf(&jo),
        ],
    )
    .unwrap();
    let xs: Vec<u64> = d.read_vec(&xo, 5 * 4 * k * n).unwrap();
    let js: Vec<u64> = d.read_vec(&jo, 4 * 3 * k * n).unwrap();
    for i in 0..n {
        let (a, b) = (p[i].to_jacobian(), q[i].to_jacobian());
        let s = a + b;
        let want_x = [
            s,
            a.double(),
            s + b.double(),
            s.double(),
            Jacobian::identity(),
        ];
        for (j, w) in want_x.iter().enumerate() {
            let at = (5 * i + j) * 4 * k;
            let got = xyzz_from_words::<C>(&xs[at..at + 4 * k]).to_jacobian();
            assert_eq!(got, *w, "{} xyzz formula {j}, pair {i}", C::DEVICE_NAME);
        }
        let want_j = [s, s.double(), s + b.double(), s.double()];
        for (j, w) in want_j.iter().enumerate() {
            let at = (4 * i + j) * 3 * k;
            assert_eq!(
                jacobian_from_words::<C>(&js[at..at + 3 * k]),
                *w,
                "{} jacobian formula {j}, pair {i}",
                C::DEVICE_NAME
            );
        }
    }
}

/// The MSM conformance suite with the device engine (default and small windows).
fn msm_suite<C: DeviceCurve>(n: usize) {
    // Pieces of 7 points: several overlapped uploads, the last one short.
    let engines = vec![
        DeviceMsm::new(device()),
        DeviceMsm::new(device()).with_window(3).unwrap(),
        DeviceMsm::new(device()).with_piece(7),
    ];
    fastzk_testing::msm::every_shape::<C, _>(&engines, n);
    fastzk_testing::msm::small_random_inputs::<C, _>(&engines, 12);
    fastzk_testing::msm::length_mismatch_is_an_error::<C, _>(&engines);
    // Bases uploaded once serve several MSMs (with the point at infinity among them).
    let e = &engines[0];
    let mut pts = points::<C>(70, 8);
    pts[3] = Affine::identity();
    let resident = e.upload_bases(&pts).unwrap();
    let mut r = rng(n as u64);
    for _ in 0..3 {
        let ks: Vec<C::Scalar> = elements(&mut r, pts.len());
        let want = fastzk_testing::msm::naive(&pts, &ks);
        assert_eq!(e.msm_resident(&resident, &ks).unwrap(), want, "resident");
    }
    // Fewer scalars than bases: an MSM over the first bases (none, 1, 69); more: refused.
    for k in [0, 1, pts.len() - 1] {
        let ks: Vec<C::Scalar> = elements(&mut r, k);
        let want = fastzk_testing::msm::naive(&pts[..k], &ks);
        assert_eq!(
            e.msm_resident(&resident, &ks).unwrap(),
            want,
            "prefix of {k}"
        );
    }
    let more: Vec<C::Scalar> = elements(&mut r, pts.len() + 1);
    assert!(
        e.msm_resident(&resident, &more).is_err(),
        "more scalars than bases"
    );
    // Precomputed tables (every window's shift of each base): one window over n·m points.
    for c in [3, 8] {
        let table = fastzk_msm::PrecomputedBases::new(&pts, c).unwrap();
        let pre = e.upload_precomputed(&table).unwrap();
        assert_eq!((pre.len(), pre.precomputed_window()), (pts.len(), Some(c)));
        assert_eq!(
            pre.device_bytes(),
            table.table().len() * 16 * C::Base::WORDS
        );
        let k = pts.len();
        let short: Vec<C::Scalar> = elements(&mut r, k - 1);
        assert!(
            e.msm_resident(&pre, &short).is_err(),
            "a table takes all its bases"
        );
        let random: Vec<C::Scalar> = elements(&mut r, k);
        for (what, ks) in [
            ("random", random.clone()),
            ("zeros", vec![C::Scalar::ZERO; k]),
            ("ones", vec![C::Scalar::ONE; k]),
            ("p − 1", vec![-C::Scalar::ONE; k]),
            ("all equal", vec![random[0]; k]),
        ] {
            let want = fastzk_testing::msm::naive(&pts, &ks);
            assert_eq!(
                e.msm_resident(&pre, &ks).unwrap(),
                want,
                "precomputed, c = {c}, {what}"
            );
        }
    }
}

/// Streams, events, pinned memory and the pool: uploads on one stream (one buffer in two
/// pieces at offsets), the field checks on a second that waits for them, the download on a
/// third that waits for the kernel — the results the host's; pooled buffers and pinned
/// memory come back on the next request; copies that do not fit are refused.
fn streams_and_pool() {
    type F = fastzk_field::bn254::Fr;
    // A device of its own: the other checks use the shared one's pool at the same time.
    let info = device().info().clone();
    let d = Device::open(info.backend, info.index).unwrap();
    let mut src = Source::new();
    src.field_checks::<F>();
    let prog = d.program(src.text()).unwrap();
    let mut r = rng(21);
    let n = 1000;
    let (a, b): (Vec<F>, Vec<F>) = (elements(&mut r, n), elements(&mut r, n));
    let bytes = 8 * F::WORDS * n;
    let (ab, bb) = (d.scratch(bytes).unwrap(), d.scratch(bytes).unwrap());
    let out = d.scratch(5 * bytes).unwrap();
    let (s1, s2, s3) = (
        d.stream().unwrap(),
        d.stream().unwrap(),
        d.stream().unwrap(),
    );
    let (aw, bw) = (to_words(&a), to_words(&b));
    let cut = 300 * F::WORDS;
    for (buf, at, words) in [
        (&ab, 0, &aw[..cut]),
        (&ab, 8 * cut, &aw[cut..]),
        (&bb, 0, &bw[..]),
    ] {
        let mut p = d.pinned(8 * words.len()).unwrap();
        p.as_mut_slice::<u64>().unwrap().copy_from_slice(words);
        s1.upload(buf, at, &mut p).unwrap();
    }
    s2.wait(&s1.record().unwrap()).unwrap();
    s2.launch(
        &prog,
        &format!("{}_check_arith", F::DEVICE_NAME),
        n,
        &[
            Arg::Buf(&ab),
            Arg::Buf(&bb),
            Arg::U32(n as u32),
            Arg::Buf(&out),
        ],
    )
    .unwrap();
    s3.wait(&s2.record().unwrap()).unwrap();
    let mut got = d.pinned(5 * bytes).unwrap();
    s3.download(&out, 0, &mut got).unwrap();
    let got: Vec<F> = from_words(got.as_slice::<u64>().unwrap());
    for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(
            got[5 * i..5 * i + 5],
            [x + y, x - y, x * y, x.square(), -x],
            "pair {i}"
        );
    }
    // A zeroed buffer reads back as zeros; a copy past the end is an error.
    s3.zero(&out, 5 * bytes).unwrap();
    let mut zeros = d.pinned(5 * bytes).unwrap();
    s3.download(&out, 0, &mut zeros).unwrap();
    assert!(zeros.as_slice::<u64>().unwrap().iter().all(|&w| w == 0));
    assert!(s3.download(&out, 8, &mut zeros).is_err(), "past the end");
    let mut small = d.pinned(16).unwrap();
    assert!(
        s1.upload(&ab, bytes - 8, &mut small).is_err(),
        "past the end"
    );
    drop((s1, s2, s3));
    // Back to the pool and out again without an allocation (same size class).
    drop((ab, bb, out, got, zeros, small));
    let before = d.pool_stats();
    assert!(before.idle_device_bytes >= 7 * bytes && before.idle_pinned_bytes > 0);
    let again = d.scratch(bytes - 100).unwrap();
    let pinned = d.pinned(5 * bytes).unwrap();
    let after = d.pool_stats();
    assert_eq!(after.reused, before.reused + 2);
    assert_eq!(after.allocated, before.allocated);
    assert_eq!(again.len(), bytes - 100);
    assert_eq!(pinned.len(), 5 * bytes);
    // A buffer dropped while a stream is alive is not handed out before the stream is gone.
    drop((again, pinned));
    let s = d.stream().unwrap();
    let a = d.scratch(3 * bytes).unwrap();
    drop(a);
    let before = d.pool_stats();
    let b = d.scratch(3 * bytes).unwrap();
    assert_eq!(
        d.pool_stats().allocated,
        before.allocated + 1,
        "not reused under a stream"
    );
    drop((b, s));
    let before = d.pool_stats();
    let _c = d.scratch(3 * bytes).unwrap();
    assert_eq!(
        d.pool_stats().reused,
        before.reused + 1,
        "reused once no stream is alive"
    );
}

/// The MSM's device prefix sums against the host's, across one, two and three levels of
/// work-group scans (64 threads a group on OpenCL), plain and as chunk counts.
fn prefix_sums_match_host() {
    use rand::Rng;
    let d = device();
    let mut r = rng(31);
    for n in [0usize, 1, 2, 63, 64, 65, 4095, 4096, 4097, 300_001] {
        let values: Vec<u32> = (0..n)
            .map(|i| match i % 5 {
                0 => 0,
                1 => 1,
                2 => 32,
                3 => 33,
                _ => r.gen_range(0..1000),
            })
            .collect();
        for div in [0, 32] {
            let f = |v: u32| if div == 0 { v } else { v.div_ceil(div) };
            let mut want = Vec::with_capacity(n + 1);
            let mut at = 0u32;
            for &v in &values {
                want.push(at);
                at += f(v);
            }
            want.push(at);
            let got = fastzk_gpu::msm::prefix_sums(&d, &values, div).unwrap();
            assert_eq!(got, want, "{n} values, div {div}");
        }
    }
}

/// SpMV against the CPU's on random matrices with empty rows, a row longer than many
/// chunks, and edge values; and `a·b − c`.
fn spmv_matches_cpu<F: DeviceField>() {
    use fastzk_gpu::spmv::{DeviceSpmv, CHUNK};
    use rand::Rng;
    let d = device();
    let s = DeviceSpmv::<F>::new(d.clone()).unwrap();
    let mut r = rng(11);
    for (rows, cols) in [(0usize, 3usize), (1, 1), (37, 50), (300, 129)] {
        let mut entries = Vec::new();
        for i in 0..rows {
            let len = match i % 7 {
                0 => 0,
                1 => 5 * CHUNK + 3,
                _ => r.gen_range(1..12),
            };
            let row: Vec<(u32, F)> = (0..len)
                .map(|_| (r.gen_range(0..cols as u32), elements::<F>(&mut r, 1)[0]))
                .collect();
            entries.push(row);
        }
        let m = fastzk_r1cs::Csr::from_rows(cols, entries).unwrap();
        let z: Vec<F> = elements(&mut r, cols);
        let want = fastzk_r1cs::spmv(&m, &z);
        let zb = d.upload(&to_words(&z)).unwrap();
        let y = s.apply(&s.upload(&m).unwrap(), &zb).unwrap();
        let got: Vec<F> = from_words(&d.read_vec(&y, rows * F::WORDS).unwrap());
        assert_eq!(got, want, "{} {rows}×{cols}", F::DEVICE_NAME);
        if rows > 0 {
            let out = d.alloc(rows * F::WORDS * 8).unwrap();
            s.mul_sub(&y, &y, &y, rows, &out).unwrap();
            let got: Vec<F> = from_words(&d.read_vec(&out, rows * F::WORDS).unwrap());
            let want2: Vec<F> = want.iter().map(|x| x.square() - *x).collect();
            assert_eq!(got, want2, "{} a·b − c", F::DEVICE_NAME);
        }
    }
}

/// Two or more OpenCL devices (`POCL_DEVICES="pthread pthread"` makes PoCL show two).
fn opencl_devices() -> Vec<Arc<Device>> {
    Device::all(Backend::OpenCl)
        .into_iter()
        .map(Arc::new)
        .collect()
}

fn several_devices() -> Result<(), &'static str> {
    match fastzk_gpu::devices(Backend::OpenCl) {
        Ok(d) if d.len() >= 2 => Ok(()),
        _ => Err("fewer than two OpenCL devices (POCL_DEVICES=\"pthread pthread\" gives two)"),
    }
}

/// The MSM suite with one MSM split over every OpenCL device.
fn msm_split<C: DeviceCurve>(n: usize) {
    let engines = vec![fastzk_gpu::MultiDeviceMsm::new(opencl_devices()).unwrap()];
    fastzk_testing::msm::every_shape::<C, _>(&engines, n);
    fastzk_testing::msm::small_random_inputs::<C, _>(&engines, 8);
    fastzk_testing::msm::length_mismatch_is_an_error::<C, _>(&engines);
}

/// The NTT conformance suite with the device transform.
fn ntt_suite<F: DeviceField + fastzk_field::NttField>(max_log: u32) {
    let make = |k| DeviceNtt::<F>::with_log_size(device(), k).unwrap();
    fastzk_testing::ntt::matches_naive_dft(make, max_log);
    fastzk_testing::ntt::batches_match_single(&make(5), 3);
    fastzk_testing::ntt::round_trips(make, max_log + 2);
    // Past one tile: 2^12 is two passes for every field (a tile holds 2^9 or 2^11).
    fastzk_testing::ntt::spot_check(&make(12));
    // Every element through several passes, with a remainder (3 + 3 + 2 levels at 2^8).
    for levels in [1, 3] {
        let few = |k| make(k).with_levels_per_pass(levels);
        fastzk_testing::ntt::matches_naive_dft(few, max_log);
        fastzk_testing::ntt::batches_match_single(&few(7), 3);
    }
}

/// Groth16 with the NTTs and MSMs on the device: the same proof as on the CPU for the
/// same r, s (and the prover's own verification passes).
fn groth16_on_device<E: fastzk_pairing::PairingCurve>()
where
    E::G1: DeviceCurve,
    E::G2: DeviceCurve,
    E::Fr: DeviceField,
{
    use fastzk_groth16::{prove_with_rng, setup_random, ProveOptions};
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;
    let offload = fastzk_gpu::groth16::DeviceOffload::new(device());
    for (proofs, (log, n_public)) in [(1, (4, 1)), (2, (9, 3))] {
        let params = fastzk_r1cs::synth::SynthParams {
            n_public,
            ..fastzk_r1cs::synth::SynthParams::new(log)
        };
        let (r1cs, z) =
            fastzk_r1cs::synth::synthesize::<E::Fr>(&params, &mut rng(log as u64)).unwrap();
        let pk = setup_random::<E>(&r1cs, &mut ChaCha20Rng::seed_from_u64(5)).unwrap();
        let on_cpu = prove_with_rng(
            &pk,
            &z,
            &ProveOptions::default(),
            &mut ChaCha20Rng::seed_from_u64(9),
        )
        .unwrap()
        .0;
        let opts = ProveOptions {
            offload: Some(&offload),
            ..ProveOptions::default()
        };
        let on_device = prove_with_rng(&pk, &z, &opts, &mut ChaCha20Rng::seed_from_u64(9))
            .unwrap()
            .0;
        assert_eq!(on_device, on_cpu, "2^{log}");
        // All five MSMs ran on the bases uploaded while the quotient ran.
        assert_eq!(offload.msms_on_prefetched_bases(), 5 * proofs, "2^{log}");
    }
}

/// The test hooks' kernels (the runtime's are `Source::all_kernels`).
fn hook_sources() -> String {
    let mut s = Source::new();
    s.field_checks::<fastzk_field::bn254::Fr>()
        .field_checks::<fastzk_field::bn254::Fq2>()
        .field_checks::<fastzk_field::bls12_381::Fr>()
        .field_checks::<fastzk_field::bls12_381::Fq2>()
        .field_checks::<Goldilocks>()
        .field_checks::<GoldilocksExt2>()
        .field_checks::<GoldilocksExt3>();
    s.text().to_string()
}

/// NVRTC compiles every kernel (the runtime's by family, and the test hooks', two at a
/// time) for sm_80, the oldest architecture they target, and ptxas (FASTZK_PTXAS or on the
/// PATH) assembles the PTX, inline carry chains included. The kernels have no
/// per-architecture code; CI compiles and assembles the runtime's for sm_90 in the static
/// model's check (`fastzk gpu model --check`), and a GPU host for its own device when they
/// run. Each compile takes a minute of a core, so one architecture here (CI's time).
fn nvrtc_compiles_everything() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let mut jobs: Vec<(String, String)> = Source::kernel_families()
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("family{i}"), s.text().to_string()))
        .collect();
    jobs.push(("hooks".into(), hook_sources()));
    let next = AtomicUsize::new(0);
    let entries: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut ptx = String::new();
                    while let Some((name, src)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                        ptx += &compile_and_assemble(name, src, "sm_80");
                    }
                    ptx
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let ptx = entries.concat();
    for kernel in [
        "bn254_g1_msm_chunk_sums",
        "bls12_381_g2_msm_reduce",
        "gl_ntt_tile",
    ] {
        assert!(
            ptx.contains(&format!(".entry {kernel}")),
            "{kernel} missing"
        );
    }
    // The counting build (what a counting device compiles) is valid CUDA too.
    let runtime = Source::all_kernels().text().to_string();
    let counting = format!("#define FZ_COUNT 1\n{runtime}");
    fastzk_gpu::cuda::check_syntax(&counting, "sm_90").unwrap_or_else(|e| panic!("{e}"));
    // The front-end check catches errors (it is not a no-op).
    let broken = format!("{runtime}\nKERNEL fz_broken(u32 x) {{ undefined_call(x); }}\n");
    assert!(fastzk_gpu::cuda::check_syntax(&broken, "sm_90").is_err());
}

/// `src` (called `name` in its scratch folder's name) through NVRTC and ptxas for
/// `arch`; the PTX.
fn compile_and_assemble(name: &str, src: &str, arch: &'static str) -> String {
    let ptx = fastzk_gpu::cuda::compile_ptx(src, arch).unwrap_or_else(|e| panic!("{e}"));
    let ptxas = std::env::var("FASTZK_PTXAS").unwrap_or_else(|_| "ptxas".into());
    let dir = std::env::temp_dir().join(format!("fastzk-ptx-{}-{name}-{arch}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("all.ptx");
    std::fs::write(&file, &ptx).unwrap();
    match std::process::Command::new(&ptxas)
        .args([&format!("-arch={arch}"), "-o"])
        .arg(dir.join("all.cubin"))
        .arg(&file)
        .output()
    {
        Ok(o) => assert!(
            o.status.success(),
            "ptxas {arch}: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => println!("ptxas not run ({ptxas}: {e}); PTX from NVRTC only"),
    }
    std::fs::remove_dir_all(&dir).ok();
    ptx
}

fn nvrtc_available() -> Result<(), &'static str> {
    fastzk_gpu::cuda::nvrtc_present()
        .map_err(|_| "NVRTC not found (pip nvidia-cuda-nvrtc, on LD_LIBRARY_PATH)")
}

fn main() {
    let mut t = Trials::default();
    // First, so that its minute and a half of compiling overlaps the device checks.
    t.when(
        "device::nvrtc::compiles_every_kernel",
        nvrtc_available(),
        nvrtc_compiles_everything,
    );
    let cl = opencl_available;
    t.when(
        "device::field::bn254_fr",
        cl(),
        field_arith::<fastzk_field::bn254::Fr>,
    );
    t.when(
        "device::field::bn254_fq",
        cl(),
        field_arith::<fastzk_field::bn254::Fq>,
    );
    t.when(
        "device::field::bn254_fq2",
        cl(),
        field_arith::<fastzk_field::bn254::Fq2>,
    );
    t.when(
        "device::field::bls12_381_fr",
        cl(),
        field_arith::<fastzk_field::bls12_381::Fr>,
    );
    t.when(
        "device::field::bls12_381_fq",
        cl(),
        field_arith::<fastzk_field::bls12_381::Fq>,
    );
    t.when(
        "device::field::bls12_381_fq2",
        cl(),
        field_arith::<fastzk_field::bls12_381::Fq2>,
    );
    t.when("device::field::goldilocks", cl(), field_arith::<Goldilocks>);
    t.when(
        "device::field::goldilocks_ext2",
        cl(),
        field_arith::<GoldilocksExt2>,
    );
    t.when(
        "device::field::goldilocks_ext3",
        cl(),
        field_arith::<GoldilocksExt3>,
    );
    t.when(
        "device::group::bn254_g1",
        cl(),
        group_formulas::<bn254::G1Config>,
    );
    t.when(
        "device::group::bn254_g2",
        cl(),
        group_formulas::<bn254::G2Config>,
    );
    t.when(
        "device::group::bls12_381_g1",
        cl(),
        group_formulas::<bls12_381::G1Config>,
    );
    t.when(
        "device::group::bls12_381_g2",
        cl(),
        group_formulas::<bls12_381::G2Config>,
    );
    t.when("device::streams_and_pool", cl(), streams_and_pool);
    t.when("device::msm::prefix_sums", cl(), prefix_sums_match_host);
    t.when("device::msm::bn254_g1", cl(), || {
        msm_suite::<bn254::G1Config>(300)
    });
    t.when("device::msm::bn254_g2", cl(), || {
        msm_suite::<bn254::G2Config>(64)
    });
    t.when("device::msm::bls12_381_g1", cl(), || {
        msm_suite::<bls12_381::G1Config>(200)
    });
    t.when("device::msm::bls12_381_g2", cl(), || {
        msm_suite::<bls12_381::G2Config>(48)
    });
    t.when("device::msm::split::bn254_g1", several_devices(), || {
        msm_split::<bn254::G1Config>(300)
    });
    t.when(
        "device::msm::split::bls12_381_g2",
        several_devices(),
        || msm_split::<bls12_381::G2Config>(40),
    );
    t.when(
        "device::spmv::bn254_fr",
        cl(),
        spmv_matches_cpu::<fastzk_field::bn254::Fr>,
    );
    t.when(
        "device::spmv::bls12_381_fr",
        cl(),
        spmv_matches_cpu::<fastzk_field::bls12_381::Fr>,
    );
    t.when(
        "device::spmv::goldilocks",
        cl(),
        spmv_matches_cpu::<Goldilocks>,
    );
    t.when("device::ntt::bn254_fr", cl(), || {
        ntt_suite::<fastzk_field::bn254::Fr>(8)
    });
    t.when("device::ntt::bls12_381_fr", cl(), || {
        ntt_suite::<fastzk_field::bls12_381::Fr>(8)
    });
    t.when("device::ntt::goldilocks", cl(), || {
        ntt_suite::<Goldilocks>(8)
    });
    t.when(
        "device::groth16::bn254",
        cl(),
        groth16_on_device::<fastzk_pairing::Bn254>,
    );
    t.when(
        "device::groth16::bls12_381",
        cl(),
        groth16_on_device::<fastzk_pairing::Bls12_381>,
    );
    t.when("device::errors::no_such_device", cl(), || {
        let found = fastzk_gpu::devices(Backend::OpenCl).unwrap().len();
        match Device::open(Backend::OpenCl, found) {
            Err(GpuError::NoDevice { index, .. }) => assert_eq!(index, found),
            other => panic!("expected NoDevice, got {other:?}"),
        }
    });
    t.when("device::errors::build_log", cl(), || {
        match device().program("KERNEL broken(GLOBAL u64 *a) { a[0] = undefined_name; }") {
            Err(GpuError::Build { log, .. }) => assert!(log.contains("undefined_name"), "{log}"),
            Err(e) => panic!("expected a build error, got {e}"),
            Ok(_) => panic!("a broken kernel compiled"),
        }
    });
    t.plain("device::errors::cuda_without_driver", || {
        // On a machine with an NVIDIA driver this opens a device instead, which is fine.
        if let Err(e) = Device::open(Backend::Cuda, 0) {
            let msg = e.to_string();
            assert!(msg.starts_with("cuda: "), "{msg}");
            assert!(
                matches!(
                    e,
                    GpuError::NoDriver { .. } | GpuError::NoDevice { .. } | GpuError::Driver { .. }
                ),
                "{msg}"
            );
        }
    });
    t.run()
}
