//! Support for this crate's GPU tests (unit and integration), examples and benchmarks; not part
//! of the API. The crate's internal modules (`plan`, `step`, `wgsl`, `curve`, …) are public too
//! with the feature `test-hooks`, for the shader tests.

use std::sync::OnceLock;

use crate::step::Accumulation;
use crate::{ContextOptions, DeviceProfile, GpuCurve, MsmContext, MsmError};

/// A context on the default adapter that accumulates every curve with `accumulation`.
fn with_accumulation(accumulation: Accumulation) -> Result<MsmContext, MsmError> {
    let options = ContextOptions { accumulation: Some(accumulation), ..ContextOptions::default() };
    pollster::block_on(MsmContext::new())?.with_options(options)
}

/// The checks the host makes before an MSM of a points buffer and one scalars buffer of curve
/// `G` (`BadLength`, then `LengthMismatch`); the number of points.
pub fn check_lengths<G: GpuCurve>(points: &[u8], scalars: &[u8]) -> Result<usize, MsmError> {
    crate::bytes::check_lengths::<G>(points, &[scalars])
}

/// A point in the bytes API's points encoding (canonical form).
pub fn encode_point<G: GpuCurve>(point: &G::Group) -> Vec<u8> {
    crate::bytes::encode_point::<G>(point)
}

/// The default context shared by the GPU tests of one test binary, created on first use.
///
/// Without an adapter it prints `SKIPPED` and returns `None`, so a developer machine without a
/// GPU still runs the CPU tests; with `CI=true` it panics instead, so CI can never pass by
/// skipping the GPU. With `WEBGPU_MSM_EXPECT_ADAPTER` set (the test scripts set it), it panics
/// unless the adapter's name contains it: a run meant for one software GPU cannot silently use
/// another.
pub fn shared_context() -> Option<&'static MsmContext> {
    static CONTEXT: OnceLock<Option<MsmContext>> = OnceLock::new();
    let create = || {
        let ctx = or_skip(pollster::block_on(MsmContext::new()))?;
        if let Ok(expected) = std::env::var("WEBGPU_MSM_EXPECT_ADAPTER") {
            let name = ctx.adapter_info().name;
            assert!(name.contains(&expected), "adapter {name:?} is not {expected:?} (WEBGPU_MSM_EXPECT_ADAPTER)");
        }
        Some(ctx)
    };
    CONTEXT.get_or_init(create).as_ref()
}

/// A context on the default adapter that runs `profile`'s kernels and plans
/// ([`MsmContext::with_profile`]), in 32-bit limbs only (`wide`, where the adapter has 64-bit
/// integers) or in 13-bit limbs only: nothing to calibrate, so the tests choose what runs. One
/// context per preset and width, shared by the tests of one binary; `profile` is one of
/// [`DeviceProfile::ALL`].
pub fn shared_profile_context(profile: DeviceProfile, wide: bool) -> Option<&'static MsmContext> {
    static CONTEXTS: [[OnceLock<Option<MsmContext>>; 2]; DeviceProfile::ALL.len()] =
        [const { [const { OnceLock::new() }, const { OnceLock::new() }] }; DeviceProfile::ALL.len()];
    let preset = DeviceProfile::ALL.iter().position(|p| p.name == profile.name);
    let cell = &CONTEXTS[preset.unwrap_or_else(|| panic!("{} is not a preset", profile.name))][usize::from(wide)];
    let profile = DeviceProfile { int64: wide, narrow_with_int64: !wide, ..profile };
    cell.get_or_init(|| or_skip(pollster::block_on(MsmContext::new()).map(|ctx| ctx.with_profile(profile)))).as_ref()
}

/// Like [`shared_context`], but in 13-bit limbs, what a browser on this adapter runs, so they
/// are tested natively too where the default context uses 64-bit integers.
pub fn shared_narrow_context() -> Option<&'static MsmContext> {
    shared_profile_context(*shared_context()?.device_profile(), false)
}

/// Like [`shared_context`], but with SwiftShader's profile ([`DeviceProfile::SWIFTSHADER`],
/// 13-bit limbs: it has no 64-bit integers), so its forms and rules run on this adapter too.
pub fn shared_swiftshader_context() -> Option<&'static MsmContext> {
    shared_profile_context(DeviceProfile::SWIFTSHADER, false)
}

/// Whether SwiftShader's profile runs the curve of `spec` in a 13-bit form of its own, one
/// that neither [`shared_narrow_context`] (on a software GPU) nor
/// [`shared_gpu_narrow_context`] runs.
pub fn swiftshader_runs_its_own_form(spec: &crate::curve::CurveSpec) -> bool {
    let form = DeviceProfile::SWIFTSHADER.narrow_form(spec);
    form != DeviceProfile::LLVMPIPE.narrow_form(spec) && form != DeviceProfile::HARDWARE.narrow_form(spec)
}

