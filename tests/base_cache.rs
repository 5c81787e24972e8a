//! `BaseCache`: bases recognised by their bytes across calls (snarkjs hands its proving key's
//! sections in new buffers every proof), MSMs over a prefix of a cached set (PLONK's
//! commitments over one SRS section), a longer set replacing the sets it extends, the GPU
//! memory budget, and bases past one GPU binding. Every result is checked against arkworks.
//! The cases are BN254's (G1 and G2): what snarkjs hands over.
#![cfg(feature = "bn254")]

use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_ff::{BigInteger, PrimeField, UniformRand};
use ark_std::rand::{rngs::StdRng, SeedableRng};
use webgpu_msm::bytes::point_bytes;
use webgpu_msm::testing::{encode_point, shared_context, shared_narrow_context};
use webgpu_msm::{BaseCache, CacheStats, GpuCurve, MsmConfig, MsmContext, MsmError, PointForm};

use crate::bytes_call::msm_bytes;

/// Points in Montgomery form (arkworks' own limbs, as snarkjs stores them; the identity as
/// zeros) and canonical 32-byte scalars.
fn montgomery_bytes<G: GpuCurve>(points: &[G]) -> Vec<u8> {
    let mut out = Vec::new();
    for point in points {
        match point.xy() {
            Some((x, y)) => {
                for coordinate in [x, y] {
                    for component in ark_ff::Field::to_base_prime_field_elements(&coordinate) {
                        // Montgomery limbs: the integer a·R mod p, computed through arkworks'
                        // `into_bigint` (canonical) and R by integer arithmetic below.
                        out.extend(montgomery_of(component));
                    }
                }
            }
            None => out.extend(vec![0u8; point_bytes::<G>()]),
        }
    }
    out
}

fn montgomery_of<F: PrimeField>(value: F) -> Vec<u8> {
    let bytes = F::MODULUS.to_bytes_le().len();
    let modulus = num_bigint::BigUint::from_bytes_le(&F::MODULUS.to_bytes_le());
    let canonical = num_bigint::BigUint::from_bytes_le(&value.into_bigint().to_bytes_le());
    let mut out = ((canonical << (8 * bytes)) % modulus).to_bytes_le();
    out.resize(bytes, 0);
    out
}

fn scalar_bytes<F: PrimeField>(scalars: &[F]) -> Vec<u8> {
    scalars.iter().flat_map(|s| s.into_bigint().to_bytes_le()).collect()
}

/// arkworks' MSM of the first `n` points, encoded in Montgomery form.
fn expected<G: GpuCurve>(points: &[G], scalars: &[G::ScalarField], n: usize) -> Vec<u8> {
    let sum = G::Group::msm(&points[..n], &scalars[..n]).expect("same lengths").into_affine();
    montgomery_bytes::<G>(&[sum])
}

fn random<G: GpuCurve>(n: usize, seed: u64) -> (Vec<G>, Vec<G::ScalarField>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let points = webgpu_msm::inputs::random_points::<G, _>(n, &mut rng);
    (points, (0..n).map(|_| G::ScalarField::rand(&mut rng)).collect())
}

fn stats(hits: u64, uploads: u64, evictions: u64, sets: usize) -> (u64, u64, u64, usize) {
    (hits, uploads, evictions, sets)
}

fn counts(s: CacheStats) -> (u64, u64, u64, usize) {
    (s.hits, s.uploads, s.evictions, s.sets)
}

