//! Replays a fastzk [`R1cs`] and its witness as an arkworks circuit, so that ark-groth16
//! proves exactly the constraint system fastzk proves.
//!
//! Variables keep their fastzk numbering: `z[0]` is arkworks' `Variable::One`,
//! `z[1..=n_public]` become instance variables `Instance(1..=n_public)` (allocated in
//! order, so arkworks numbers them the same way), and the rest become witness variables
//! `Witness(0..)`. Each CSR row of A, B and C becomes one `enforce_constraint` with the
//! row's entries as linear combinations (duplicate columns are kept, as in the CSR form,
//! and add up). With `n_public + 1` instance variables and `2^k − n_public − 1`
//! constraints from [`fastzk_r1cs::synth`], ark-groth16's evaluation domain is `2^k`, the
//! same as fastzk's.

use ark_relations::r1cs::{
    ConstraintSynthesizer, ConstraintSystemRef, LinearCombination, SynthesisError, Variable,
};
use fastzk_r1cs::{Csr, R1cs};

/// An arkworks circuit over any arkworks prime field `AF` that fastzk's field `F`
/// converts into (`ark_bn254::Fr` from `fastzk_field::bn254::Fr`, `ark_bls12_381::Fr`
/// from `fastzk_field::bls12_381::Fr`, with the `ark` feature).
///
/// Borrowing keeps it cheap to hand to arkworks by value (setup and every proof consume
/// a circuit); the field conversion is a limb copy.
#[derive(Clone, Copy, Debug)]
pub struct R1csCircuit<'a, F> {
    r1cs: &'a R1cs<F>,
    /// The full assignment `z` (`z[0] = 1`); `None` for setup.
    witness: Option<&'a [F]>,
}

impl<'a, F: fastzk_field::PrimeField> R1csCircuit<'a, F> {
    /// A circuit with its witness `z` (`z[0] = 1`, then the public values, then the
    /// private ones), for proving.
    ///
    /// # Panics
    /// When `z` does not have one value per variable.
    pub fn new(r1cs: &'a R1cs<F>, z: &'a [F]) -> Self {
        assert_eq!(
            z.len(),
            r1cs.n_vars(),
            "witness length differs from the R1CS's variable count"
        );
        Self {
            r1cs,
            witness: Some(z),
        }
    }

    /// The circuit without values (enough for a setup).
    pub fn without_witness(r1cs: &'a R1cs<F>) -> Self {
        Self {
            r1cs,
            witness: None,
        }
    }
}

