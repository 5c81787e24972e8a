//! End-to-end: `msm` on the GPU equals arkworks' `VariableBaseMSM::msm` for every curve of the
//! build (one module of tests per curve, from the registry), on every kind of input, and bad
//! input gets its typed error. Runs on the default adapter (lavapipe in CI); without one it
//! prints SKIPPED, and fails when `CI=true`.

// A build of `kernels_only` curves only (scripts/test-single-curve.sh grumpkin) has no
// `host_plans` tests to call the host plans' checks.
#![cfg_attr(
    not(any(feature = "bls12-377", feature = "ed-on-bls12-377", feature = "bn254", feature = "bls12-381")),
    allow(dead_code, reason = "only `every_plan` curves' groups run the host plans' checks")
)]

use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_ff::{Field, PrimeField, UniformRand, Zero};
use ark_std::rand::{rngs::StdRng, SeedableRng};
use webgpu_msm::{Bases, GpuCurve, MsmConfig, MsmContext, MsmError, PreparedBases};

use webgpu_msm::testing::{
    shared_context as context, shared_gpu_form_context as gpu_form_context,
    shared_gpu_narrow_context as gpu_narrow_context, shared_narrow_context as narrow_context,
    shared_swiftshader_context as swiftshader_context, swiftshader_runs_its_own_form, tests_every_form,
};

fn random_points<G: GpuCurve>(n: usize, rng: &mut StdRng) -> Vec<G> {
    let bases: Vec<G::Group> = (0..16).map(|_| G::Group::rand(rng)).collect();
    let points: Vec<G::Group> = (0..n).map(|i| bases[i % 16] * G::ScalarField::rand(rng)).collect();
    G::Group::normalize_batch(&points)
}

fn random_scalars<G: GpuCurve>(n: usize, rng: &mut StdRng) -> Vec<G::ScalarField> {
    (0..n).map(|_| G::ScalarField::rand(rng)).collect()
}

/// The results of `msm_with` of scalar sets with the default config.
fn batch<'a, G: GpuCurve>(
    ctx: &MsmContext,
    bases: impl Into<Bases<'a, G, PreparedBases<G>>>,
    sets: &[&[G::ScalarField]],
) -> Result<Vec<G::Group>, MsmError> {
    pollster::block_on(ctx.msm_with(bases, sets, &MsmConfig::default())).map(|output| output.results)
}

/// One MSM profiled (`msm_with` with `profile`): its result and its profile.
fn profiled<'a, G: GpuCurve>(
    ctx: &MsmContext,
    bases: impl Into<Bases<'a, G, PreparedBases<G>>>,
    scalars: &[G::ScalarField],
) -> Result<(G::Group, webgpu_msm::Profile), MsmError> {
    let config = MsmConfig { profile: true, ..MsmConfig::default() };
    let mut output = pollster::block_on(ctx.msm_with(bases, &[scalars], &config))?;
    Ok((output.results.pop().expect("one result"), output.profile.expect("a profile")))
}

/// Asserts the GPU result equals arkworks on these inputs.
fn check<G: GpuCurve>(ctx: &MsmContext, what: &str, points: &[G], scalars: &[G::ScalarField]) {
    let expected = G::Group::msm(points, scalars).expect("same lengths");
    let got = pollster::block_on(ctx.msm(points, scalars)).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(got, expected, "{} {what} (n = {})", G::spec().name, points.len());
}

fn sizes_from_0_to_4096<G: GpuCurve>() {
    let Some(ctx) = context() else { return };
    let mut rng = StdRng::seed_from_u64(1);
    for n in [0, 1, 2, 3, 7, 31, 100, 257, 1000, 4096] {
        let points = random_points::<G>(n, &mut rng);
        let scalars = random_scalars::<G>(n, &mut rng);
        check(ctx, "random inputs", &points, &scalars);
    }
}

fn edge_cases<G: GpuCurve>(ctx: Option<&MsmContext>) {
    let Some(ctx) = ctx else { return };
    let mut rng = StdRng::seed_from_u64(2);
    let n = 300;
    let points = random_points::<G>(n, &mut rng);
    let scalars = random_scalars::<G>(n, &mut rng);
    let one = G::ScalarField::ONE;
    let minus_one = -one; // r − 1, the largest scalar

    check(ctx, "all identity points", &vec![G::zero(); n], &scalars);
    let mut some_identity = points.clone();
    some_identity.iter_mut().step_by(3).for_each(|p| *p = G::zero());
    check(ctx, "some identity points", &some_identity, &scalars);
    check(ctx, "one repeated point", &vec![points[0]; n], &scalars);
    let mut plus_minus = points.clone();
    for i in (0..n).step_by(2) {
        plus_minus[i + 1] = (-plus_minus[i].into_group()).into_affine();
    }
    check(ctx, "P and -P pairs", &plus_minus, &vec![scalars[0]; n]);
    check(ctx, "P and -P pairs, random scalars", &plus_minus, &scalars);
    check(ctx, "all scalars zero", &points, &vec![G::ScalarField::zero(); n]);
    let mut half_zero = scalars.clone();
    half_zero.iter_mut().step_by(2).for_each(|s| *s = G::ScalarField::zero());
    check(ctx, "half the scalars zero", &points, &half_zero);
    check(ctx, "all scalars r - 1", &points, &vec![minus_one; n]);
    check(ctx, "all scalars one", &points, &vec![one; n]);
    check(ctx, "all scalars equal", &points, &vec![scalars[0]; n]);
    let small: Vec<G::ScalarField> = (0..n as u64).map(|i| G::ScalarField::from(i % 200)).collect();
    check(ctx, "scalars in the lowest window only", &points, &small);
    let top: Vec<G::ScalarField> = (0..n as u64)
        .map(|i| {
            G::ScalarField::from(i + 1) * G::ScalarField::from(2u64).pow([G::ScalarField::MODULUS_BIT_SIZE as u64 - 4])
        })
        .collect();
    check(ctx, "scalars in the top windows only", &points, &top);
    let boolean: Vec<G::ScalarField> = (0..n).map(|i| G::ScalarField::from((i % 2) as u64)).collect();
    check(ctx, "scalars in {0, 1}", &points, &boolean);
    check(ctx, "one point", &points[..1], &[minus_one]);
    check(ctx, "one identity point", &[G::zero()], &[scalars[0]]);
}

