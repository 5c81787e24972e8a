//! A Groth16 proof with every MSM on the GPU, G1 and G2 (`webgpu_msm::groth16`), timed against
//! ark-groth16's own prover (single-threaded unless built with `--features arkworks-parallel`)
//! on the same circuit, key, r and s; both proofs are checked equal and verified.
//!
//! `cargo run --release --example groth16 -- --curve bls12-377 --constraints 16384
//! [--precompute F]` (curves: bn254, bls12-381, bls12-377; `--precompute` prepares the key's
//! queries with a precompute factor, `MsmConfig`). Prints, each the median of 3 warm runs:
//! - arkworks' prover, and the time its MSMs take on the same scalars (G1: A, B, l and h
//!   queries; G2: B), so the MSMs' share of its proof;
//! - the GPU prover, and its host part: synthesis with the quotient polynomial (the same code
//!   as arkworks'); the rest is the GPU's MSMs.
#![cfg_attr(
    not(any(feature = "bn254", feature = "bls12-381", feature = "bls12-377")),
    allow(dead_code, unused_variables, reason = "a build without a pairing curve has no proof to run")
)]

mod cli;

use std::time::{Duration, Instant};

use ark_ec::pairing::Pairing;
use ark_ec::VariableBaseMSM;
use ark_ff::UniformRand;
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_groth16::{prepare_verifying_key, Groth16};
use ark_poly::GeneralEvaluationDomain;
use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystem, OptimizationGoal, SynthesisMode};
use ark_std::rand::{rngs::StdRng, SeedableRng};
use webgpu_msm::groth16::GpuProvingKey;
use webgpu_msm::testing::ChainCircuit;
use webgpu_msm::{GpuCurve, MsmConfig, MsmContext};

const RUNS: usize = 3;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn time<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..RUNS {
        let start = Instant::now();
        last = Some(f());
        times.push(start.elapsed());
    }
    (median(times), last.expect("RUNS > 0"))
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn run<E: Pairing>(steps: usize, options: MsmConfig)
where
    E::G1Affine: GpuCurve<Group = E::G1, ScalarField = E::ScalarField>,
    E::G2Affine: GpuCurve<Group = E::G2, ScalarField = E::ScalarField>,
{
    let name = <E::G1Affine as GpuCurve>::spec().name;
    let mut rng = StdRng::seed_from_u64(1);
    let started = Instant::now();
    let pk = Groth16::<E>::generate_random_parameters_with_reduction(ChainCircuit { steps, x: None }, &mut rng)
        .expect("key generation");
    println!("{name}: {} constraints; key generation {}", steps + 1, ms(started.elapsed()));
    let ctx = pollster::block_on(MsmContext::new()).expect("a GPU adapter");
    println!("device: {}", ctx.adapter_info().name);
    let started = Instant::now();
    let key = pollster::block_on(GpuProvingKey::new(&ctx, pk, &options)).expect("prepare the key");
    println!(
        "GPU key preparation (cold: pipelines, upload, conversion; precompute factor {}) {}",
        options.precompute_factor,
        ms(started.elapsed())
    );
    let pk = key.proving_key();

    let x = E::ScalarField::rand(&mut rng);
    let circuit = ChainCircuit { steps, x: Some(x) };
    let (r, s) = (E::ScalarField::rand(&mut rng), E::ScalarField::rand(&mut rng));
    pollster::block_on(key.prove_with(&ctx, circuit.clone(), r, s)).expect("warm-up proof");

    let (gpu, proof) = time(|| pollster::block_on(key.prove_with(&ctx, circuit.clone(), r, s)).expect("GPU proof"));
    let (arkworks, expected) =
        time(|| Groth16::<E>::create_proof_with_reduction(circuit.clone(), pk, r, s).expect("arkworks proof"));
    assert_eq!(proof, expected, "the GPU prover's proof equals arkworks'");
    let pvk = prepare_verifying_key(&pk.vk);
    let y = ChainCircuit::output(steps, x);
    assert!(Groth16::<E>::verify_proof(&pvk, &proof, &[y]).expect("verifier runs"), "the proof verifies");

    // The prover's host steps and its MSMs on the CPU, on the same scalars.
    let (synthesis, (h, assignment, witness)) = time(|| {
        let cs = ConstraintSystem::new_ref();
        cs.set_optimization_goal(OptimizationGoal::Constraints);
        cs.set_mode(SynthesisMode::Prove { construct_matrices: true, generate_lc_assignments: false });
        circuit.clone().generate_constraints(cs.clone()).expect("synthesis");
        cs.finalize();
        let h = LibsnarkReduction::witness_map::<E::ScalarField, GeneralEvaluationDomain<E::ScalarField>>(cs.clone())
            .expect("witness map");
        let prover = cs.borrow().expect("constraint system");
        let inputs = prover.instance_assignment().expect("inputs")[1..].to_vec();
        let witness = prover.witness_assignment().expect("witness").to_vec();
        (h, [&inputs[..], &witness[..]].concat(), witness)
    });
    let (g1_msms, _) = time(|| {
        E::G1::msm(&pk.a_query[1..], &assignment).expect("A")
            + E::G1::msm(&pk.b_g1_query[1..], &assignment).expect("B")
            + E::G1::msm(&pk.l_query, &witness).expect("l")
            + E::G1::msm(&pk.h_query, &h[..pk.h_query.len()]).expect("h")
    });
    let (g2_msm, _) = time(|| E::G2::msm(&pk.b_g2_query[1..], &assignment).expect("B in G2"));
    let share = |d: Duration| 100.0 * d.as_secs_f64() / arkworks.as_secs_f64();
    println!("arkworks prover: {}", ms(arkworks));
    println!(
        "  its MSMs on the same scalars: G1 {} ({:.0}%), G2 {} ({:.0}%); synthesis and quotient {} ({:.0}%)",
        ms(g1_msms),
        share(g1_msms),
        ms(g2_msm),
        share(g2_msm),
        ms(synthesis),
        share(synthesis)
    );
    let gpu_msms = gpu.saturating_sub(synthesis);
    println!(
        "GPU prover: {} ({:.2}x arkworks); of it synthesis {} on the CPU, so about {} for the GPU's MSMs ({:.2}x arkworks' G1 and G2 MSMs)",
        ms(gpu),
        gpu.as_secs_f64() / arkworks.as_secs_f64(),
        ms(synthesis),
        ms(gpu_msms),
        gpu_msms.as_secs_f64() / (g1_msms + g2_msm).as_secs_f64()
    );
    println!("proof VERIFIED and equal to arkworks'");
}

fn main() {
    let args = cli::Args::from_env();
    let curve = args.curve("bls12-377").to_string();
    let steps: usize = args.parsed("--constraints", "an integer").unwrap_or(1 << 14) - 1;
    let precompute_factor = args.parsed("--precompute", "an integer").unwrap_or(1);
    let options = MsmConfig { precompute_factor, ..MsmConfig::default() };
    match curve.as_str() {
        #[cfg(feature = "bn254")]
        "bn254" => run::<ark_bn254::Bn254>(steps, options),
        #[cfg(feature = "bls12-381")]
        "bls12-381" => run::<ark_bls12_381::Bls12_381>(steps, options),
        #[cfg(feature = "bls12-377")]
        "bls12-377" => run::<ark_bls12_377::Bls12_377>(steps, options),
        other => cli::exit(&format!("--curve {other}: a pairing curve of this build (bn254, bls12-381, bls12-377)")),
    }
}
