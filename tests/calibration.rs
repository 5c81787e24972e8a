//! The kernels a context chooses per curve (`webgpu_msm::calibrate`): what it measures, what the
//! caller's overrides fix, that a second context on the same adapter reuses the choice, and that
//! every choice computes arkworks' result. No assertion depends on which candidate is faster.
//! Runs on the default adapter (lavapipe in CI); without one it prints SKIPPED, and fails when
//! `CI=true`.

use ark_ec::VariableBaseMSM;
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use pollster::block_on;
use webgpu_msm::curve::Equation;
use webgpu_msm::inputs::random_points;
use webgpu_msm::step::{Accumulation, Kernels};
use webgpu_msm::testing::{bases_edwards_accumulation, default_edwards_accumulation, shared_context, tests_every_form};
use webgpu_msm::wgsl::MulForm;
use webgpu_msm::{Calibration, ContextOptions, CurveFn, CurveId, GpuCurve, MsmConfig, MsmContext};

/// Asserts `ctx` computes arkworks' MSM on `G` with whatever kernels it chose.
fn matches_arkworks<G: GpuCurve>(ctx: &MsmContext) {
    let mut rng = StdRng::seed_from_u64(7);
    let points: Vec<G> = random_points::<G, _>(300, &mut rng);
    let scalars: Vec<G::ScalarField> = (0..300).map(|_| G::ScalarField::rand(&mut rng)).collect();
    let expected = G::Group::msm(&points, &scalars).expect("same lengths");
    assert_eq!(block_on(ctx.msm(&points, &scalars)), Ok(expected), "{}", G::ID);
}

fn calibration<G: GpuCurve>(ctx: &MsmContext) -> Calibration {
    block_on(ctx.warm_up(G::ID)).unwrap_or_else(|e| panic!("{} calibrates: {e}", G::ID))
}

fn is_short_weierstrass<G: GpuCurve>() -> bool {
    match G::spec().equation {
        Equation::ShortWeierstrassA0 { .. } => true,
        Equation::TwistedEdwardsAMinus1 { .. } => false,
    }
}

/// The default context's choice for every curve: one of the forms the device runs (both
/// measured where it has 64-bit integers), the default accumulation unmeasured on a device too
/// slow for the budget (on BLS12-377 the Edwards model, with affine stored points on software
/// GPUs; projective elsewhere) or a measured one, the faster of those measured.
struct DefaultChoice;

impl CurveFn for DefaultChoice {
    type Output = ();
    fn call<G: GpuCurve>(self) {
        let Some(ctx) = shared_context() else { return };
        let chosen = calibration::<G>(ctx);
        assert!(!chosen.provisional, "warm_up waits for the measurement: {chosen:?}");
        if chosen.form_rates.is_empty() {
            assert!(!chosen.kernels.form.needs_int64(), "only the 13-bit form runs without 64-bit integers");
        } else {
            assert_eq!(chosen.form_rates.len(), 2, "{chosen:?}");
            let fastest = chosen.form_rates.iter().max_by(|a, b| a.1.total_cmp(&b.1)).expect("two rates");
            assert_eq!(chosen.kernels.form, fastest.0, "the faster measured form: {chosen:?}");
        }
        match chosen.accumulation_seconds.iter().min_by(|a, b| a.1.total_cmp(&b.1)) {
            Some((fastest, _)) => assert_eq!(chosen.kernels.accumulation, *fastest, "{chosen:?}"),
            None => {
                let first = default_edwards_accumulation(ctx).on(G::spec());
                assert_eq!(chosen.kernels.accumulation, first, "{chosen:?}")
            }
        }
        if !is_short_weierstrass::<G>() {
            assert!(chosen.accumulation_seconds.is_empty(), "twisted Edwards runs projective only: {chosen:?}");
        }
        matches_arkworks::<G>(ctx);
    }
}

#[test]
fn the_default_context_runs_the_faster_measured_kernels_on_every_curve() {
    for curve in CurveId::ALL {
        curve.call(DefaultChoice);
    }
}

/// A second context on the same adapter takes the first one's calibration (the same
/// measurements, not new ones).
struct Reused;