fn bad_inputs_get_typed_errors<G: GpuCurve>() {
    let mut rng = StdRng::seed_from_u64(3);
    let points = random_points::<G>(3, &mut rng);
    let scalars = random_scalars::<G>(2, &mut rng);
    // Length mismatch: checked before any GPU work, on the context and on the free function.
    let mismatch = MsmError::LengthMismatch { points: 3, scalars: 2 };
    assert_eq!(pollster::block_on(webgpu_msm::msm(&points, &scalars)).err(), Some(mismatch.clone()));
    let Some(ctx) = context() else { return };
    assert_eq!(pollster::block_on(ctx.msm(&points, &scalars)).err(), Some(mismatch));
    let pass = ctx.max_pass_points(G::ID);
    // Points up to 192 bytes each, stored and uploaded, lie in two buffers of at most 128 MiB.
    assert!(pass >= 1 << 20, "{} takes 2^20 points per pass within WebGPU's default limits", G::spec().name);
}

/// Inputs larger than one GPU pass run as several passes (here with passes capped at 64 points
/// so it is cheap); more than MAX_PASSES passes' worth gets InputTooLarge before any upload.
fn large_inputs_are_split_into_passes<G: GpuCurve>() {
    let Some(_) = context() else { return };
    let ctx = pollster::block_on(MsmContext::new()).expect("adapter").with_pass_limit(64);
    let max = 64 * webgpu_msm::MAX_PASSES;
    assert_eq!(ctx.max_pass_points(G::ID), 64);
    let mut rng = StdRng::seed_from_u64(4);
    for n in [65, 1000, max] {
        let points = random_points::<G>(n, &mut rng);
        let scalars = random_scalars::<G>(n, &mut rng);
        check(&ctx, "split into passes", &points, &scalars);
    }
    let too_many = vec![random_points::<G>(1, &mut rng)[0]; max + 1];
    let zeros = vec![G::ScalarField::zero(); max + 1];
    assert_eq!(pollster::block_on(ctx.msm(&too_many, &zeros)).err(), Some(MsmError::InputTooLarge { n: max + 1, max }));
}

/// `ContextOptions::max_gpu_bytes` sizes passes to fit: a budget of half what one pass of n
/// points takes splits them into passes whose workspace fits it, with arkworks' result; a budget
/// that holds not even a one-point pass is `MemoryBudget`, before anything is uploaded.
#[cfg(feature = "bn254")]
#[test]
fn a_memory_budget_sizes_passes_to_fit() {
    use ark_bn254::G1Affine as G;
    use webgpu_msm::ContextOptions;
    let Some(_) = context() else { return };
    let n = 4096;
    let ctx = pollster::block_on(MsmContext::new()).expect("adapter");
    let budget = ctx.gpu_memory_bytes(G::ID, n) / 2;
    let options = ContextOptions { max_gpu_bytes: Some(budget), max_workspaces: 1, ..ContextOptions::default() };
    let ctx = ctx.with_options(options).expect("valid options");
    let pass = ctx.max_pass_points(G::ID);
    assert!(0 < pass && pass < n, "{pass} points per pass");
    assert!(ctx.gpu_memory_bytes(G::ID, pass) <= budget, "a pass of {pass} points fits {budget} bytes");
    let mut rng = StdRng::seed_from_u64(12);
    check(&ctx, "under a memory budget", &random_points::<G>(n, &mut rng), &random_scalars::<G>(n, &mut rng));

    let options = ContextOptions { max_gpu_bytes: Some(1024), ..ContextOptions::default() };
    let tiny = pollster::block_on(MsmContext::new()).and_then(|ctx| ctx.with_options(options)).expect("adapter");
    let got = pollster::block_on(tiny.msm(&random_points::<G>(8, &mut rng), &random_scalars::<G>(8, &mut rng)));
    assert!(matches!(got, Err(MsmError::MemoryBudget { budget: 1024, needed }) if needed > 1024), "{got:?}");
}

/// A device that computes wrong results (simulated: window sums come back swapped, each on the
/// curve) is refused at a curve's first use by the self-test's known-answer MSM, naming the curve
/// and the kernels, and stays refused; a sound one passes it (every other test's first use).
#[cfg(feature = "bn254")]
#[test]
fn a_device_that_computes_wrong_results_is_refused_by_the_self_test() {
    use ark_bn254::G1Affine as G;
    let Some(_) = context() else { return };
    let ctx = pollster::block_on(MsmContext::new()).expect("adapter");
    ctx.compute_wrong_results_for_tests();
    let mut rng = StdRng::seed_from_u64(13);
    let (points, scalars) = (random_points::<G>(64, &mut rng), random_scalars::<G>(64, &mut rng));
    for _ in 0..2 {
        match pollster::block_on(ctx.msm(&points, &scalars)) {
            Err(MsmError::UnreliableDevice { curve, kernels, .. }) => {
                assert_eq!(curve, G::ID);
                assert!(kernels.contains("form"), "{kernels}");
            }
            other => panic!("a faulty device must be refused: {other:?}"),
        }
    }
}

