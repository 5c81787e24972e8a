//! A real client on Pallas: ark-poly-commit's inner-product-argument commitments (`ipa_pc`, the
//! scheme of halo2-style and Pasta-cycle provers). The GPU computes each polynomial's commitment
//! over prepared bases (the committer key, a prefix of it for a lower degree); it must equal
//! `ipa_pc`'s own, and `ipa_pc` must open it and accept the opening, and reject a wrong value.
#![cfg(feature = "pallas")]

use ark_crypto_primitives::sponge::poseidon::{find_poseidon_ark_and_mds, PoseidonConfig, PoseidonSponge};
use ark_crypto_primitives::sponge::CryptographicSponge;
use ark_ec::CurveGroup;
use ark_ff::{One, PrimeField, UniformRand};
use ark_pallas::{Affine, Fr};
use ark_poly::univariate::DensePolynomial;
use ark_poly::{DenseUVPolynomial, Polynomial};
use ark_poly_commit::ipa_pc::{Commitment, InnerProductArgPC};
use ark_poly_commit::{LabeledCommitment, LabeledPolynomial, PolynomialCommitment};
use ark_std::rand::{rngs::StdRng, SeedableRng};
use blake2::Blake2s256;
use pollster::block_on;
use webgpu_msm::testing::shared_context;
use webgpu_msm::MsmConfig;

type Poly = DensePolynomial<Fr>;
type Ipa = InnerProductArgPC<Affine, Blake2s256, Poly>;

/// A Poseidon sponge over Pallas' scalar field for the Fiat–Shamir challenges: the same on the
/// prover's and the verifier's side (parameters from the Grain LFSR; a test's, not vetted).
fn sponge() -> PoseidonSponge<Fr> {
    let (full_rounds, partial_rounds, alpha, rate) = (8, 56, 5, 2);
    let (ark, mds) = find_poseidon_ark_and_mds::<Fr>(Fr::MODULUS_BIT_SIZE as u64, rate, full_rounds, partial_rounds, 0);
    let config = PoseidonConfig::new(full_rounds as usize, partial_rounds as usize, alpha, mds, ark, rate, 1);
    PoseidonSponge::new(&config)
}

#[test]
fn ipa_pc_opens_and_accepts_commitments_computed_on_the_gpu() {
    let Some(ctx) = shared_context() else { return };
    let rng = &mut StdRng::seed_from_u64(52);
    let max_degree = 1023;
    let pp = Ipa::setup(max_degree, None, rng).expect("setup");
    let (ck, vk) = Ipa::trim(&pp, max_degree, 0, None).expect("trim");
    let bases = block_on(ctx.prepare(&ck.comm_key, &MsmConfig::default())).expect("prepare the committer key");

    // A full-degree polynomial, and one of lower degree: its commitment runs over a prefix.
    for degree in [max_degree, 300] {
        let p = LabeledPolynomial::new(format!("p{degree}"), Poly::rand(degree, rng), None, None);
        let ours = block_on(ctx.msm(&bases, p.polynomial().coeffs())).expect("GPU msm").into_affine();
        let (theirs, states) = Ipa::commit(&ck, [&p], None).expect("ipa_pc commit");
        assert_eq!(ours, theirs[0].commitment().comm, "degree {degree}: commitment");

        let comm = LabeledCommitment::new(p.label().clone(), Commitment { comm: ours, shifted_comm: None }, None);
        let z = Fr::rand(rng);
        let value = p.polynomial().evaluate(&z);
        let proof = Ipa::open(&ck, [&p], [&comm], &z, &mut sponge(), states.iter(), None).expect("open");
        let check = |value: Fr| Ipa::check(&vk, [&comm], &z, [value], &proof, &mut sponge(), None).expect("check");
        assert!(check(value), "degree {degree}: ipa_pc rejects the opening of the GPU's commitment");
        assert!(!check(value + Fr::one()), "degree {degree}: ipa_pc accepts a wrong value");
    }
}
