//! Random inputs for examples, benchmarks and demos.

use ark_ec::CurveGroup;
use ark_ff::UniformRand;
use ark_std::rand::Rng;

use crate::curve::GpuCurve;

/// `n` random points: a random walk over 64 random bases. Uniform enough for benchmarks, and
/// one addition per point instead of a scalar multiplication (2^20 points in seconds).
pub fn random_points<G: GpuCurve, R: Rng>(n: usize, rng: &mut R) -> Vec<G> {
    let bases: Vec<G::Group> = (0..64).map(|_| G::Group::rand(rng)).collect();
    let mut current = G::Group::rand(rng);
    let walk: Vec<G::Group> = (0..n)
        .map(|_| {
            current += bases[rng.gen_range(0..bases.len())];
            current
        })
        .collect();
    G::Group::normalize_batch(&walk)
}