/// BLS12-377's curve has the point T = (−1, 0) of order 2: on the curve, so inputs may hold it,
/// but outside the prime-order group. The complete projective formulas are complete only on
/// groups of odd order, so sums that pass through T may come back off the curve: that must be
/// `InvalidGpuResult`, never a wrong answer.
#[cfg(feature = "bls12-377")]
#[test]
fn bls12_377_point_of_order_two_is_never_a_wrong_answer() {
    use ark_bls12_377::G1Affine;
    let Some(ctx) = context() else { return };
    let order_two = G1Affine::new_unchecked(-ark_bls12_377::Fq::ONE, ark_bls12_377::Fq::zero());
    assert!(order_two.is_on_curve());
    let mut rng = StdRng::seed_from_u64(9);
    let n = 500;
    let mut points = random_points::<G1Affine>(n, &mut rng);
    points.iter_mut().step_by(2).for_each(|p| *p = order_two);
    let scalars = random_scalars::<G1Affine>(n, &mut rng);
    let one = ark_bls12_377::Fr::from(1u64);
    for (what, points, scalars) in [
        ("(−1, 0) among equal scalars", &points, &vec![ark_bls12_377::Fr::from(3u64); n]),
        ("(−1, 0) with random scalars", &points, &scalars),
        ("(−1, 0) n times in one bucket", &vec![order_two; n], &vec![one; n]),
        ("(−1, 0) n − 1 times in one bucket", &vec![order_two; n - 1], &vec![one; n - 1]),
    ] {
        let expected = <G1Affine as ark_ec::AffineRepr>::Group::msm(points, scalars).expect("same lengths");
        match pollster::block_on(ctx.msm(points, scalars)) {
            Ok(got) => assert_eq!(got, expected, "{what}"),
            Err(e) => assert!(matches!(e, MsmError::InvalidGpuResult(_)), "{what}: {e}"),
        }
    }
}

/// BLS12-377 runs on its twisted Edwards model by default, where points outside G1 may have no
/// image or make an addition exceptional; such passes run again on the Weierstrass model, so
/// every input still gets arkworks' answer (never an error), through `msm` and prepared bases:
/// with affine stored points (the default on software GPUs) and with extended ones (the
/// default on hardware GPUs where calibration does not measure the accumulations).
#[cfg(feature = "bls12-377")]
#[test]
fn bls12_377_edwards_model_is_exact_outside_g1() {
    use ark_bls12_377::G1Affine;
    use webgpu_msm::step::Accumulation;
    use webgpu_msm::testing::{default_edwards_accumulation, shared_extended_edwards_context};
    use webgpu_msm::ContextOptions;
    let Some(ctx) = context() else { return };
    let kernels = pollster::block_on(ctx.warm_up(G1Affine::ID)).expect("calibrates").kernels;
    let default = default_edwards_accumulation(ctx);
    assert_eq!(kernels.accumulation, default, "the default accumulation of bls12-377");
    let affine = pollster::block_on(MsmContext::new()).expect("an adapter, as above");
    let options = ContextOptions { accumulation: Some(Accumulation::EdwardsAffine), ..ContextOptions::default() };
    let affine = affine.with_options(options).expect("options");
    edwards_model_is_exact_outside_g1(&affine);
    let extended = shared_extended_edwards_context().expect("an adapter, as above");
    let kernels = pollster::block_on(extended.warm_up(G1Affine::ID)).expect("calibrates").kernels;
    assert_eq!(kernels.accumulation, Accumulation::Edwards);
    edwards_model_is_exact_outside_g1(extended);
}

/// The device's rates count the mixed additions of the kernels the context runs: on bls12-377
/// its Edwards model's (7 multiplications with affine stored points, 8 with extended ones), not
/// the short Weierstrass curve's 11; on bn254 those 11.
#[cfg(all(feature = "bls12-377", feature = "bn254"))]
#[test]
fn device_rates_count_the_additions_the_context_runs() {
    use webgpu_msm::step::Accumulation;
    let Some(ctx) = context() else { return };
    let rates = pollster::block_on(ctx.device_rates(ark_bls12_377::G1Affine::ID)).expect("rates");
    let calibration = pollster::block_on(ctx.warm_up(ark_bls12_377::G1Affine::ID)).expect("calibrates");
    let expected = match calibration.kernels.accumulation {
        Accumulation::EdwardsAffine => 7,
        Accumulation::Edwards => 8,
        other => panic!("bls12-377 accumulates on its Edwards model, not {other:?}"),
    };
    assert_eq!(rates.add_stored_muls, expected);
    assert!(rates.field_muls_per_second > 0.0 && rates.add_stored_per_second > 0.0);
    let rates = pollster::block_on(ctx.device_rates(ark_bn254::G1Affine::ID)).expect("rates");
    assert_eq!(rates.add_stored_muls, 11);
}