/// Like [`shared_context`], but with hardware GPUs' profile ([`DeviceProfile::HARDWARE`]:
/// products one after another, spread plans) in 32-bit limbs, or 13-bit ones on an adapter
/// without 64-bit integers, so it is tested on the software GPUs too. Small inputs stay well
/// within the loop budget in it ([`DeviceProfile::plan_shape`]).
pub fn shared_gpu_form_context() -> Option<&'static MsmContext> {
    shared_profile_context(DeviceProfile::HARDWARE, true)
}

/// [`shared_gpu_form_context`] in 13-bit limbs.
pub fn shared_gpu_narrow_context() -> Option<&'static MsmContext> {
    shared_profile_context(DeviceProfile::HARDWARE, false)
}

/// Like [`shared_context`], but accumulating BLS12-377 on its Edwards model with extended
/// stored points ([`Accumulation::Edwards`]), so that path is tested where the adapter's
/// profile runs affine ones first ([`DeviceProfile::edwards_accumulations`]).
pub fn shared_extended_edwards_context() -> Option<&'static MsmContext> {
    static CONTEXT: OnceLock<Option<MsmContext>> = OnceLock::new();
    CONTEXT.get_or_init(|| or_skip(with_accumulation(Accumulation::Edwards))).as_ref()
}

/// The accumulation BLS12-377 runs on `ctx` where calibration does not time the accumulations:
/// the first of its profile's [`DeviceProfile::edwards_accumulations`].
pub fn default_edwards_accumulation(ctx: &MsmContext) -> Accumulation {
    ctx.device_profile().edwards_accumulations[0]
}

/// The accumulation BLS12-377's prepared bases run on `ctx` where its calls run `calls`
/// ([`DeviceProfile::prepared_bases_accumulation`]).
pub fn bases_edwards_accumulation(ctx: &MsmContext, calls: Accumulation) -> Accumulation {
    ctx.device_profile().prepared_bases_accumulation(calls)
}

fn or_skip(result: Result<MsmContext, MsmError>) -> Option<MsmContext> {
    match result {
        Ok(ctx) => Some(ctx),
        Err(e) if std::env::var("CI").as_deref() == Ok("true") => panic!("CI=true but no GPU adapter: {e}"),
        Err(e) => {
            eprintln!("SKIPPED: no GPU adapter ({e})");
            None
        }
    }
}

/// Whether the tests run curve `G` in every field form and accumulation, or only in the default
/// context's and (end to end, `tests/msm.rs`) in the 13-bit form browsers run: every curve but the
/// G2 groups over 381- and 377-bit fields, whose 13-bit Fp2 pipelines take about 40 s to compile on
/// a software GPU, per form. bn254-g2 runs every form, and the G2 code is the same for all three
/// but for the constants.
pub fn tests_every_form<G: GpuCurve>() -> bool {
    let spec = G::spec();
    spec.extension.is_none() || spec.wide_field.limbs <= 8
}

/// A circuit of `steps` constraints for tests, examples and benchmarks: knowledge of x with
/// v₀ = x, v_(i+1) = v_i² + x and v_steps = y, the one public input. `x: None` synthesizes it
/// for key generation.
#[cfg(feature = "groth16")]
#[derive(Clone, Debug)]
pub struct ChainCircuit<F> {
    /// Number of squarings (one constraint each, plus one for the output).
    pub steps: usize,
    /// The secret start, or `None` for key generation.
    pub x: Option<F>,
}

#[cfg(feature = "groth16")]
impl<F: ark_ff::Field> ChainCircuit<F> {
    /// The public output y of the chain started at `x`.
    pub fn output(steps: usize, x: F) -> F {
        (0..steps).fold(x, |v, _| v.square() + x)
    }
}

#[cfg(feature = "groth16")]
impl<F: ark_ff::PrimeField> ark_relations::gr1cs::ConstraintSynthesizer<F> for ChainCircuit<F> {
    fn generate_constraints(
        self,
        cs: ark_relations::gr1cs::ConstraintSystemRef<F>,
    ) -> Result<(), ark_relations::gr1cs::SynthesisError> {
        use ark_relations::gr1cs::{SynthesisError, Variable};
        use ark_relations::lc;
        let missing = || SynthesisError::AssignmentMissing;
        let y = cs.new_input_variable(|| self.x.map(|x| Self::output(self.steps, x)).ok_or_else(missing))?;
        let x = cs.new_witness_variable(|| self.x.ok_or_else(missing))?;
        let (mut v, mut value) = (x, self.x);
        for _ in 0..self.steps {
            let next_value = value.zip(self.x).map(|(v, x)| v.square() + x);
            let next = cs.new_witness_variable(|| next_value.ok_or_else(missing))?;
            // v · v = next − x
            cs.enforce_r1cs_constraint(|| lc!() + v, || lc!() + v, || lc!() + next - x)?;
            (v, value) = (next, next_value);
        }
        cs.enforce_r1cs_constraint(|| lc!() + v, || lc![Variable::One], || lc!() + y)
    }
}
