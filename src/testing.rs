//! Support for this crate's GPU tests (unit and integration), examples and benchmarks; not part
//! of the API. The crate's internal modules (`plan`, `step`, `wgsl`, `curve`, …) are public too
//! with the feature `test-hooks`, for the shader tests.

use std::sync::OnceLock;

use crate::step::Accumulation;
use crate::wgsl::MulForm;
use crate::{ContextOptions, GpuCurve, MsmContext, MsmError};

/// A context on the default adapter whose shaders use `form` for every curve.
fn with_mul_form(form: MulForm) -> Result<MsmContext, MsmError> {
    let options = ContextOptions { mul_form: Some(form), ..ContextOptions::default() };
    pollster::block_on(MsmContext::new())?.with_options(options)
}

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
/// skipping the GPU.
pub fn shared_context() -> Option<&'static MsmContext> {
    static CONTEXT: OnceLock<Option<MsmContext>> = OnceLock::new();
    CONTEXT.get_or_init(|| or_skip(pollster::block_on(MsmContext::new()))).as_ref()
}

/// Like [`shared_context`], but with the 13-bit rolled field form that browsers run, so it is
/// tested natively too where the default context uses 64-bit integers ([`MulForm::WIDE`]).
pub fn shared_narrow_context() -> Option<&'static MsmContext> {
    static CONTEXT: OnceLock<Option<MsmContext>> = OnceLock::new();
    CONTEXT.get_or_init(|| or_skip(with_mul_form(MulForm::ROLLED))).as_ref()
}

/// Like [`shared_context`], but in one of the 13-bit forms SwiftShader runs (see
/// [`swiftshader_form`]), so that it is tested on lavapipe too: one context per form.
pub fn shared_swiftshader_form_context(form: MulForm) -> Option<&'static MsmContext> {
    static ED: OnceLock<Option<MsmContext>> = OnceLock::new();
    static OTHERS: OnceLock<Option<MsmContext>> = OnceLock::new();
    let cell = match form {
        MulForm::ROLLED_SWIFTSHADER => &ED,
        MulForm::ROLLED_SUBZERO => &OTHERS,
        other => panic!("{other:?} is not one of SwiftShader's own forms"),
    };
    cell.get_or_init(|| or_skip(with_mul_form(form))).as_ref()
}

/// The 13-bit form SwiftShader runs `spec` in (see `calibrate::narrow_form`) where it is its
/// own, not [`MulForm::ROLLED`] or [`MulForm::ROLLED_GPU`], which other contexts test:
/// [`MulForm::ROLLED_SWIFTSHADER`] (ed-on-bls12-377, whose accumulation is straight-line and
/// product-scanned) or [`MulForm::ROLLED_SUBZERO`] (the other G1 curves).
pub fn swiftshader_form(spec: &crate::curve::CurveSpec) -> Option<MulForm> {
    let form = crate::calibrate::narrow_form_on(true, true, spec);
    (form != MulForm::ROLLED && form != MulForm::ROLLED_GPU).then_some(form)
}

/// Like [`shared_context`], but with the field form of hardware GPUs (products one after
/// another: [`MulForm::WIDE_GPU`], or [`MulForm::ROLLED_GPU`] on an adapter without 64-bit
/// integers), so it is tested on the software GPUs too. lavapipe's loop budget (see
/// [`MulForm::batched`]) is why it is not their default; small inputs stay well within it.
pub fn shared_gpu_form_context() -> Option<&'static MsmContext> {
    static CONTEXT: OnceLock<Option<MsmContext>> = OnceLock::new();
    CONTEXT
        .get_or_init(|| {
            let form = MulForm::for_device(false, shared_context()?.gpu().int64);
            or_skip(with_mul_form(form))
        })
        .as_ref()
}

/// [`shared_gpu_form_context`] in 13-bit limbs ([`MulForm::ROLLED_GPU`]).
pub fn shared_gpu_narrow_context() -> Option<&'static MsmContext> {
    static CONTEXT: OnceLock<Option<MsmContext>> = OnceLock::new();
    CONTEXT.get_or_init(|| or_skip(with_mul_form(MulForm::ROLLED_GPU))).as_ref()
}

/// Like [`shared_context`], but with batch-affine bucket accumulation on short Weierstrass
/// curves ([`Accumulation::BatchAffine`]), so that path is tested too.
pub fn shared_batch_affine_context() -> Option<&'static MsmContext> {
    static CONTEXT: OnceLock<Option<MsmContext>> = OnceLock::new();
    CONTEXT.get_or_init(|| or_skip(with_accumulation(Accumulation::BatchAffine))).as_ref()
}

/// Like [`shared_context`], but accumulating BLS12-377 on its Edwards model with extended
/// stored points ([`Accumulation::Edwards`], what hardware GPUs and SwiftShader run unless
/// calibration finds otherwise), so that path is tested on lavapipe too, whose default is
/// [`Accumulation::EdwardsAffine`].
pub fn shared_extended_edwards_context() -> Option<&'static MsmContext> {
    static CONTEXT: OnceLock<Option<MsmContext>> = OnceLock::new();
    CONTEXT.get_or_init(|| or_skip(with_accumulation(Accumulation::Edwards))).as_ref()
}

/// The accumulation BLS12-377 runs on `ctx`'s adapter where calibration does not time the
/// accumulations: its Edwards model, with affine stored points on the software GPUs.
pub fn default_edwards_accumulation(ctx: &MsmContext) -> Accumulation {
    match ctx.gpu().software {
        true => Accumulation::EdwardsAffine,
        false => Accumulation::Edwards,
    }
}

/// The accumulation BLS12-377's prepared bases run on `ctx` where its calls run `calls`:
/// affine Edwards points where the calls store extended ones, natively on every device but
/// SwiftShader; elsewhere the calls' own.
pub fn bases_edwards_accumulation(ctx: &MsmContext, calls: Accumulation) -> Accumulation {
    let native_not_swiftshader = !ctx.gpu().swiftshader && !cfg!(target_arch = "wasm32");
    match calls {
        Accumulation::Edwards if native_not_swiftshader => Accumulation::EdwardsAffine,
        other => other,
    }
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
/// context's and (end to end, `tests/msm.rs`) in the 13-bit form browsers run: every curve but
/// the G2 groups over 381- and 377-bit fields, whose 13-bit Fp2 pipelines take about 40 s to
/// compile on lavapipe, per form. bn254-g2 runs every form, and the G2 code is the same for all
/// three but for the constants.
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