#[cfg(feature = "bls12-377")]
fn edwards_model_is_exact_outside_g1(ctx: &MsmContext) {
    use ark_bls12_377::{Fq, Fr, G1Affine};
    let mut rng = StdRng::seed_from_u64(12);
    let n = 200;
    let g1 = random_points::<G1Affine>(n, &mut rng);
    let scalars = random_scalars::<G1Affine>(n, &mut rng);
    // The points of order 2: (−1, 0) and (−ω, 0), ω a primitive cube root of unity.
    let omega = (Fq::from(-3i64).sqrt().expect("q ≡ 1 mod 3") - Fq::ONE) / Fq::from(2u8);
    let order_two = [-Fq::ONE, -omega].map(|x| G1Affine::new_unchecked(x, Fq::zero()));
    assert!(order_two.iter().all(|t| t.is_on_curve() && !t.is_in_correct_subgroup_assuming_on_curve()));
    // Points of E(Fq) outside G1: random x on the curve, no cofactor cleared.
    let outside: Vec<G1Affine> = std::iter::repeat_with(|| Fq::rand(&mut rng))
        .filter_map(|x| (x.square() * x + Fq::ONE).sqrt().map(|y| G1Affine::new_unchecked(x, y)))
        .take(n)
        .collect();

    let mut no_image = g1.clone();
    no_image[7] = order_two[0];
    // P and P + (−ω, 0) with equal scalars share every bucket: their Edwards sum is exceptional.
    let mut exceptional = g1.clone();
    exceptional[1] = (g1[0] + order_two[1]).into_affine();
    let mut equal_pair = scalars.clone();
    equal_pair[1] = equal_pair[0];
    let mut mixed = g1.clone();
    mixed.iter_mut().step_by(2).zip(&outside).for_each(|(p, q)| *p = *q);
    // The other points with no Edwards image: x = α − t (α = −1), where they exist.
    let map = webgpu_msm::curve::EdwardsMap::new(-Fq::ONE).expect("bls12-377 has an Edwards model");
    let x = map.alpha - map.t;
    let four: Vec<G1Affine> =
        (x.square() * x + Fq::ONE).sqrt().map(|y| G1Affine::new_unchecked(x, y)).into_iter().collect();
    let mut no_image_at_infinity = g1.clone();
    let mut exceptional_on_edwards_only = g1.clone();
    if let Some(&s) = four.first() {
        no_image_at_infinity[3] = s;
        exceptional_on_edwards_only[1] = (g1[0] + s).into_affine();
    }
    let cases: [(&str, &[G1Affine], &[Fr]); 7] = [
        ("G1 points", &g1, &scalars),
        ("(−1, 0), no Edwards image", &no_image, &scalars),
        ("(α − t, y), no Edwards image", &no_image_at_infinity, &scalars),
        ("P + (P + S), S at the Edwards model's infinity", &exceptional_on_edwards_only, &equal_pair),
        ("points outside G1", &outside, &scalars),
        ("G1 and outside points mixed", &mixed, &scalars),
        ("P + (P + T), T of order 2", &exceptional, &equal_pair),
    ];
    // A second scalar set for the batches: each set adds its own multiples of the points the GPU
    // leaves to the host, and an exceptional set reruns the whole batch on the Weierstrass model.
    let other = random_scalars::<G1Affine>(n, &mut rng);
    // With extended points in the calls, natively the bases store affine ones: the two
    // runners and their one Weierstrass fallback are exercised together.
    let calls = pollster::block_on(ctx.warm_up(G1Affine::ID)).expect("calibrates").kernels.accumulation;
    let bases_accumulation = webgpu_msm::testing::bases_edwards_accumulation(ctx, calls);
    for (what, points, scalars) in cases {
        let msm = |s: &[Fr]| <G1Affine as ark_ec::AffineRepr>::Group::msm(points, s).expect("same lengths");
        let expected = msm(scalars);
        let bases = pollster::block_on(ctx.prepare(points, &MsmConfig::default()))
            .unwrap_or_else(|e| panic!("{what}: prepare: {e}"));
        assert_eq!(bases.kernels().accumulation, bases_accumulation, "{what}: the bases' stored form");
        // With stored multiples 2^(j·c·W)·P: a multiple with no image would leave its point to
        // the host (none does in these cases: doubling (−1, 0)'s Edwards image (0, −1) is not
        // exceptional), and sums of multiples can be exceptional like sums of points.
        let folded =
            pollster::block_on(ctx.prepare(points, &MsmConfig { precompute_factor: 3, ..MsmConfig::default() }))
                .unwrap_or_else(|e| panic!("{what}: prepare with multiples: {e}"));
        let sets: [&[Fr]; 2] = [&other, scalars];
        let batches = [batch(ctx, points, &sets), batch(ctx, &bases, &sets), batch(ctx, &folded, &sets)];
        for batch in batches {
            match batch {
                Ok(sums) => assert_eq!(sums, vec![msm(&other), expected], "{what}: batch"),
                Err(e) if what.contains("order 2") => {
                    assert!(matches!(e, MsmError::InvalidGpuResult(_)), "{what}: batch: {e}")
                }
                Err(e) => panic!("{what}: batch: {e}"),
            }
        }
        for got in [
            pollster::block_on(ctx.msm(points, scalars)),
            pollster::block_on(ctx.msm(&bases, scalars)),
            pollster::block_on(ctx.msm(&folded, scalars)),
            profiled(ctx, &bases, scalars).map(|(result, _)| result),
        ] {
            match got {
                Ok(got) => assert_eq!(got, expected, "{what}"),
                // Two sums that differ by a point of order 2 defeat both models' formulas
                // (the Weierstrass ones are complete only without 2-torsion): an error, never
                // a wrong answer.
                Err(e) if what.contains("order 2") => {
                    assert!(matches!(e, MsmError::InvalidGpuResult(_)), "{what}: {e}")
                }
                Err(e) => panic!("{what}: {e}"),
            }
        }
    }
    assert!(!four.is_empty(), "a point with x = α − t exists on the curve");
}

/// The free function `msm` (the crate's default context) gives the same answers.
fn default_context_computes_the_same_result<G: GpuCurve>() {
    if context().is_none() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(4);
    let points = random_points::<G>(50, &mut rng);
    let scalars = random_scalars::<G>(50, &mut rng);
    let expected = G::Group::msm(&points, &scalars).expect("same lengths");
    assert_eq!(pollster::block_on(webgpu_msm::msm(&points, &scalars)), Ok(expected));
}

#[test]
fn context_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<MsmContext>();
    assert_send_sync::<webgpu_msm::BaseCache>();
    assert_send_sync::<webgpu_msm::PreparedBytes>();
}

/// The calls' futures are `Send` (natively), so a multi-threaded executor can run them; built,
/// never run.
#[allow(dead_code, reason = "only type-checked")]
fn calls_are_send<G: GpuCurve>(ctx: &MsmContext, bases: &PreparedBases<G>, points: &[G]) {
    fn assert_send<T: Send>(_: T) {}
    let scalars: Vec<G::ScalarField> = Vec::new();
    let cache = webgpu_msm::BaseCache::new(None);
    let config = MsmConfig { cache: Some(&cache), ..MsmConfig::default() };
    assert_send(ctx.msm(points, &scalars));
    assert_send(ctx.msm_with(bases, &[&scalars], &config));
    assert_send(ctx.prepare(points, &config));
    assert_send(ctx.msm_bytes(G::ID, &[0u8; 64], &[&[0u8; 32]], &config));
    assert_send(ctx.prepare_bytes(G::ID, &[], &config));
}

