//! Plonk on a device through the single-source layer (PoCL in CI; a GPU with
//! `FASTZK_TEST_CUDA_DEVICE`): the proof is the CPU's, byte for byte, with the same
//! blinding — snarkjs' keys on BN254 and BLS12-381, held and left in the file (MSMs a
//! chunk at a time) — and it verifies; the traffic is what the pipeline says it is. The
//! trials are reported ignored, with the reason, where there is no device.

use fastzk_formats::{read_wtns, PointCheck};
use fastzk_gpu::Device;
use fastzk_pairing::{Bls12_381, Bn254, Fr};
use fastzk_plonk::{prove_with_rng, verify, ProveOptions, ProvingKey};
use fastzk_runtime::{Context, LayerPairing, Traffic};
use fastzk_testing::fixtures::path as data;
use fastzk_testing::Trials;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// The proof (and its traffic) with `key` in `ctx`, blinding from seed 7.
fn proved<E: LayerPairing>(
    key: &ProvingKey<E>,
    witness: &[Fr<E>],
    ctx: &Context,
    chunk_points: Option<usize>,
) -> (fastzk_plonk::Proof<E>, Vec<Fr<E>>, Traffic) {
    let before = ctx.traffic();
    let opts = ProveOptions {
        context: Some(ctx),
        chunk_points,
        ..ProveOptions::default()
    };
    let (proof, public, _) =
        prove_with_rng(key, witness, &opts, &mut ChaCha20Rng::seed_from_u64(7)).unwrap();
    let moved = ctx.traffic().since(&before);
    (proof, public, moved)
}

/// snarkjs' key `name` proved on the device, held and lean (chunks that do and do not
/// divide the domain), against the CPU's proof.
fn same_proof_on_the_device<E: LayerPairing>(dir: &str, name: &str) {
    let zkey = data(&format!("{dir}/{name}_plonk.zkey"));
    let witness: Vec<Fr<E>> = read_wtns(data(&format!("{dir}/{name}.wtns"))).unwrap();
    let held = ProvingKey::<E>::open(&zkey, PointCheck::Subgroup).unwrap();
    let cpu = Context::cpu();
    let (want, public, on_cpu) = proved(&held, &witness, &cpu, None);
    assert!(verify(&held.vk, &public, &want).unwrap());
    assert_eq!(on_cpu, Traffic::default(), "the CPU moves nothing");

    let ctx = Context::device(Device::for_tests().expect("checked by the trial"));
    let (got, got_public, moved) = proved(&held, &witness, &ctx, None);
    assert_eq!(got, want, "{name}: the device's proof is the CPU's");
    assert_eq!(got_public, public);
    // The powers of tau once, each interpolated polynomial (a, b, c, z) up and down once,
    // and the nine commitments' scalars up; for the quotient, the blinded a, b, c, z, L₁,
    // PI (with public inputs), the powers of ω, the key's eight polynomials on each of
    // three cosets and the top block up, its three blocks down.
    let n = held.domain_size();
    let word_bytes = 8 * <Fr<E> as fastzk_gpu::DeviceField>::WORDS;
    let quotient_up = 4 + 1 + usize::from(held.n_public() > 0) + 1 + 8 * 3 + 1;
    assert_eq!(
        moved.uploads as usize,
        1 + 4 + 9 + quotient_up,
        "{name}: {moved:?}"
    );
    assert_eq!(moved.downloads, 4 + 3, "{name}: {moved:?}");
    assert_eq!(moved.download_bytes as usize, 7 * n * word_bytes, "{name}");

    let lean = ProvingKey::<E>::open_lean_with(&zkey, |_| Ok(PointCheck::Subgroup)).unwrap();
    for chunk in [Some(3), Some(n / 2), None] {
        let (got, _, _) = proved(&lean, &witness, &ctx, chunk);
        assert_eq!(
            got, want,
            "{name}: lean key, chunks of {chunk:?}, on the device"
        );
    }
}

/// Synthetic circuits with 0, 1, 5 and 9 public inputs (the quotient's `PI` taken on the
/// cosets or not at all), on domains of 2^6 and 2^13 gates (past a block of the key's
/// reads): the device's proof is the CPU's and verifies.
fn synthetic_keys_prove_alike_on_the_device() {
    use fastzk_plonk::{setup, PlonkCircuit, Powers};
    use fastzk_r1cs::synth::{synthesize, SynthParams};
    let ctx = Context::device(Device::for_tests().expect("checked by the trial"));
    let cpu = Context::cpu();
    for (log_n, n_public) in [(6, 0), (6, 1), (6, 9), (13, 5)] {
        let mut rng = ChaCha20Rng::seed_from_u64(log_n as u64 + n_public as u64);
        let params = SynthParams {
            n_public,
            ..SynthParams::plonk(log_n)
        };
        let (r1cs, witness) = synthesize::<Fr<Bn254>>(&params, &mut rng).unwrap();
        let circuit = PlonkCircuit::from_r1cs(&r1cs);
        let pk = setup(
            &circuit,
            &Powers::<Bn254>::random(circuit.log_domain(), &mut rng),
        )
        .unwrap();
        let (want, public, _) = proved(&pk, &witness, &cpu, None);
        let (got, _, _) = proved(&pk, &witness, &ctx, None);
        assert_eq!(got, want, "2^{log_n} gates, {n_public} public inputs");
        assert!(verify(&pk.vk, &public, &got).unwrap());
    }
}

/// The quotient's programs are valid CUDA too: NVRTC compiles them for sm_80 at CUDA's
/// block size, over both curves' scalars (no GPU needed).
fn nvrtc_compiles_the_quotient_programs() {
    let programs = fastzk_plonk::quotient_programs::<Bn254>(256)
        .into_iter()
        .chain(fastzk_plonk::quotient_programs::<Bls12_381>(256));
    for (name, src) in programs {
        let ptx =
            fastzk_gpu::cuda::compile_ptx(&src, "sm_80").unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(ptx.contains(".entry fzk_run"), "{name}: no fzk_run");
    }
}

/// The device trials (ignored, with the reason, where there is no device).
pub fn register(t: &mut Trials) {
    t.when(
        "device::plonk::bn254_multiplier",
        Device::for_tests_available(),
        || same_proof_on_the_device::<Bn254>("bn254", "multiplier"),
    );
    t.when(
        "device::plonk::bn254_poly",
        Device::for_tests_available(),
        || same_proof_on_the_device::<Bn254>("bn254", "poly"),
    );
    t.when(
        "device::plonk::bls12_381_multiplier",
        Device::for_tests_available(),
        || same_proof_on_the_device::<Bls12_381>("bls12_381", "multiplier"),
    );
    t.when(
        "device::plonk::nvrtc_compiles_the_quotient_programs",
        fastzk_gpu::cuda::nvrtc_present()
            .map_err(|_| "NVRTC not found (pip nvidia-cuda-nvrtc, on LD_LIBRARY_PATH)"),
        nvrtc_compiles_the_quotient_programs,
    );
    t.when(
        "device::plonk::synthetic_public_inputs",
        Device::for_tests_available(),
        synthetic_keys_prove_alike_on_the_device,
    );
}
