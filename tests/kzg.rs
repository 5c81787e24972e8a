//! A real client this project did not write: ark-poly-commit's KZG10 on BLS12-381. The GPU
//! computes the commitment to a polynomial and the opening proof (the commitment to the witness
//! polynomial), through prepared bases as a prover holding a fixed setup would; KZG10's own
//! pairing check must accept them, and reject a wrong evaluation.
#![cfg(feature = "bls12-381")]

use std::borrow::Cow;

use ark_bls12_381::{Bls12_381, Fr, G1Affine};
use ark_ec::CurveGroup;
use ark_ff::{One, UniformRand, Zero};
use ark_poly::univariate::DensePolynomial;
use ark_poly::{DenseUVPolynomial, Polynomial};
use ark_poly_commit::kzg10::{Commitment, Powers, Proof, VerifierKey, KZG10};
use ark_std::rand::{rngs::StdRng, SeedableRng};
use pollster::block_on;
use webgpu_msm::testing::shared_context;
use webgpu_msm::MsmConfig;

type Poly = DensePolynomial<Fr>;
type Kzg = KZG10<Bls12_381, Poly>;

/// q(x) = (p(x) − p(z)) / (x − z) by synthetic division, padded with zeros to p's length.
fn witness(p: &[Fr], z: Fr) -> Vec<Fr> {
    let mut q = vec![Fr::zero(); p.len()];
    for i in (1..p.len()).rev() {
        q[i - 1] = p[i] + z * q[i];
    }
    q
}

#[test]
fn kzg10_accepts_commitments_and_proofs_computed_on_the_gpu() {
    let Some(ctx) = shared_context() else { return };
    let rng = &mut StdRng::seed_from_u64(10);
    let degree = 1023;
    let pp = Kzg::setup(degree, false, rng).expect("setup");
    let powers_of_g: Vec<G1Affine> = pp.powers_of_g[..=degree].to_vec();
    let vk = VerifierKey {
        g: pp.powers_of_g[0],
        gamma_g: pp.powers_of_gamma_g[&0],
        h: pp.h,
        beta_h: pp.beta_h,
        prepared_h: pp.prepared_h.clone(),
        prepared_beta_h: pp.prepared_beta_h.clone(),
    };
    let bases = block_on(ctx.prepare(&powers_of_g, &MsmConfig::default())).expect("prepare the setup's powers");
    let commit = |coeffs: &[Fr]| Commitment(block_on(ctx.msm(&bases, coeffs)).expect("GPU msm").into_affine());

    for round in 0..3 {
        let p = Poly::rand(degree, rng);
        let comm = commit(&p.coeffs);

        // The same commitment as KZG10's own (arkworks' CPU MSM inside).
        let powers = Powers::<Bls12_381> {
            powers_of_g: Cow::Borrowed(&powers_of_g),
            powers_of_gamma_g: Cow::Owned((0..=degree).map(|i| pp.powers_of_gamma_g[&i]).collect()),
        };
        let (theirs, _) = Kzg::commit(&powers, &p, None, None).expect("KZG10 commit");
        assert_eq!(comm, theirs, "round {round}: commitment");

        let z = Fr::rand(rng);
        let value = p.evaluate(&z);
        let proof = Proof { w: commit(&witness(&p.coeffs, z)).0, random_v: None };
        assert!(Kzg::check(&vk, &comm, z, value, &proof).expect("check"), "round {round}: KZG10 rejects the proof");
        assert!(!Kzg::check(&vk, &comm, z, value + Fr::one(), &proof).expect("check"), "round {round}: wrong value");
    }
}