/// Skewed scalars (what provers send): accumulation threads take equal chunks of points, so a
/// bucket holding most of the points is split across threads and recombined.
fn skewed_scalars<G: GpuCurve>(ctx: Option<&MsmContext>) {
    let Some(ctx) = ctx else { return };
    let mut rng = StdRng::seed_from_u64(5);
    let n = 2000;
    let points = random_points::<G>(n, &mut rng);
    let mut scalars = random_scalars::<G>(n, &mut rng);
    let common = scalars[0];
    scalars.iter_mut().take(n * 9 / 10).for_each(|s| *s = common);
    check(ctx, "90% of scalars equal", &points, &scalars);
    let small: Vec<G::ScalarField> = (0..n as u64).map(|i| G::ScalarField::from(i % 3 + 1)).collect();
    check(ctx, "scalars in {1, 2, 3}", &points, &small);
}

/// One bucket with 70,000 points: more additions than llvmpipe lets one shader invocation loop
/// (65,535), which a thread-per-bucket design cannot sum there.
fn bucket_larger_than_a_thread_can_sum<G: GpuCurve>(ctx: Option<&MsmContext>) {
    let Some(ctx) = ctx else { return };
    let mut rng = StdRng::seed_from_u64(6);
    let n = 70_000;
    let distinct = random_points::<G>(7, &mut rng);
    let points: Vec<G> = (0..n).map(|i| distinct[i % 7]).collect();
    let scalars = vec![G::ScalarField::from(5u64); n];
    check(ctx, "70,000 points in one bucket", &points, &scalars);
}

/// Prepared bases: converted once, then several scalar vectors against arkworks; identity
/// points among them; passes; the errors for a wrong length and another context's bases.
fn prepared_bases_match_arkworks<G: GpuCurve>() {
    let Some(ctx) = context() else { return };
    let mut rng = StdRng::seed_from_u64(8);
    let n = 700;
    let mut points = random_points::<G>(n, &mut rng);
    points[3] = G::zero();
    let bases = pollster::block_on(ctx.prepare(&points, &MsmConfig::default())).expect("prepare");
    assert_eq!(bases.len(), n);
    for round in 0..3 {
        let scalars = random_scalars::<G>(n, &mut rng);
        let expected = G::Group::msm(&points, &scalars).expect("same lengths");
        assert_eq!(pollster::block_on(ctx.msm(&bases, &scalars)), Ok(expected), "round {round}");
    }
    // The workspace is shared with ordinary calls of another size in between.
    check(ctx, "ordinary call between prepared ones", &points[..100], &random_scalars::<G>(100, &mut rng));
    let scalars = random_scalars::<G>(n, &mut rng);
    let expected = G::Group::msm(&points, &scalars).expect("same lengths");
    assert_eq!(pollster::block_on(ctx.msm(&bases, &scalars)), Ok(expected), "after an ordinary call");

    // Fewer scalars take the first bases (PLONK's commitments over an SRS prefix); more fail.
    let short = random_scalars::<G>(n - 1, &mut rng);
    let expected_short = G::Group::msm(&points[..n - 1], &short).expect("same lengths");
    assert_eq!(pollster::block_on(ctx.msm(&bases, &short)), Ok(expected_short), "prefix");
    assert_eq!(pollster::block_on(ctx.msm(&bases, &short[..0])), Ok(G::Group::zero()), "empty prefix");
    let long = random_scalars::<G>(n + 1, &mut rng);
    let mismatch = MsmError::LengthMismatch { points: n, scalars: n + 1 };
    assert_eq!(pollster::block_on(ctx.msm(&bases, &long)), Err(mismatch));
    let folded = MsmConfig { precompute_factor: 2, ..MsmConfig::default() };
    let folded = pollster::block_on(ctx.prepare(&points, &folded)).expect("prepare with multiples");
    let prefix_error = MsmError::PrefixOfFoldedBases { points: n, scalars: n - 1 };
    assert_eq!(pollster::block_on(ctx.msm(&folded, &short)), Err(prefix_error));

    let split = pollster::block_on(MsmContext::new()).expect("adapter").with_pass_limit(256);
    assert_eq!(pollster::block_on(split.msm(&bases, &scalars)), Err(MsmError::ForeignBases));
    assert_eq!(profiled(&split, &bases, &scalars).err(), Some(MsmError::ForeignBases), "profiled");
    let split_bases = pollster::block_on(split.prepare(&points, &MsmConfig::default())).expect("prepare in passes");
    assert_eq!(pollster::block_on(split.msm(&split_bases, &scalars)), Ok(expected), "3 passes");
    // Prefixes that end inside the first pass, on a pass boundary and inside the second.
    for len in [100, 256, 300] {
        let expected = G::Group::msm(&points[..len], &scalars[..len]).expect("same lengths");
        let got = pollster::block_on(split.msm(&split_bases, &scalars[..len]));
        assert_eq!(got, Ok(expected), "prefix of {len} over passes of 256");
    }
}

