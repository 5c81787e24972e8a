//! Groth16 proofs of [ark-groth16] with every MSM of the prover on the GPU (feature `groth16`):
//! A, B in G1, B in G2, and C's witness (`l`) and quotient (`h`) queries.
//!
//! [`GpuProvingKey`] prepares the queries once as four [`PreparedBases`]: A's, B's in G1 and in
//! G2, and C's witness and quotient queries side by side (C only needs their sums added, so the
//! witness and the quotient's coefficients are one scalar vector over them). A proof is then four
//! prepared MSMs; the rest follows ark-groth16's `create_proof_with_reduction` step for step, so the
//! proofs are those arkworks makes with the same r and s.
//!
//! Within one proof no two MSMs share their bases, so the batch API does not fit there. One
//! batch of three sets over all four queries side by side (each set zero outside its query) is
//! slower: on a software GPU at 2^14 constraints its G1 part takes 1.14–1.19× arkworks' G1 MSMs
//! against 0.77–0.97× for the three calls, since every set then pays bucket reductions sized for
//! all four queries.
//!
//! [ark-groth16]: https://docs.rs/ark-groth16/0.6

use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{UniformRand, Zero};
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_groth16::{Proof, ProvingKey};
use ark_poly::GeneralEvaluationDomain;
use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystem, OptimizationGoal, SynthesisError, SynthesisMode};
use ark_std::rand::Rng;

use crate::{GpuCurve, MsmConfig, MsmContext, MsmError, PreparedBases};

/// A Groth16 proving key whose queries are prepared on one context's GPU.
pub struct GpuProvingKey<E: Pairing>
where
    E::G1Affine: GpuCurve,
    E::G2Affine: GpuCurve,
{
    pk: ProvingKey<E>,
    /// a_query\[1..\].
    a: PreparedBases<E::G1Affine>,
    /// b_g1_query\[1..\].
    b: PreparedBases<E::G1Affine>,
    /// b_g2_query\[1..\].
    b2: PreparedBases<E::G2Affine>,
    /// l_query ‖ h_query.
    c: PreparedBases<E::G1Affine>,
}

impl<E: Pairing> GpuProvingKey<E>
where
    E::G1Affine: GpuCurve<Group = E::G1, ScalarField = E::ScalarField>,
    E::G2Affine: GpuCurve<Group = E::G2, ScalarField = E::ScalarField>,
{
    /// Prepares the queries of `pk` on `ctx`'s GPU as `config` says (a
    /// [`MsmConfig::precompute_factor`] stores multiples of every query point; errors of
    /// [`MsmContext::prepare`]).
    pub async fn new(ctx: &MsmContext, pk: ProvingKey<E>, config: &MsmConfig<'_>) -> Result<Self, MsmError> {
        let a = ctx.prepare(&pk.a_query[1..], config).await?;
        let b = ctx.prepare(&pk.b_g1_query[1..], config).await?;
        let b2 = ctx.prepare(&pk.b_g2_query[1..], config).await?;
        let c = ctx.prepare(&[&pk.l_query[..], &pk.h_query[..]].concat(), config).await?;
        Ok(GpuProvingKey { pk, a, b, b2, c })
    }

    /// The proving key.
    pub fn proving_key(&self) -> &ProvingKey<E> {
        &self.pk
    }

    /// A proof of `circuit` with fresh randomness from `rng`: a Groth16 proof that
    /// `ark_groth16::Groth16::verify` accepts. Errors: [`MsmError::Circuit`] when the circuit
    /// fails to synthesize or its assignment does not satisfy it, `ForeignBases` on another
    /// context than the key's, GPU errors.
    pub async fn prove<C: ConstraintSynthesizer<E::ScalarField>>(
        &self,
        ctx: &MsmContext,
        circuit: C,
        rng: &mut impl Rng,
    ) -> Result<Proof<E>, MsmError> {
        let (r, s) = (E::ScalarField::rand(rng), E::ScalarField::rand(rng));
        self.prove_with(ctx, circuit, r, s).await
    }

    /// [`GpuProvingKey::prove`] with the blinding factors r and s given (the proof arkworks'
    /// `create_proof_with_reduction` makes with the same r and s).
    pub async fn prove_with<C: ConstraintSynthesizer<E::ScalarField>>(
        &self,
        ctx: &MsmContext,
        circuit: C,
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<Proof<E>, MsmError> {
        let (h, assignment, witness_start) = synthesize(circuit).map_err(|e| MsmError::Circuit(e.to_string()))?;
        let pk = &self.pk;
        let witness = &assignment[witness_start..];
        let (a_len, b_len, b2_len) = (pk.a_query.len() - 1, pk.b_g1_query.len() - 1, pk.b_g2_query.len() - 1);
        let (l_len, h_len) = (pk.l_query.len(), pk.h_query.len());
        let n = assignment.len();
        if n != a_len || n != b_len || n != b2_len || witness.len() != l_len || h.len() < h_len {
            return Err(MsmError::Circuit(format!(
                "the circuit has {} variables and {} witness variables, the proving key {a_len} and {l_len}",
                assignment.len(),
                witness.len()
            )));
        }
        let a_acc = ctx.msm(&self.a, &assignment).await?;
        let b_acc = ctx.msm(&self.b, &assignment).await?;
        let b_g2_acc = ctx.msm(&self.b2, &assignment).await?;
        let c_acc = ctx.msm(&self.c, &[witness, &h[..h_len]].concat()).await?;

        let vk = &pk.vk;
        let g_a = pk.delta_g1 * r + pk.a_query[0] + a_acc + vk.alpha_g1;
        let g1_b = if r.is_zero() { E::G1::zero() } else { pk.delta_g1 * s + pk.b_g1_query[0] + b_acc + pk.beta_g1 };
        let g2_b = vk.delta_g2 * s + pk.b_g2_query[0].into_group() + b_g2_acc + vk.beta_g2;
        let g_c = g_a * s + g1_b * r - pk.delta_g1 * (r * s) + c_acc;
        Ok(Proof { a: g_a.into_affine(), b: g2_b.into_affine(), c: g_c.into_affine() })
    }
}

/// Synthesizes `circuit` as ark-groth16's prover does; returns the quotient's coefficients h,
/// the assignment (public inputs without the leading 1, then the witness) and where the
/// witness starts in it.
fn synthesize<F: ark_ff::PrimeField, C: ConstraintSynthesizer<F>>(
    circuit: C,
) -> Result<(Vec<F>, Vec<F>, usize), SynthesisError> {
    let cs = ConstraintSystem::new_ref();
    cs.set_optimization_goal(OptimizationGoal::Constraints);
    cs.set_mode(SynthesisMode::Prove { construct_matrices: true, generate_lc_assignments: false });
    circuit.generate_constraints(cs.clone())?;
    cs.finalize();
    if !cs.is_satisfied()? {
        return Err(SynthesisError::Unsatisfiable);
    }
    let h = LibsnarkReduction::witness_map::<F, GeneralEvaluationDomain<F>>(cs.clone())?;
    let prover = cs.borrow().ok_or(SynthesisError::MissingCS)?;
    let inputs = &prover.instance_assignment()?[1..];
    let witness = prover.witness_assignment()?;
    Ok((h, [inputs, witness].concat(), inputs.len()))
}