/// A prover's calls on one cache: the same bases in new buffers run on the cached set, prefixes
/// within its window too; a prefix further down is a set of its own, and a longer set that
/// begins with cached ones replaces them; other bytes, another point form or another context
/// never hit; bad points fail as `msm_bytes` does and are not cached.
fn recognises_bases_and_prefixes<G: GpuCurve>(ctx: &MsmContext, other: &MsmContext) {
    let (points, scalars) = random::<G>(310, 3);
    let bytes = montgomery_bytes(&points);
    let size = point_bytes::<G>();
    let all = scalar_bytes(&scalars);
    let cache = BaseCache::new(None);
    let form = PointForm::Montgomery;
    let run = |ctx: &MsmContext, points: &[u8], n: usize| {
        msm_bytes(
            ctx,
            G::ID,
            points,
            &all[..n * 32],
            &MsmConfig { point_form: form, cache: Some(&cache), ..MsmConfig::default() },
        )
    };
    let first = bytes[..300 * size].to_vec();
    assert_eq!(run(ctx, &first, 300), Ok(expected(&points, &scalars, 300)));
    assert_eq!(counts(cache.stats()), stats(0, 1, 0, 1), "first sight uploads");
    let again = bytes[..300 * size].to_vec(); // a new buffer with the same bytes
    assert_eq!(run(ctx, &again, 300), Ok(expected(&points, &scalars, 300)));
    assert_eq!(counts(cache.stats()), stats(1, 1, 0, 1), "the same bytes hit");
    assert_eq!(run(ctx, &bytes[..290 * size], 290), Ok(expected(&points, &scalars, 290)));
    assert_eq!(counts(cache.stats()), stats(2, 1, 0, 1), "a prefix within the window hits");
    assert_eq!(run(ctx, &bytes[..100 * size], 100), Ok(expected(&points, &scalars, 100)));
    assert_eq!(counts(cache.stats()), stats(2, 2, 0, 2), "a shorter prefix is a set of its own");
    assert_eq!(run(ctx, &bytes, 310), Ok(expected(&points, &scalars, 310)));
    assert_eq!(counts(cache.stats()), stats(2, 3, 2, 1), "the longer set replaces both it extends");
    assert_eq!(run(ctx, &bytes[..300 * size], 300), Ok(expected(&points, &scalars, 300)));
    assert_eq!(counts(cache.stats()), stats(3, 3, 2, 1), "its prefix hits");
    // It knows the prefixes the sets it replaced knew (fflonk's ~8n and ~9n commitments).
    assert_eq!(run(ctx, &bytes[..100 * size], 100), Ok(expected(&points, &scalars, 100)));
    assert_eq!(run(ctx, &bytes[..60 * size], 60), Ok(expected(&points, &scalars, 60)));
    assert_eq!(counts(cache.stats()), stats(5, 3, 2, 1), "the replaced sets' prefixes hit");

    // One point replaced by another valid one: other bytes, another set.
    let mut changed_points = points.clone();
    changed_points[7] = points[8];
    let changed = montgomery_bytes(&changed_points);
    assert_eq!(run(ctx, &changed, 310), Ok(expected(&changed_points, &scalars, 310)));
    assert_eq!(counts(cache.stats()), stats(5, 4, 2, 2));
    // The same points in canonical form are another encoding: another set.
    let canonical: Vec<u8> = points.iter().flat_map(|p| encode_point::<G>(&p.into_group())).collect();
    let got = msm_bytes(
        ctx,
        G::ID,
        &canonical,
        &all,
        &MsmConfig { point_form: PointForm::Canonical, cache: Some(&cache), ..MsmConfig::default() },
    );
    let want = encode_point::<G>(&G::Group::msm(&points, &scalars).expect("lengths"));
    assert_eq!(got, Ok(want));
    assert_eq!(cache.stats().uploads, 5);
    // Another context: its own set, the same result.
    assert_eq!(run(other, &bytes, 310), Ok(expected(&points, &scalars, 310)));
    assert_eq!(cache.stats().uploads, 6);

    // A point off the curve: the error msm_bytes gives, and nothing cached.
    let mut bad = bytes.clone();
    bad[5 * size] ^= 1;
    assert_eq!(run(ctx, &bad, 310), Err(MsmError::NotOnCurve { index: 5 }));
    assert_eq!(cache.stats().uploads, 6);
    assert_eq!(run(ctx, &bytes[..5], 1), Err(MsmError::BadLength { what: "points", len: 5, element: size }));
    assert_eq!(run(ctx, &bytes, 309), Err(MsmError::LengthMismatch { points: 310, scalars: 309 }));
    assert_eq!(run(ctx, &[], 0), Ok(montgomery_bytes::<G>(&[G::zero()])), "no points: the identity");

    let before = cache.stats();
    cache.clear();
    assert_eq!(cache.stats().sets, 0);
    assert_eq!(cache.stats().gpu_bytes, 0);
    assert_eq!(cache.stats().evictions, before.evictions + before.sets as u64);
}