/// Prepared bases with a precompute factor (multiples stored on the GPU, windows folded):
/// every factor from 2 to 5 and the largest, identity points, edge scalars, batches, the 13-bit
/// form, passes, and the error for a factor outside 1..=MAX_PRECOMPUTE_FACTOR.
fn precomputed_bases_match_arkworks<G: GpuCurve>() {
    let Some(ctx) = context() else { return };
    let mut rng = StdRng::seed_from_u64(10);
    let n = 300;
    let mut points = random_points::<G>(n, &mut rng);
    points[5] = G::zero();
    let mut scalars = random_scalars::<G>(n, &mut rng);
    scalars[0] = -G::ScalarField::ONE;
    scalars[1] = G::ScalarField::zero();
    let other = random_scalars::<G>(n, &mut rng);
    let msm = |s: &[G::ScalarField]| G::Group::msm(&points, s).expect("same lengths");
    let (expected, expected_other) = (msm(&scalars), msm(&other));
    let max = webgpu_msm::MAX_PRECOMPUTE_FACTOR;
    for factor in [2, 3, 4, 5, max] {
        let options = MsmConfig { precompute_factor: factor, ..MsmConfig::default() };
        let bases = pollster::block_on(ctx.prepare(&points, &options)).expect("prepare");
        let what = format!("{} factor {factor}", G::spec().name);
        assert_eq!(pollster::block_on(ctx.msm(&bases, &scalars)), Ok(expected), "{what}");
        let sets: [&[G::ScalarField]; 2] = [&other, &scalars];
        let batch = batch(ctx, &bases, &sets);
        assert_eq!(batch, Ok(vec![expected_other, expected]), "{what}: batch");
        let (result, profile) = profiled(ctx, &bases, &scalars).expect("profiled");
        assert_eq!((result, profile.plan.fold), (expected, factor), "{what}: profiled");
        let accumulation = profile.steps.iter().find(|s| s.name == "accumulate_chunks");
        assert!(accumulation.is_some_and(|s| s.field_muls > 0), "{what}: the profile counts the accumulation");
    }
    if let Some(narrow) = narrow_context().filter(|_| tests_every_form::<G>()) {
        for factor in [3, max] {
            let bases = pollster::block_on(
                narrow.prepare(&points, &MsmConfig { precompute_factor: factor, ..MsmConfig::default() }),
            );
            let got = pollster::block_on(narrow.msm(&bases.expect("prepare"), &scalars));
            assert_eq!(got, Ok(expected), "13-bit limbs, factor {factor}");
        }
    }
    let split = pollster::block_on(MsmContext::new()).expect("adapter").with_pass_limit(128);
    let bases = pollster::block_on(split.prepare(&points, &MsmConfig { precompute_factor: 4, ..MsmConfig::default() }));
    let bases = bases.expect("prepare");
    assert_eq!(pollster::block_on(split.msm(&bases, &scalars)), Ok(expected), "passes");
    // Profiles take bases of one pass: InputTooLarge names the pass size.
    let too_large = profiled(&split, &bases, &scalars);
    assert!(matches!(too_large.err(), Some(MsmError::InputTooLarge { n: 300, .. })));
    for factor in [0, max + 1] {
        let bad =
            pollster::block_on(ctx.prepare(&points, &MsmConfig { precompute_factor: factor, ..MsmConfig::default() }));
        assert_eq!(bad.err(), Some(MsmError::InvalidPrecomputeFactor { factor, max }));
    }
}

/// Prepared bases with stored multiples in the plan hardware GPUs run (`Plan::shaped`, spread): a
/// folded plan keeps an unfolded call's chunk length, so each window holds F times its chunks
/// and one bucket's carries (all scalars equal) span several carry groups. Random and equal
/// scalars, on the context of `ctx` (the hardware profile on this adapter).
fn precomputed_bases_in_a_hardware_plan<G: GpuCurve>(ctx: Option<&MsmContext>) {
    use webgpu_msm::plan::{Plan, CARRY_GROUP};
    let Some(ctx) = ctx else { return };
    let (n, factor) = (4096, 4);
    let shape = pollster::block_on(ctx.warm_up(G::ID)).expect("calibrates").kernels.plan;
    // As `prepare` plans a pass of bases (for scalars of up to 256 bits).
    let plan = Plan::folded(n as u32, 256, factor).shaped(shape);
    assert!(plan.chunks_per_window > 2 * CARRY_GROUP, "several carry groups per bucket: {plan:?}");
    let mut rng = StdRng::seed_from_u64(13);
    let points = random_points::<G>(n, &mut rng);
    let random = random_scalars::<G>(n, &mut rng);
    let equal = vec![random[0]; n];
    let options = MsmConfig { precompute_factor: factor, ..MsmConfig::default() };
    let bases = pollster::block_on(ctx.prepare(&points, &options)).expect("prepare");
    for (what, scalars) in [("random scalars", &random), ("all scalars equal", &equal)] {
        let expected = G::Group::msm(&points, scalars).expect("same lengths");
        let got = pollster::block_on(ctx.msm(&bases, scalars));
        assert_eq!(got, Ok(expected), "{} factor {factor}, {what}", G::spec().name);
    }
}

/// Batch MSM: every set equals arkworks, over uploaded points and prepared bases, through
/// passes and through more sets than one pass takes; the errors for a set of another length
/// (the first such set named, before any GPU work) and for another context's bases; no sets
/// give no results.
fn batch_msm_matches_arkworks_per_set<G: GpuCurve>() {
    let Some(ctx) = context() else { return };
    let mut rng = StdRng::seed_from_u64(9);
    let n = 300;
    let mut points = random_points::<G>(n, &mut rng);
    points[7] = G::zero();
    let mut sets: Vec<Vec<G::ScalarField>> = (0..5).map(|_| random_scalars::<G>(n, &mut rng)).collect();
    sets.push(vec![G::ScalarField::zero(); n]);
    sets.push(vec![-G::ScalarField::ONE; n]);
    let expected = |sets: &[Vec<G::ScalarField>]| -> Vec<G::Group> {
        sets.iter().map(|set| G::Group::msm(&points, set).expect("same lengths")).collect()
    };
    assert_eq!(batch(ctx, &points, &refs(&sets)), Ok(expected(&sets)), "{}", G::spec().name);
    assert_eq!(batch(ctx, &points, &refs(&sets[..1])), Ok(expected(&sets[..1])), "one set");
    assert_eq!(batch(ctx, &points, &[]), Ok(vec![]));

    let bases = pollster::block_on(ctx.prepare(&points, &MsmConfig::default())).expect("prepare");
    assert_eq!(batch(ctx, &bases, &refs(&sets)), Ok(expected(&sets)), "prepared");
    assert_eq!(batch(ctx, &bases, &[]), Ok(vec![]));

    let short = random_scalars::<G>(n - 1, &mut rng);
    let mut with_short = refs(&sets[..2]);
    with_short.push(&short);
    with_short.push(&short);
    let mismatch = MsmError::SetLengthMismatch { set: 2, points: n, scalars: n - 1 };
    assert_eq!(batch(ctx, &points, &with_short).err(), Some(mismatch.clone()));
    assert_eq!(batch(ctx, &bases, &with_short).err(), Some(mismatch));

    // Three passes of points, and more sets than one pass takes (two groups per pass).
    let split = pollster::block_on(MsmContext::new()).expect("adapter").with_pass_limit(128);
    assert_eq!(batch(&split, &bases, &refs(&sets)).err(), Some(MsmError::ForeignBases));
    let many: Vec<Vec<G::ScalarField>> =
        (0..webgpu_msm::plan::MAX_SETS_PER_PASS as usize + 3).map(|_| random_scalars::<G>(n, &mut rng)).collect();
    assert_eq!(batch(&split, &points, &refs(&many)), Ok(expected(&many)), "passes and groups");
    let split_bases = pollster::block_on(split.prepare(&points, &MsmConfig::default())).expect("prepare in passes");
    assert_eq!(batch(&split, &split_bases, &refs(&many)), Ok(expected(&many)));
}