impl<F, AF> ConstraintSynthesizer<AF> for R1csCircuit<'_, F>
where
    F: fastzk_field::PrimeField,
    AF: ark_ff::PrimeField + From<F>,
{
    fn generate_constraints(self, cs: ConstraintSystemRef<AF>) -> Result<(), SynthesisError> {
        let r1cs = self.r1cs;
        let n_public = r1cs.n_public();
        let n_vars = r1cs.n_vars();
        let value = |i: usize| -> Result<AF, SynthesisError> {
            self.witness
                .map(|z| AF::from(z[i]))
                .ok_or(SynthesisError::AssignmentMissing)
        };
        if let Some(z) = self.witness {
            // arkworks fixes the constant variable at one; a witness that disagrees would
            // silently be replayed as another statement.
            if !z[0].is_one() {
                return Err(SynthesisError::Unsatisfiable);
            }
        }

        for i in 1..=n_public {
            let v = cs.new_input_variable(|| value(i))?;
            debug_assert_eq!(v, Variable::Instance(i));
        }
        for i in n_public + 1..n_vars {
            let v = cs.new_witness_variable(|| value(i))?;
            debug_assert_eq!(v, Variable::Witness(i - n_public - 1));
        }

        let var = |col: u32| -> Variable {
            let col = col as usize;
            if col == 0 {
                Variable::One
            } else if col <= n_public {
                Variable::Instance(col)
            } else {
                Variable::Witness(col - n_public - 1)
            }
        };
        let lc = |m: &Csr<F>, row: usize| -> LinearCombination<AF> {
            let (cols, vals) = m.row(row);
            LinearCombination(
                cols.iter()
                    .zip(vals)
                    .map(|(&c, &v)| (AF::from(v), var(c)))
                    .collect(),
            )
        };
        for row in 0..r1cs.n_constraints() {
            cs.enforce_constraint(lc(r1cs.a(), row), lc(r1cs.b(), row), lc(r1cs.c(), row))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_relations::r1cs::ConstraintSystem;
    use fastzk_r1cs::synth::{synthesize, SynthParams};
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// Synthesizes the circuit into a fresh constraint system (prove mode).
    fn replay<F, AF>(r1cs: &R1cs<F>, z: &[F]) -> ConstraintSystemRef<AF>
    where
        F: fastzk_field::PrimeField,
        AF: ark_ff::PrimeField + From<F>,
    {
        let cs = ConstraintSystem::<AF>::new_ref();
        R1csCircuit::new(r1cs, z)
            .generate_constraints(cs.clone())
            .unwrap();
        cs
    }

    fn check_curve<F, AF>(log_size: u32, n_public: usize)
    where
        F: fastzk_field::PrimeField,
        AF: ark_ff::PrimeField + From<F>,
    {
        let params = SynthParams {
            n_public,
            ..SynthParams::new(log_size)
        };
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let (r1cs, mut z) = synthesize::<F>(&params, &mut rng).unwrap();
        r1cs.check(&z).unwrap();

        let cs = replay::<F, AF>(&r1cs, &z);
        assert_eq!(cs.num_constraints(), r1cs.n_constraints());
        assert_eq!(cs.num_instance_variables(), n_public + 1);
        assert_eq!(cs.num_witness_variables(), r1cs.n_vars() - n_public - 1);
        // Groth16's domain covers the constraints and the instance variables.
        assert_eq!(
            cs.num_constraints() + cs.num_instance_variables(),
            1 << log_size
        );
        assert!(cs.is_satisfied().unwrap());
        cs.finalize();
        assert!(cs.is_satisfied().unwrap());

        // The public values land where arkworks' verifier expects them.
        let assignment = cs.borrow().unwrap().instance_assignment.clone();
        let expected: Vec<AF> = z[..=n_public].iter().map(|&x| AF::from(x)).collect();
        assert_eq!(assignment, expected);

        // Changing one private value, then one public value, breaks a constraint.
        for i in [r1cs.n_vars() - 1, n_public + 1, 1] {
            let saved = z[i];
            z[i] += F::ONE;
            assert!(r1cs.check(&z).is_err());
            let cs = replay::<F, AF>(&r1cs, &z);
            assert!(
                !cs.is_satisfied().unwrap(),
                "changing z[{i}] went unnoticed"
            );
            z[i] = saved;
        }
        assert!(replay::<F, AF>(&r1cs, &z).is_satisfied().unwrap());
    }

    #[test]
    fn synthetic_instance_is_satisfied_bn254() {
        check_curve::<fastzk_field::bn254::Fr, ark_bn254::Fr>(10, 1);
        check_curve::<fastzk_field::bn254::Fr, ark_bn254::Fr>(9, 5);
    }

    #[test]
    fn synthetic_instance_is_satisfied_bls12_381() {
        check_curve::<fastzk_field::bls12_381::Fr, ark_bls12_381::Fr>(10, 1);
        check_curve::<fastzk_field::bls12_381::Fr, ark_bls12_381::Fr>(9, 3);
    }

    #[test]
    fn setup_mode_needs_no_witness() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let (r1cs, _) =
            synthesize::<fastzk_field::bn254::Fr>(&SynthParams::new(8), &mut rng).unwrap();
        let cs = ConstraintSystem::<ark_bn254::Fr>::new_ref();
        cs.set_mode(ark_relations::r1cs::SynthesisMode::Setup);
        R1csCircuit::without_witness(&r1cs)
            .generate_constraints(cs.clone())
            .unwrap();
        assert_eq!(cs.num_constraints(), r1cs.n_constraints());
    }
}

#[cfg(test)]
mod groth16_tests {
    use super::R1csCircuit;
    use ark_groth16::Groth16;
    use ark_snark::SNARK;
    use fastzk_r1cs::synth::{synthesize, SynthParams};
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// ark-groth16 proves the replayed instance, and the proof verifies for the public
    /// values `z[1..=n_public]` and fails for others.
    #[test]
    fn ark_groth16_proves_replayed_instance() {
        let params = SynthParams {
            n_public: 2,
            ..SynthParams::new(8)
        };
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let (r1cs, z) = synthesize::<fastzk_field::bn254::Fr>(&params, &mut rng).unwrap();
        let (pk, vk) = Groth16::<ark_bn254::Bn254>::circuit_specific_setup(
            R1csCircuit::without_witness(&r1cs),
            &mut rng,
        )
        .unwrap();
        let proof =
            Groth16::<ark_bn254::Bn254>::prove(&pk, R1csCircuit::new(&r1cs, &z), &mut rng).unwrap();
        let mut public: Vec<ark_bn254::Fr> = z[1..=2].iter().map(|&x| x.into()).collect();
        assert!(Groth16::<ark_bn254::Bn254>::verify(&vk, &public, &proof).unwrap());
        public[1] += ark_bn254::Fr::from(1u64);
        assert!(!Groth16::<ark_bn254::Bn254>::verify(&vk, &public, &proof).unwrap());
    }
}
