//! Groth16 end to end: ark-groth16 0.6 keys for a circuit of a few thousand constraints, proofs
//! whose G1 MSMs run on the GPU (`webgpu_msm::groth16`), checked by ark-groth16's verifier (which
//! rejects them with a wrong public input) and equal to arkworks' own proofs with the same
//! blinding factors; circuits the key does not fit, or that their assignment does not satisfy,
//! get `MsmError::Circuit`. On the default adapter (lavapipe in CI); without one it prints
//! SKIPPED, and fails when `CI=true`.

use ark_ec::pairing::Pairing;
use ark_ff::{Field, UniformRand};
use ark_groth16::{prepare_verifying_key, Groth16};
use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystemRef, SynthesisError};
use ark_relations::lc;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use webgpu_msm::groth16::GpuProvingKey;
use webgpu_msm::testing::shared_context as context;
use webgpu_msm::testing::ChainCircuit;
use webgpu_msm::{GpuCurve, MsmConfig, MsmError};

/// Constraints of the test circuit.
const STEPS: usize = 3000;

/// Claims a·b = c for a witness that does not satisfy it.
struct Unsatisfied;

impl<F: Field> ConstraintSynthesizer<F> for Unsatisfied {
    fn generate_constraints(self, cs: ConstraintSystemRef<F>) -> Result<(), SynthesisError> {
        let a = cs.new_witness_variable(|| Ok(F::from(2u8)))?;
        let c = cs.new_input_variable(|| Ok(F::from(5u8)))?;
        cs.enforce_r1cs_constraint(|| lc!() + a, || lc!() + a, || lc!() + c)
    }
}

#[allow(dead_code, reason = "a build may have none of the pairing curves")]
fn proofs_verify<E: Pairing>()
where
    E::G1Affine: GpuCurve<Group = E::G1, ScalarField = E::ScalarField>,
    E::G2Affine: GpuCurve<Group = E::G2, ScalarField = E::ScalarField>,
{
    let Some(ctx) = context() else { return };
    let mut rng = StdRng::seed_from_u64(17);
    let pk = Groth16::<E>::generate_random_parameters_with_reduction(ChainCircuit { steps: STEPS, x: None }, &mut rng)
        .expect("key generation");
    let key =
        pollster::block_on(GpuProvingKey::new(ctx, pk, &MsmConfig::default())).expect("prepare the key's queries");
    let pvk = prepare_verifying_key(&key.proving_key().vk);
    let name = <E::G1Affine as GpuCurve>::spec().name;

    let x = E::ScalarField::rand(&mut rng);
    let circuit = ChainCircuit { steps: STEPS, x: Some(x) };
    let y = ChainCircuit::output(STEPS, x);
    let (r, s) = (E::ScalarField::rand(&mut rng), E::ScalarField::rand(&mut rng));
    let proof = pollster::block_on(key.prove_with(ctx, circuit.clone(), r, s)).expect("GPU proof");
    let arkworks = Groth16::<E>::create_proof_with_reduction(circuit.clone(), key.proving_key(), r, s).expect("proof");
    assert_eq!(proof, arkworks, "{name}: the GPU prover's proof is arkworks' with the same r and s");
    // The same proof from the key's queries prepared with stored multiples.
    let options = MsmConfig { precompute_factor: 4, ..MsmConfig::default() };
    let folded = pollster::block_on(GpuProvingKey::new(ctx, key.proving_key().clone(), &options))
        .expect("prepare with a precompute factor");
    let again = pollster::block_on(folded.prove_with(ctx, circuit.clone(), r, s)).expect("GPU proof");
    assert_eq!(again, arkworks, "{name}: precompute factor 4");
    assert!(Groth16::<E>::verify_proof(&pvk, &proof, &[y]).expect("verifies"), "{name}: accepted");
    assert!(
        !Groth16::<E>::verify_proof(&pvk, &proof, &[y + E::ScalarField::ONE]).expect("verifies"),
        "{name}: wrong input"
    );

    let random = pollster::block_on(key.prove(ctx, circuit, &mut rng)).expect("GPU proof");
    assert!(Groth16::<E>::verify_proof(&pvk, &random, &[y]).expect("verifies"), "{name}: random r, s");

    let longer = ChainCircuit { steps: STEPS + 1, x: Some(x) };
    assert!(matches!(pollster::block_on(key.prove(ctx, longer, &mut rng)), Err(MsmError::Circuit(_))), "{name}");
    let unsatisfied = pollster::block_on(key.prove(ctx, Unsatisfied, &mut rng));
    assert!(
        matches!(unsatisfied, Err(MsmError::Circuit(ref why)) if why.contains("nsatisf")),
        "{name}: {unsatisfied:?}"
    );
}

#[cfg(feature = "bn254")]
#[test]
fn bn254_groth16_proofs_verify() {
    proofs_verify::<ark_bn254::Bn254>();
}

#[cfg(feature = "bls12-381")]
#[test]
fn bls12_381_groth16_proofs_verify() {
    proofs_verify::<ark_bls12_381::Bls12_381>();
}

#[cfg(feature = "bls12-377")]
#[test]
fn bls12_377_groth16_proofs_verify() {
    proofs_verify::<ark_bls12_377::Bls12_377>();
}
