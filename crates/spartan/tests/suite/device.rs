//! Spartan on a device through the single-source layer (PoCL in CI; a GPU with
//! `FASTZK_TEST_CUDA_DEVICE`): with the same randomness the proof is the CPU's, element
//! for element, and it verifies, in the NIZK and the SNARK mode (Spark's commitments are
//! encoded on the device too) — Goldilocks with challenges in its cubic extension, and
//! BN254, at sizes that leave one, a few and many inner rounds. The
//! trials are reported ignored, with the reason, where there is no device.

use fastzk_field::{bn254, Goldilocks, GoldilocksExt3};
use fastzk_gpu::Device;
use fastzk_r1cs::synth::{synthesize, SynthParams};
use fastzk_runtime::Context;
use fastzk_spartan::{
    prove_snark_with_rng_on, prove_with_rng, prove_with_rng_on, setup, verify, verify_snark,
    LayerExtension, LayerField, Proof, SpartanParams,
};
use fastzk_testing::gen::rng;
use fastzk_testing::Trials;

/// Proofs of synthetic instances of `2^log` constraints on the CPU and on the device,
/// same randomness: equal, and valid.
fn same_proof_on_the_device<F: LayerField, E: LayerExtension<F>>(logs: &[u32]) {
    let ctx = Context::device(Device::for_tests().expect("checked by the trial"));
    let params = SpartanParams::default();
    for &log in logs {
        let mut p = SynthParams::new(log);
        p.n_public = 2;
        let (r1cs, z) = synthesize::<F>(&p, &mut rng(log as u64)).unwrap();
        let want: Proof<F, E> = prove_with_rng(&params, &r1cs, &z, &mut rng(100)).unwrap();
        let got: Proof<F, E> = prove_with_rng_on(&ctx, &params, &r1cs, &z, &mut rng(100)).unwrap();
        assert!(got == want, "2^{log}: the device's proof is the CPU's");
        verify(&params, &r1cs, &z[1..=2], &got).unwrap();
        // A witness that does not satisfy: refused on the device, naming the CPU's row.
        let (bad, want) = (1..z.len())
            .find_map(|v| {
                let mut bad = z.clone();
                bad[v] += F::ONE;
                let e = prove_with_rng::<F, E, _>(&params, &r1cs, &bad, &mut rng(100)).err()?;
                Some((bad, e))
            })
            .expect("a variable some constraint reads");
        let got = prove_with_rng_on::<F, E, _>(&ctx, &params, &r1cs, &bad, &mut rng(100));
        assert_eq!(got.unwrap_err().to_string(), want.to_string(), "2^{log}");
        assert!(want.to_string().contains("constraint"), "{want}");

        let pk = setup::<F, E>(&params, r1cs).unwrap();
        let cpu = Context::cpu();
        let want = prove_snark_with_rng_on::<F, E, _>(&cpu, &params, &pk, &z, &mut rng(101));
        let got = prove_snark_with_rng_on::<F, E, _>(&ctx, &params, &pk, &z, &mut rng(101));
        let (want, got) = (want.unwrap(), got.unwrap());
        assert!(
            got == want,
            "2^{log}: the device's SNARK proof is the CPU's"
        );
        verify_snark(&params, &pk.vk, &z[1..=2], &got).unwrap();
    }
}

/// The device trials (ignored, with the reason, where there is no device).
pub fn register(t: &mut Trials) {
    t.when(
        "device::spartan::goldilocks_ext3",
        Device::for_tests_available(),
        || same_proof_on_the_device::<Goldilocks, GoldilocksExt3>(&[2, 5, 11]),
    );
    t.when(
        "device::spartan::bn254",
        Device::for_tests_available(),
        || same_proof_on_the_device::<bn254::Fr, bn254::Fr>(&[3, 8]),
    );
}