/// The scalar sets as the batch API takes them.
fn refs<F>(sets: &[Vec<F>]) -> Vec<&[F]> {
    sets.iter().map(Vec::as_slice).collect()
}

/// Points of a curve that lie on it but, where its cofactor is not 1, outside its prime-order
/// group: a random coordinate, no cofactor cleared.
trait OffSubgroup: GpuCurve {
    /// Such a point, or `None` where every point found is in the group (cofactor 1).
    fn off_subgroup(rng: &mut StdRng) -> Option<Self>;
}

impl<C: ark_ec::short_weierstrass::SWCurveConfig> OffSubgroup for ark_ec::short_weierstrass::Affine<C>
where
    Self: GpuCurve,
{
    fn off_subgroup(rng: &mut StdRng) -> Option<Self> {
        (0..32)
            .filter_map(|_| Self::get_point_from_x_unchecked(C::BaseField::rand(rng), false))
            .find(|p| !p.is_in_correct_subgroup_assuming_on_curve())
    }
}

impl<C: ark_ec::twisted_edwards::TECurveConfig> OffSubgroup for ark_ec::twisted_edwards::Affine<C>
where
    Self: GpuCurve,
{
    fn off_subgroup(rng: &mut StdRng) -> Option<Self> {
        (0..32)
            .filter_map(|_| Self::get_point_from_y_unchecked(C::BaseField::rand(rng), false))
            .find(|p| !p.is_in_correct_subgroup_assuming_on_curve())
    }
}

/// `MsmConfig::check_subgroup`: points in the group (the identity among them) get arkworks'
/// answer, over points and bases prepared with the check; a point on the curve outside the group
/// gets `NotInSubgroup` naming the first one, from both and from a blinded `prepare`; without the
/// check the same input gets arkworks' answer. Curves of cofactor 1 have no such point.
fn subgroup_check<G: OffSubgroup>(ctx: Option<&MsmContext>) {
    let Some(ctx) = ctx else { return };
    let mut rng = StdRng::seed_from_u64(31);
    let n = 300;
    let mut points = random_points::<G>(n, &mut rng);
    points[3] = G::zero();
    let scalars = random_scalars::<G>(n, &mut rng);
    let checked = MsmConfig { check_subgroup: true, ..MsmConfig::default() };
    let msm_checked = |points: &[G]| {
        pollster::block_on(ctx.msm_with(points, &[&scalars], &checked)).map(|mut output| output.results.remove(0))
    };
    let expected = G::Group::msm(&points, &scalars).expect("same lengths");
    assert_eq!(msm_checked(&points), Ok(expected), "points in the group, checked");
    let bases = pollster::block_on(ctx.prepare(&points, &checked)).expect("points in the group pass the check");
    assert_eq!(pollster::block_on(ctx.msm(&bases, &scalars)), Ok(expected), "prepared with the check");

    let Some(outside) = G::off_subgroup(&mut rng) else {
        assert!(G::spec().prime_order, "{}: no point outside the group found", G::spec().name);
        return;
    };
    assert!(!G::spec().prime_order);
    let mut bad = points.clone();
    bad[211] = outside;
    bad[250] = outside;
    let not_in_subgroup = MsmError::NotInSubgroup { index: 211 };
    assert_eq!(msm_checked(&bad), Err(not_in_subgroup.clone()), "an MSM over points");
    assert_eq!(pollster::block_on(ctx.prepare(&bad, &checked)).err(), Some(not_in_subgroup.clone()), "prepare");
    // Blinding is exact only on the group: it checks too.
    let blinded = MsmConfig { blinding: Some([1; 32]), ..MsmConfig::default() };
    assert_eq!(pollster::block_on(ctx.prepare(&bad, &blinded)).err(), Some(not_in_subgroup), "prepare blinded");
    let expected = G::Group::msm(&bad, &scalars).expect("same lengths");
    assert_eq!(pollster::block_on(ctx.msm(&bad, &scalars)), Ok(expected), "unchecked, outside the group");
}