/// A budget of one set's GPU memory: each new set drops the least recently used one; a set
/// larger than the budget still gives its result (and is not kept).
fn budget_evicts_least_recently_used<G: GpuCurve>(ctx: &MsmContext) {
    let (points, scalars) = random::<G>(200, 4);
    let (others, _) = random::<G>(200, 5);
    let (a, b) = (montgomery_bytes(&points), montgomery_bytes(&others));
    let all = scalar_bytes(&scalars);
    let measure = BaseCache::new(None);
    let form = PointForm::Montgomery;
    msm_bytes(ctx, G::ID, &a, &all, &MsmConfig { point_form: form, cache: Some(&measure), ..MsmConfig::default() })
        .expect("measure");
    let one_set = measure.stats().gpu_bytes;
    assert!(one_set > 0);
    let cache = BaseCache::new(Some(one_set));
    let run = |points: &[u8]| {
        msm_bytes(
            ctx,
            G::ID,
            points,
            &all,
            &MsmConfig { point_form: form, cache: Some(&cache), ..MsmConfig::default() },
        )
    };
    assert_eq!(run(&a), Ok(expected(&points, &scalars, 200)));
    assert_eq!(run(&b), Ok(expected(&others, &scalars, 200)));
    assert_eq!(counts(cache.stats()), stats(0, 2, 1, 1), "b replaced a");
    assert_eq!(run(&b), Ok(expected(&others, &scalars, 200)));
    assert_eq!(run(&a), Ok(expected(&points, &scalars, 200)));
    assert_eq!(counts(cache.stats()), stats(1, 3, 2, 1), "a uploaded again, b dropped");
    assert!(cache.stats().gpu_bytes <= one_set);
    let tiny = BaseCache::new(Some(one_set - 1));
    let got =
        msm_bytes(ctx, G::ID, &a, &all, &MsmConfig { point_form: form, cache: Some(&tiny), ..MsmConfig::default() });
    assert_eq!(got, Ok(expected(&points, &scalars, 200)), "over the budget: computed, not kept");
    assert_eq!(counts(tiny.stats()), stats(0, 1, 1, 0));
}

/// Bases stored with multiples (a precompute factor) are found only whole: their MSMs take every
/// base, so a request for a prefix is a set of its own, not a prefix of theirs; and a factor is
/// part of what a set is prepared for.
fn precomputed_sets_are_found_whole<G: GpuCurve>(ctx: &MsmContext) {
    let (points, scalars) = random::<G>(100, 7);
    let bytes = montgomery_bytes(&points);
    let size = point_bytes::<G>();
    let all = scalar_bytes(&scalars);
    let cache = BaseCache::new(None);
    let folded = MsmConfig {
        point_form: PointForm::Montgomery,
        precompute_factor: 2,
        cache: Some(&cache),
        ..MsmConfig::default()
    };
    let run = |points: &[u8], n: usize, config: &MsmConfig| msm_bytes(ctx, G::ID, points, &all[..n * 32], config);
    assert_eq!(run(&bytes, 100, &folded), Ok(expected(&points, &scalars, 100)));
    assert_eq!(run(&bytes.clone(), 100, &folded), Ok(expected(&points, &scalars, 100)));
    assert_eq!(counts(cache.stats()), stats(1, 1, 0, 1), "the same bytes hit");
    assert_eq!(run(&bytes[..99 * size], 99, &folded), Ok(expected(&points, &scalars, 99)));
    assert_eq!(counts(cache.stats()), stats(1, 2, 0, 2), "a prefix is a set of its own");
    let plain = MsmConfig { precompute_factor: 1, ..folded };
    assert_eq!(run(&bytes, 100, &plain), Ok(expected(&points, &scalars, 100)));
    assert_eq!(counts(cache.stats()), stats(1, 3, 0, 3), "another factor, another set");
}