impl CurveFn for Reused {
    type Output = ();
    fn call<G: GpuCurve>(self) {
        let Some(first) = shared_context() else { return };
        let second = block_on(MsmContext::new()).expect("a second context on the same adapter");
        assert_eq!(calibration::<G>(&second), calibration::<G>(first), "{}", G::ID);
    }
}

#[test]
fn a_second_context_on_the_adapter_reuses_the_calibration() {
    CurveId::ALL[0].call(Reused);
}

/// What the caller fixes is not measured: `ContextOptions::mul_form` fixes the form,
/// `ContextOptions::accumulation` the accumulation (projective on twisted Edwards curves, which have no other); the fixed
/// kernels compute arkworks' answer.
struct Overrides;

impl CurveFn for Overrides {
    type Output = ();
    fn call<G: GpuCurve>(self) {
        if shared_context().is_none() {
            return;
        }
        let options = ContextOptions {
            mul_form: Some(MulForm::ROLLED),
            accumulation: Some(Accumulation::Projective),
            ..ContextOptions::default()
        };
        let ctx = block_on(MsmContext::new())
            .and_then(|ctx| ctx.with_options(options))
            .expect("every adapter runs the 13-bit form");
        let chosen = calibration::<G>(&ctx);
        assert_eq!(chosen.kernels.form, MulForm::ROLLED);
        assert_eq!(chosen.kernels.accumulation, Accumulation::Projective);
        assert!(chosen.form_rates.is_empty() && chosen.accumulation_seconds.is_empty(), "{chosen:?}");
        // The fixed kernels' answer, where the tests run every form: the BLS12 G2 groups' 13-bit
        // pipelines would add minutes of lavapipe compiling to CI.
        if tests_every_form::<G>() {
            matches_arkworks::<G>(&ctx);
        }
    }
}

#[test]
fn fixed_kernels_are_not_measured() {
    for curve in CurveId::ALL {
        curve.call(Overrides);
    }
}

/// With an unlimited budget the accumulations are timed on every device (lavapipe included)
/// and the faster is kept: on a curve with a twisted Edwards model, the only curves with more
/// than one candidate.
struct FullCalibration;

impl CurveFn for FullCalibration {
    type Output = bool;
    fn call<G: GpuCurve>(self) -> bool {
        if G::spec().edwards.is_none() {
            return false;
        }
        let Some(_) = shared_context() else { return true };
        let unlimited = ContextOptions { calibration_budget: f64::INFINITY, ..ContextOptions::default() };
        let ctx = block_on(MsmContext::new()).and_then(|ctx| ctx.with_options(unlimited)).expect("adapter");
        let chosen = calibration::<G>(&ctx);
        let measured: Vec<Accumulation> = chosen.accumulation_seconds.iter().map(|(a, _)| *a).collect();
        assert_eq!(measured, ctx.device_profile().accumulations(G::spec()), "{chosen:?}");
        let fastest = chosen.accumulation_seconds.iter().min_by(|a, b| a.1.total_cmp(&b.1)).expect("two");
        assert_eq!(chosen.kernels.accumulation, fastest.0, "{chosen:?}");
        matches_arkworks::<G>(&ctx);
        // Prepared bases keep affine Edwards points whichever Edwards form the calls won with
        // (their runner kept from calibration where it was the losing candidate).
        let mut rng = StdRng::seed_from_u64(31);
        let points: Vec<G> = random_points::<G, _>(300, &mut rng);
        let scalars: Vec<G::ScalarField> = (0..300).map(|_| G::ScalarField::rand(&mut rng)).collect();
        let bases = block_on(ctx.prepare(&points, &MsmConfig::default())).expect("prepares");
        let expected = bases_edwards_accumulation(&ctx, chosen.kernels.accumulation);
        assert_eq!(bases.kernels(), Kernels { accumulation: expected, ..chosen.kernels });
        let msm = G::Group::msm(&points, &scalars).expect("same lengths");
        assert_eq!(block_on(ctx.msm(&bases, &scalars)), Ok(msm));
        true
    }
}

#[test]
fn an_unlimited_budget_times_both_accumulations() {
    // One curve is enough: it compiles the curve once per candidate.
    let _ = CurveId::ALL.iter().any(|curve| curve.call(FullCalibration));
}