/// `MsmConfig::blinding`: bases prepared blinded give arkworks' answer for uniform, zero,
/// equal and r − 1 scalars, a prefix (twice: its blinding sum computed, then kept), a batch, a
/// call over points with blinding, and through the bytes API full 256-bit scalars (reduced mod
/// r on the GPU before the factor is added).
fn blinded_bases_match_arkworks<G: GpuCurve>(ctx: Option<&MsmContext>) {
    use webgpu_msm::testing::encode_point;
    let Some(ctx) = ctx else { return };
    let mut rng = StdRng::seed_from_u64(41);
    let n = 300;
    let mut points = random_points::<G>(n, &mut rng);
    points[7] = G::zero();
    let blinded = MsmConfig { blinding: Some([7; 32]), ..MsmConfig::default() };
    let bases = pollster::block_on(ctx.prepare(&points, &blinded)).expect("points in the group");
    assert!(bases.blinded());
    let msm = |s: &[G::ScalarField]| G::Group::msm(&points[..s.len()], s).expect("no longer than the points");
    let uniform = random_scalars::<G>(n, &mut rng);
    let zeros = vec![G::ScalarField::zero(); n];
    let equal = vec![G::ScalarField::from(3u64); n];
    let minus_one = vec![-G::ScalarField::ONE; n];
    for (what, scalars) in [
        ("uniform", &uniform[..]),
        ("zero", &zeros),
        ("equal", &equal),
        ("r − 1", &minus_one),
        ("a prefix", &uniform[..123]),
        ("the prefix again", &uniform[..123]),
    ] {
        assert_eq!(pollster::block_on(ctx.msm(&bases, scalars)), Ok(msm(scalars)), "{} {what}", G::spec().name);
    }
    assert_eq!(batch(ctx, &bases, &[&uniform, &zeros]), Ok(vec![msm(&uniform), G::Group::zero()]), "a batch");
    let over_points = pollster::block_on(ctx.msm_with(&points, &[&uniform], &blinded)).map(|o| o.results);
    assert_eq!(over_points, Ok(vec![msm(&uniform)]), "a call over points");

    let point_bytes: Vec<u8> = points.iter().flat_map(|p| encode_point::<G>(&p.into_group())).collect();
    let prepared = pollster::block_on(ctx.prepare_bytes(G::ID, &point_bytes, &blinded)).expect("valid bytes");
    let wide: Vec<[u8; 32]> =
        (0..n).map(|i| if i % 3 == 0 { [0xff; 32] } else { ark_std::rand::Rng::gen(&mut rng) }).collect();
    let as_scalars: Vec<G::ScalarField> = wide.iter().map(|b| G::ScalarField::from_le_bytes_mod_order(b)).collect();
    let got = crate::bytes_call::msm_bytes(ctx, G::ID, &prepared, &wide.concat(), &MsmConfig::default());
    assert_eq!(got, Ok(encode_point::<G>(&msm(&as_scalars))), "bytes API, scalars up to 2^256 − 1");
}

/// The tests above, for one curve, as its test tier says (tests/support/tiers.rs).
macro_rules! curve_tests {
    ($module:ident, $affine:ty, $tier:ident) => {
        mod $module {
            use super::*;
            type G = $affine;

            // The tests on the kernels the adapter chooses itself, on the shared context: in an
            // `every_plan` group the module `adapter_default`, what a second adapter's lane runs
            // (scripts/test-swiftshader.sh selects it); in a `kernels_only` group `kernels`,
            // lavapipe's lane only.
            default_kernels_module! { $tier,
                use super::*;

                #[test]
                fn sizes_from_0_to_4096() {
                    super::super::sizes_from_0_to_4096::<G>();
                }

                #[test]
                fn edge_cases() {
                    super::super::edge_cases::<G>(context());
                }

                #[test]
                fn skewed_scalars() {
                    super::super::skewed_scalars::<G>(context());
                }

                #[test]
                fn bucket_larger_than_a_thread_can_sum() {
                    super::super::bucket_larger_than_a_thread_can_sum::<G>(context());
                }

                #[test]
                fn prepared_bases_match_arkworks() {
                    super::super::prepared_bases_match_arkworks::<G>();
                }

                #[test]
                fn bad_inputs_get_typed_errors() {
                    super::super::bad_inputs_get_typed_errors::<G>();
                }

                #[test]
                fn subgroup_check() {
                    super::super::subgroup_check::<G>(context());
                }

                #[test]
                fn blinded_bases_match_arkworks() {
                    super::super::blinded_bases_match_arkworks::<G>(context());
                }
            }

            /// The 13-bit field form browsers run, natively (the default context uses 32-bit
            /// limbs where the device has 64-bit integers, as lavapipe does).
            #[test]
            fn edge_cases_in_13_bit_limbs() {
                super::edge_cases::<G>(narrow_context());
            }

            /// SwiftShader's profile where it runs the curve in a form no other context here runs
            /// (ed-on-bls12-377's straight-line product-scanned accumulation, the other G1
            /// curves' batched products each in its own loop), on this adapter: the same
            /// answers as on a second driver.
            #[test]
            fn edge_cases_in_swiftshaders_form() {
                if swiftshader_runs_its_own_form(G::spec()) {
                    super::edge_cases::<G>(swiftshader_context());
                }
            }

            #[test]
            fn edge_cases_in_the_form_of_hardware_gpus() {
                if tests_every_form::<G>() {
                    super::edge_cases::<G>(gpu_form_context());
                    super::edge_cases::<G>(gpu_narrow_context());
                    // Precomputed bases in hardware GPUs' plan: the host's plan (the kernels'
                    // carry groups are src/gpu/tests.rs's, for every curve).
                    if stringify!($tier) == "every_plan" {
                        super::precomputed_bases_in_a_hardware_plan::<G>(gpu_form_context());
                    }
                }
            }

            // The host's plans for larger inputs (passes, precomputed bases, batches) and a
            // second context: host code that reads only the point's size, in `every_plan`
            // groups only (a `kernels_only` curve has a representative of its shape).
            every_plan_only! { $tier,
                mod host_plans {
                    use super::*;

                    #[test]
                    fn large_inputs_are_split_into_passes() {
                        super::super::large_inputs_are_split_into_passes::<G>();
                    }

                    #[test]
                    fn precomputed_bases_match_arkworks() {
                        super::super::precomputed_bases_match_arkworks::<G>();
                    }

                    #[test]
                    fn batch_msm_matches_arkworks_per_set() {
                        super::super::batch_msm_matches_arkworks_per_set::<G>();
                    }

                    /// A second context (the crate's own): its kernels compile once more.
                    #[test]
                    fn default_context_computes_the_same_result() {
                        super::super::default_context_computes_the_same_result::<G>();
                    }
                }
            }
        }
    };
}

webgpu_msm::for_each_curve!(curve_tests);

/// With `WEBGPU_MSM_EXPECT_ADAPTER` set (scripts/test.sh sets it), the tests must run on an
/// adapter whose name contains it: a run meant for SwiftShader cannot silently use lavapipe.
#[test]
fn runs_on_the_expected_adapter() {
    let Ok(expected) = std::env::var("WEBGPU_MSM_EXPECT_ADAPTER") else { return };
    let ctx = context().expect("WEBGPU_MSM_EXPECT_ADAPTER is set but there is no adapter");
    let name = ctx.adapter_info().name;
    assert!(name.contains(&expected), "adapter {name:?} is not {expected:?}");
}