/// Bases one point past what one pass (one set of GPU bindings) holds: a 1M-constraint Groth16
/// key's G2 bases are 134 MB, past WebGPU's default 128 MiB binding. They are prepared in two
/// passes, and MSMs over all of them (through the cache, as snarkjs' calls run) and over
/// prefixes that end on either side of the passes' boundary match arkworks. Most points are the
/// identity (zeros), so the test costs an upload and a conversion, not a full MSM's reference.
fn bases_past_one_pass<G: GpuCurve>(ctx: &MsmContext) {
    let n = ctx.max_pass_points(G::ID) + 1;
    let pass = n.div_ceil(2);
    println!("{}: {n} points, {} MiB of bases, passes of {pass}", G::ID.name(), (n * point_bytes::<G>()) >> 20);
    let (real, scalars) = random::<G>(4, 6);
    let at = [0, pass - 1, pass, n - 1];
    let mut points = vec![G::zero(); n];
    let mut all = vec![G::ScalarField::from(0u64); n];
    for (k, &i) in at.iter().enumerate() {
        points[i] = real[k];
        all[i] = scalars[k];
    }
    let bytes = montgomery_bytes(&points);
    let scalar_bytes = scalar_bytes(&all);
    let sum_below = |len: usize| {
        let sum: G::Group = (0..4).filter(|&k| at[k] < len).map(|k| real[k] * scalars[k]).sum();
        Ok(montgomery_bytes::<G>(&[sum.into_affine()]))
    };
    let form = PointForm::Montgomery;
    let cache = BaseCache::new(None);
    let whole = msm_bytes(
        ctx,
        G::ID,
        &bytes,
        &scalar_bytes,
        &MsmConfig { point_form: form, cache: Some(&cache), ..MsmConfig::default() },
    );
    assert_eq!(whole, sum_below(n), "all {n} points through the cache");
    let options = MsmConfig { point_form: form, ..MsmConfig::default() };
    let bases = pollster::block_on(ctx.prepare_bytes(G::ID, &bytes, &options)).expect("prepare");
    for len in [pass, pass + 1, n] {
        let got = msm_bytes(ctx, G::ID, &bases, &scalar_bytes[..len * 32], &MsmConfig::default());
        assert_eq!(got, sum_below(len), "a prefix of {len}");
    }
}

mod bn254 {
    use super::*;
    type G = ark_bn254::G1Affine;

    #[test]
    fn recognises_bases_and_prefixes() {
        let (Some(ctx), Some(other)) = (shared_context(), shared_narrow_context()) else { return };
        super::recognises_bases_and_prefixes::<G>(ctx, other);
    }

    #[test]
    fn budget_evicts_least_recently_used() {
        let Some(ctx) = shared_context() else { return };
        super::budget_evicts_least_recently_used::<G>(ctx);
    }

    #[test]
    fn precomputed_sets_are_found_whole() {
        let Some(ctx) = shared_context() else { return };
        super::precomputed_sets_are_found_whole::<G>(ctx);
    }
}

mod bn254_g2 {
    use super::*;
    type G = ark_bn254::G2Affine;

    #[test]
    fn bases_past_one_pass() {
        let Some(ctx) = shared_context() else { return };
        super::bases_past_one_pass::<G>(ctx);
    }
}
