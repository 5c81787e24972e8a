//! Support for this crate's GPU tests (unit and integration); not part of the stable API.

use std::sync::OnceLock;

use crate::step::Accumulation;
use crate::{DeviceProfile, MsmContext};

/// The default context shared by the GPU tests of one test binary, created on first use.
///
/// Without an adapter it prints `SKIPPED` and returns `None`, so a developer machine without a
/// GPU still runs the CPU tests; with `CI=true` it panics instead, so CI can never pass by
/// skipping the GPU.
pub fn shared_context() -> Option<&'static MsmContext> {
    static CONTEXT: OnceLock<Option<MsmContext>> = OnceLock::new();
    CONTEXT.get_or_init(|| or_skip(pollster::block_on(MsmContext::new()))).as_ref()
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
pub fn swiftshader_runs_its_own_form(spec: &crate::CurveSpec) -> bool {
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
    let extended = |ctx: MsmContext| ctx.with_accumulation(Accumulation::Edwards);
    CONTEXT.get_or_init(|| or_skip(pollster::block_on(MsmContext::new()).map(extended))).as_ref()
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

fn or_skip(result: Result<MsmContext, crate::MsmError>) -> Option<MsmContext> {
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
pub fn tests_every_form<G: crate::GpuCurve>() -> bool {
    let spec = G::spec();
    spec.extension.is_none() || spec.wide_field.limbs <= 8
}
