//! [`MsmContext`]: a device with compiled pipelines and reusable buffers, and the shared default.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ark_ff::Zero;

use crate::calibrate::{self, Calibration, Candidates, Fixed};
use crate::combine::{combine_windows, points_from_gpu, sum_without_image};
use crate::config::{Bases, ContextOptions, MsmConfig, MsmOutput};
use crate::curve::registry::with_curve;
use crate::curve::{CurveId, GpuCurve};
use crate::gpu::device::Gpu;
use crate::gpu::run::{PointSource, RunOutput, Timings};
use crate::gpu::workspace::{max_points, max_sets, BufferSizes};
use crate::plan::Plan;
use crate::prepared::PreparedBases;
use crate::runner::{CurveRunner, CurveSlot};
use crate::step::{Accumulation, Kernels};
use crate::upload::{Points, ScalarSets, Scalars, Upload};
use crate::{DeviceProfile, MsmError};

/// Most GPU passes one call is split into (bounds host memory and time of a single call).
pub const MAX_PASSES: usize = 64;

/// A WebGPU device ready to compute MSMs.
///
/// Create one and keep it: the first call for each curve compiles that curve's shaders, and
/// buffers are kept for later calls of the same or smaller size. Calls on one context may run
/// concurrently: each GPU pass leases one of the curve's workspaces (buffer sets, at most
/// [`ContextOptions::max_workspaces`] per curve) from upload to readback, so one call can
/// upload while another computes, and decodes its results after giving the workspace back.
///
/// Entry points: [`MsmContext::msm`] for one MSM, [`MsmContext::msm_with`] for every option
/// (batches of scalar sets, prepared bases, profiling: [`MsmConfig`]),
/// [`MsmContext::msm_bytes`] for the same over byte buffers, and [`MsmContext::prepare`] (or
/// [`MsmContext::prepare_bytes`]) to keep points on the GPU for many calls.
pub struct MsmContext {
    /// Unique per context: prepared bases remember which context holds their buffers.
    pub(crate) id: u64,
    gpu: Gpu,
    /// The field form and accumulation the caller fixed; the rest is calibrated per curve.
    pub(crate) fixed: Fixed,
    /// [`ContextOptions::calibration_budget`].
    pub(crate) calibration_budget: f64,
    /// The calibration of each curve compiled so far (its kernels: the synchronous size queries
    /// read them).
    calibrations: Mutex<HashMap<TypeId, Calibration>>,
    /// The measurements running beside the calls of curves that started on the rule's kernels
    /// ([`Calibration::provisional`]).
    #[cfg(not(target_arch = "wasm32"))]
    measuring: Mutex<HashMap<TypeId, Arc<calibrate::Measurement>>>,
    /// Caps the points of one GPU pass below the device's limit (tests of the splitting).
    pass_limit: Option<usize>,
    /// [`ContextOptions::max_workspaces`].
    max_workspaces: usize,
    /// [`ContextOptions::max_gpu_bytes`].
    max_gpu_bytes: Option<u64>,
    /// Set by [`MsmContext::compute_wrong_results_for_tests`].
    #[cfg(feature = "test-hooks")]
    wrong_results: std::sync::atomic::AtomicBool,
    curves: Mutex<HashMap<TypeId, Arc<CurveSlot>>>,
}

/// What one GPU pass gives the host.
pub(crate) struct PassResult<P> {
    /// The sum of each window of every scalar set.
    pub(crate) window_sums: Vec<P>,
    /// In profiling runs: how long each part took.
    pub(crate) timings: Option<Timings>,
    /// The lowest uploaded point of the pass that the GPU left out for having no Edwards
    /// image: the host adds the multiples of such points ([`sum_without_image`]).
    pub(crate) no_image: Option<usize>,
    /// Whether the pass ran on a Weierstrass curve's Edwards model and kept its result there
    /// (so it left out the points with no image), rather than running again on the
    /// Weierstrass model.
    pub(crate) on_edwards: bool,
}

impl<P> PassResult<P> {
    /// The window sums of scalar set `set` of the pass (its K windows).
    pub(crate) fn set_windows(&self, set: usize, plan: &Plan) -> &[P] {
        let len = plan.num_windows as usize;
        &self.window_sums[set * len..(set + 1) * len]
    }
}

/// The error for scalar sets with lengths `lens` over `n` points when set `set` is of the wrong
/// length: `LengthMismatch` in a call of one set, `SetLengthMismatch` naming the set in a batch.
pub(crate) fn set_length_error(n: usize, lens: &[usize], set: usize) -> MsmError {
    match lens.len() {
        1 => MsmError::LengthMismatch { points: n, scalars: lens[0] },
        _ => MsmError::SetLengthMismatch { set, points: n, scalars: lens[set] },
    }
}

/// [`set_length_error`] for the first scalar set, of those with lengths `lens`, whose length is
/// not the points' `n`.
pub(crate) fn check_set_lengths(n: usize, lens: impl IntoIterator<Item = usize>) -> Result<(), MsmError> {
    let lens: Vec<usize> = lens.into_iter().collect();
    match lens.iter().position(|&len| len != n) {
        Some(set) => Err(set_length_error(n, &lens, set)),
        None => Ok(()),
    }
}

/// Where the points of one call come from, in the form its API received them.
pub(crate) enum Source<'a, G: GpuCurve> {
    /// Points the call uploads.
    Points(Points<'a, G>),
    /// Bases prepared on the GPU.
    Prepared(&'a PreparedBases<G>),
}

impl MsmContext {
    /// A context on the default (high-performance) adapter, with the default
    /// [`ContextOptions`]; [`MsmError::NoAdapter`] when there is none.
    pub async fn new() -> Result<Self, MsmError> {
        Ok(Self::on(Gpu::new().await?))
    }

    /// A context on the caller's own device and queue (both are handles: the caller keeps using
    /// its clones for its own work). Fails with [`MsmError::UnsuitableDevice`], naming the limit,
    /// on a device whose limits fall short of what the shaders need (WebGPU's default limits are
    /// enough). The context uses 64-bit integers if the device was created with
    /// `Features::SHADER_INT64`. It sets nothing on the device: the uncaptured-error handler and
    /// the device-lost callback stay the caller's, and its own errors are caught with error
    /// scopes around its work.
    pub fn from_wgpu(device: wgpu::Device, queue: wgpu::Queue) -> Result<Self, MsmError> {
        Ok(Self::on(Gpu::from_device(device, queue)?))
    }

    /// A context on `adapter` (one of `wgpu::Instance::enumerate_adapters`, say), with its own
    /// device as [`MsmContext::new`] creates it. Natively only: browsers expose one adapter.
    /// [`crate::MultiGpu`] runs MSMs over several such contexts.
    #[cfg(not(target_arch = "wasm32"))]
    pub async fn from_adapter(adapter: &wgpu::Adapter) -> Result<Self, MsmError> {
        Ok(Self::on(Gpu::on_adapter(adapter).await?))
    }

    fn on(gpu: Gpu) -> Self {
        static NEXT_ID: AtomicU64 = AtomicU64::new(0);
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let defaults = ContextOptions::default();
        MsmContext {
            id,
            gpu,
            fixed: Fixed { form: None, accumulation: None },
            calibration_budget: defaults.calibration_budget,
            calibrations: Mutex::new(HashMap::new()),
            #[cfg(not(target_arch = "wasm32"))]
            measuring: Mutex::new(HashMap::new()),
            pass_limit: None,
            max_workspaces: defaults.max_workspaces,
            max_gpu_bytes: defaults.max_gpu_bytes,
            #[cfg(feature = "test-hooks")]
            wrong_results: Default::default(),
            curves: Mutex::new(HashMap::new()),
        }
    }

    /// This context with `options` instead of its current ones; call it before the first MSM
    /// (kernels already chosen for a curve stay). [`MsmError::RequestDevice`] for a
    /// [`ContextOptions::mul_form`] of 64-bit integers on a device without them.
    pub fn with_options(mut self, options: ContextOptions) -> Result<Self, MsmError> {
        if let Some(form) = options.mul_form.filter(|form| form.needs_int64() && !self.gpu.int64) {
            return Err(MsmError::RequestDevice(format!(
                "{form:?} needs 64-bit integers (SHADER_INT64), which {} lacks",
                self.gpu.info.name
            )));
        }
        self.fixed = Fixed { form: options.mul_form, accumulation: options.accumulation };
        self.calibration_budget = options.calibration_budget;
        self.max_workspaces = options.max_workspaces.max(1);
        self.max_gpu_bytes = options.max_gpu_bytes;
        Ok(self)
    }

    /// The options this context runs with.
    pub fn options(&self) -> ContextOptions {
        ContextOptions {
            mul_form: self.fixed.form,
            accumulation: self.fixed.accumulation,
            calibration_budget: self.calibration_budget,
            max_workspaces: self.max_workspaces,
            max_gpu_bytes: self.max_gpu_bytes,
        }
    }

    /// This context with the device rules of `profile` instead of its adapter's
    /// ([`MsmContext::device_profile`]), so tests run every profile's kernels and plans on the
    /// adapter they have. The 32-bit form stays where the device lacks 64-bit integers. Call it
    /// before the first MSM.
    #[cfg(feature = "test-hooks")]
    #[doc(hidden)]
    pub fn with_profile(mut self, profile: DeviceProfile) -> Self {
        self.gpu.profile = profile.with_int64(profile.int64 && self.gpu.int64);
        self
    }

    /// The device rules this context runs: its adapter's ([`DeviceProfile::for_adapter`]).
    pub fn device_profile(&self) -> &DeviceProfile {
        &self.gpu.profile
    }

    /// This context with at most `points` points per GPU pass, so tests can exercise the
    /// splitting of large inputs with small ones.
    #[cfg(feature = "test-hooks")]
    #[doc(hidden)]
    pub fn with_pass_limit(mut self, points: usize) -> Self {
        self.pass_limit = Some(points.max(1));
        self
    }

    /// Compiles `curve`'s kernels and measures which run fastest now (see [`Calibration`]),
    /// where its first call would start on the rule's kernels and measure beside the calls: for
    /// apps that would rather pay at start-up (a page load) than in a proof. Returns the kernels
    /// later calls run and what was measured to choose them. Without it, the first call compiles
    /// only the kernels it runs and does not wait for any measurement.
    pub async fn warm_up(&self, curve: CurveId) -> Result<Calibration, MsmError> {
        with_curve!(curve, G => self.warm_up_curve::<G>().await)
    }

    /// [`MsmContext::warm_up`] of curve `G`.
    async fn warm_up_curve<G: GpuCurve>(&self) -> Result<Calibration, MsmError> {
        self.runner::<G>().await?;
        #[cfg(not(target_arch = "wasm32"))]
        {
            let slot = self.slot::<G>()?;
            let mut slot = slot.lock().await;
            self.adopt_measurement::<G>(&mut slot, true).await?;
        }
        let calibrations = self.calibrations.lock().map_err(poisoned)?;
        Ok(calibrations.get(&TypeId::of::<G>()).expect("recorded with the curve's runner").clone())
    }

    /// Name, backend and device type of the adapter in use.
    pub fn adapter_info(&self) -> wgpu::AdapterInfo {
        self.gpu.info.clone()
    }

    /// The most points one GPU pass takes on `curve` with this device's limits; larger inputs
    /// run as several passes whose results are added, up to [`MAX_PASSES`] of them (more fail
    /// with `InputTooLarge`), and a profiled call takes one. Before the curve's first use (when
    /// its kernels are not chosen yet), the fewest over the kernels the context may choose.
    pub fn max_pass_points(&self, curve: CurveId) -> usize {
        with_curve!(curve, G => self.pass_points::<G>())
    }

    /// [`MsmContext::max_pass_points`] of curve `G`.
    pub(crate) fn pass_points<G: GpuCurve>(&self) -> usize {
        self.max_folded_pass_points::<G>(1)
    }

    /// [`MsmContext::max_pass_points`] for points each stored with `fold` multiples (prepared
    /// bases with a precompute factor; [`Plan::fold`]).
    pub(crate) fn max_folded_pass_points<G: GpuCurve>(&self, fold: u32) -> usize {
        let spec = G::spec();
        let budget = self.workspace_budget();
        let fits = |kernels| max_points(spec, kernels, &self.gpu.limits, fold, budget) as usize;
        let device = self.chosen_or_candidates::<G>().into_iter().map(fits).min().expect("at least one candidate");
        self.pass_limit.map_or(device, |limit| limit.min(device))
    }

    /// Bytes one workspace may take under [`ContextOptions::max_gpu_bytes`].
    pub(crate) fn workspace_budget(&self) -> Option<u64> {
        self.max_gpu_bytes.map(|bytes| bytes / self.max_workspaces as u64)
    }

    /// [`MsmContext::max_folded_pass_points`], or [`MsmError::MemoryBudget`] where the budget
    /// holds no pass at all (before a curve's first use, for none of the kernels it may choose:
    /// the check needs no compilation).
    pub(crate) fn checked_pass_points<G: GpuCurve>(&self, fold: u32) -> Result<usize, MsmError> {
        match (self.max_folded_pass_points::<G>(fold), self.max_gpu_bytes) {
            (0, Some(budget)) => {
                let plan = Plan::folded(1, crate::curve::MAX_SCALAR_BITS, fold);
                let needed = |kernels| BufferSizes::for_plan(G::spec(), kernels, &plan).total();
                let one = self.chosen_or_candidates::<G>().into_iter().map(needed).min().expect("a candidate");
                Err(MsmError::MemoryBudget { budget, needed: one * self.max_workspaces as u64 })
            }
            (points, _) => Ok(points),
        }
    }

    /// The kernels chosen for `G`, or before its first use every candidate.
    fn chosen_or_candidates<G: GpuCurve>(&self) -> Vec<Kernels> {
        let chosen = self.calibrations.lock().ok().and_then(|c| c.get(&TypeId::of::<G>()).map(|c| c.kernels));
        chosen.map_or_else(|| Candidates::new(&self.gpu.profile, G::spec(), self.fixed).all().collect(), |k| vec![k])
    }

    /// Runs one pass's scalar sets over `points` with `plan` (one set's), in groups that fit the
    /// device ([`max_sets`]), and adds each set's sum into its entry of `totals`: the pass's
    /// window sums, and `left_out(set, pass)` for the points the pass left to the host.
    pub(crate) async fn run_sets<G: GpuCurve>(
        &self,
        runner: &CurveRunner,
        plan: Plan,
        points: PointSource<'_>,
        sets: &[Scalars<'_, G>],
        totals: &mut [G::Group],
        left_out: impl Fn(&Scalars<'_, G>, &PassResult<G::Group>) -> Result<G::Group, MsmError>,
    ) -> Result<(), MsmError> {
        let budget = self.workspace_budget();
        let group_len = max_sets(&self.gpu.limits, budget, &plan, sets.len(), |plan| runner.buffer_sizes(plan));
        for (group, totals) in sets.chunks(group_len).zip(totals.chunks_mut(group_len)) {
            let plan = plan.with_sets(group.len() as u32);
            let pass = self.run::<G>(runner, &plan, points, &ScalarSets(group.to_vec()), false).await?;
            for (k, (set, total)) in group.iter().zip(totals).enumerate() {
                *total += combine_windows(pass.set_windows(k, &plan), &plan) + left_out(set, &pass)?;
            }
        }
        Ok(())
    }

    /// Points per pass for an input of `n` points: equal passes that each fit the device (their
    /// sums add up).
    pub(crate) fn pass_len<G: GpuCurve>(&self, n: usize) -> usize {
        self.folded_pass_len::<G>(n, 1)
    }

    /// [`MsmContext::pass_len`] for points each stored with `fold` multiples.
    pub(crate) fn folded_pass_len<G: GpuCurve>(&self, n: usize, fold: u32) -> usize {
        n.div_ceil(n.div_ceil(self.max_folded_pass_points::<G>(fold)).max(1)).max(1)
    }

    /// Bytes of GPU buffers one pass of `n` points (at most
    /// [`max_pass_points`](MsmContext::max_pass_points)) uses on `curve`: one workspace. A curve
    /// keeps up to [`ContextOptions::max_workspaces`] workspaces, each as large as the largest
    /// pass it has run, so its peak is `max_workspaces` times this for the largest pass when that
    /// many calls overlap (sequential calls keep one). Calls on prepared bases that run other
    /// kernels than the calls ([`PreparedBases::kernels`]) keep workspaces of their own. Before
    /// the curve's first use, the most over the kernels the context may choose.
    pub fn gpu_memory_bytes(&self, curve: CurveId, n: usize) -> u64 {
        with_curve!(curve, G => {
            let plan = Plan::choose(n as u32, G::spec().scalar_bits);
            let bytes = |kernels| BufferSizes::for_plan(G::spec(), kernels, &plan).total();
            self.chosen_or_candidates::<G>().into_iter().map(bytes).max().expect("at least one candidate")
        })
    }

    /// Σ scalars\[i\]·bases\[i\], equal to `G::Group::msm(points, scalars)` of arkworks, over
    /// points (`&points`: uploaded, checked and converted by this call) or over bases prepared
    /// on this context (`&prepared`, [`MsmContext::prepare`]; fewer scalars than bases take the
    /// first bases, as PLONK's commitments over a prefix of an SRS do). [`MsmContext::msm_with`]
    /// with one set and the default [`MsmConfig`].
    ///
    /// The host only copies the inputs (arkworks' own limbs); the GPU converts them and checks
    /// the points: `NotOnCurve` names the first point off the curve (only the equation is
    /// checked, as arkworks' `is_on_curve` does). Other errors: `LengthMismatch` (before any GPU
    /// work), `InputTooLarge`, those of prepared bases (see [`MsmContext::msm_with`]), GPU errors.
    ///
    /// ```no_run
    /// # #[cfg(feature = "bn254")]
    /// # async fn example(points: Vec<ark_bn254::G1Affine>, scalars: Vec<ark_bn254::Fr>) -> Result<(), webgpu_msm::MsmError> {
    /// use ark_ec::VariableBaseMSM;
    /// let ctx = webgpu_msm::MsmContext::new().await?;
    /// let q = ctx.msm(&points, &scalars).await?;
    /// assert_eq!(q, ark_bn254::G1Projective::msm(&points, &scalars).unwrap());
    /// # Ok(()) }
    /// ```
    pub async fn msm<'a, G: GpuCurve>(
        &self,
        bases: impl Into<Bases<'a, G, PreparedBases<G>>>,
        scalars: &[G::ScalarField],
    ) -> Result<G::Group, MsmError> {
        let mut output = self.msm_with(bases, &[scalars], &MsmConfig::default()).await?;
        Ok(output.results.pop().expect("one result per set"))
    }

    /// Σ sets\[s\]\[i\]·bases\[i\] for every scalar set s, each result equal to
    /// [`MsmContext::msm`] of the bases and that set, run as `config` says ([`MsmConfig`]:
    /// profiling, a precompute factor for points).
    ///
    /// The sets run together, as extra windows of one GPU pass (groups of up to 64 sets, fewer
    /// where the device's buffer limits need it): the points are uploaded and converted once per
    /// pass and all the sets' sums come back in one readback. The sets hold equally many
    /// scalars: as many as the points, or at most as many as prepared bases (fewer take the first
    /// bases). No sets give no results.
    ///
    /// Errors, before any GPU work: `LengthMismatch` in a call of one set, `SetLengthMismatch`
    /// naming the first set of the wrong length in a batch, `Unsupported` for a
    /// [`MsmConfig::cache`] (bytes only) or a profiled batch; then `InvalidPrecomputeFactor`,
    /// `PrefixOfFoldedBases` (fewer scalars than bases stored with multiples), `ForeignBases`
    /// (bases prepared on another context), `InputTooLarge`, `NotOnCurve`, GPU errors.
    ///
    /// ```no_run
    /// # #[cfg(feature = "bn254")]
    /// # async fn example(srs: Vec<ark_bn254::G1Affine>, a: Vec<ark_bn254::Fr>, b: Vec<ark_bn254::Fr>) -> Result<(), webgpu_msm::MsmError> {
    /// use webgpu_msm::{MsmConfig, MsmContext};
    /// let ctx = MsmContext::new().await?;
    /// // Two scalar sets over the same points, in one pass.
    /// let output = ctx.msm_with(&srs, &[&a, &b], &MsmConfig::default()).await?;
    /// let (qa, qb) = (output.results[0], output.results[1]);
    /// // The points kept on the GPU; a shorter set runs over their first bases.
    /// let bases = ctx.prepare(&srs, &MsmConfig::default()).await?;
    /// let prefix = ctx.msm_with(&bases, &[&a[..a.len() / 2]], &MsmConfig::default()).await?;
    /// # let _ = (qa, qb, prefix); Ok(()) }
    /// ```
    pub async fn msm_with<'a, G: GpuCurve>(
        &self,
        bases: impl Into<Bases<'a, G, PreparedBases<G>>>,
        sets: &[&[G::ScalarField]],
        config: &MsmConfig<'_>,
    ) -> Result<MsmOutput<G::Group>, MsmError> {
        if config.cache.is_some() {
            return Err(MsmError::Unsupported("a BaseCache holds bytes: it serves msm_bytes".into()));
        }
        let sets: Vec<Scalars<'_, G>> = sets.iter().map(|set| Scalars::Arkworks(set)).collect();
        let source = match bases.into() {
            Bases::Points(points) => Source::Points(Points::Arkworks(points)),
            Bases::Prepared(bases) => Source::Prepared(bases),
        };
        self.run_msm(source, &sets, config).await
    }

    /// The MSMs of every scalar set over `source`, as `config` says: points with a precompute
    /// factor, a subgroup check or blinding are prepared for the call first.
    pub(crate) async fn run_msm<G: GpuCurve>(
        &self,
        source: Source<'_, G>,
        sets: &[Scalars<'_, G>],
        config: &MsmConfig<'_>,
    ) -> Result<MsmOutput<G::Group>, MsmError> {
        if config.profile && sets.len() != 1 {
            let why = format!("a profiled call takes one scalar set, not {}", sets.len());
            return Err(MsmError::Unsupported(why));
        }
        match source {
            Source::Points(points)
                if config.precompute_factor != 1 || config.check_subgroup || config.blinding.is_some() =>
            {
                check_set_lengths(points.len(), sets.iter().map(Scalars::len))?;
                let bases = self.prepare_points(points, config).await?;
                self.run_source(Source::Prepared(&bases), sets, config.profile).await
            }
            source => self.run_source(source, sets, config.profile).await,
        }
    }

    /// [`MsmContext::run_msm`] once any multiples are prepared.
    async fn run_source<G: GpuCurve>(
        &self,
        source: Source<'_, G>,
        sets: &[Scalars<'_, G>],
        profile: bool,
    ) -> Result<MsmOutput<G::Group>, MsmError> {
        match (source, sets) {
            (Source::Points(points), &[set]) if profile => {
                let (result, profile) = self.msm_profiled(points, set).await?;
                Ok(MsmOutput { results: vec![result], profile: Some(profile) })
            }
            (Source::Prepared(bases), &[set]) if profile => {
                let (result, profile) = self.msm_prepared_profiled(bases, set).await?;
                Ok(MsmOutput { results: vec![result], profile: Some(profile) })
            }
            (Source::Points(points), sets) => {
                Ok(MsmOutput { results: self.msm_batch_inputs(points, sets).await?, profile: None })
            }
            (Source::Prepared(bases), sets) => {
                Ok(MsmOutput { results: self.msm_prepared_batch_scalars(bases, sets).await?, profile: None })
            }
        }
    }

    /// The MSMs of points and each scalar set, pass by pass, the sets of a pass in groups that
    /// fit the device. Every pass's faults are checked before its result is used, so nothing
    /// computed from a bad point is returned.
    pub(crate) async fn msm_batch_inputs<G: GpuCurve>(
        &self,
        points: Points<'_, G>,
        sets: &[Scalars<'_, G>],
    ) -> Result<Vec<G::Group>, MsmError> {
        let n = points.len();
        check_set_lengths(n, sets.iter().map(Scalars::len))?;
        self.gpu.check_alive()?;
        let mut totals = vec![G::Group::zero(); sets.len()];
        if n == 0 || sets.is_empty() {
            return Ok(totals);
        }
        self.checked_pass_points::<G>(1)?; // before any compilation
        let runner = self.runner::<G>().await?; // chooses the kernels, which set the pass size
        let max = self.pass_points::<G>() * MAX_PASSES;
        if n > max {
            return Err(MsmError::InputTooLarge { n, max });
        }
        let pass_len = self.pass_len::<G>(n);
        for start in (0..n).step_by(pass_len) {
            let range = start..(start + pass_len).min(n);
            let pass_points = points.pass(range.clone());
            let pass_sets: Vec<Scalars<'_, G>> = sets.iter().map(|set| set.pass(range.clone())).collect();
            let plan = Plan::choose(range.len() as u32, sets[0].bits())
                .with_inputs(points.plan_inputs() | sets[0].plan_inputs());
            let halves = pass_points.raw_halves();
            let source = PointSource::upload(&halves, start);
            // Points with no image on the Edwards model the pass ran on: added on the host.
            let left_out = |set: &Scalars<'_, G>, pass: &PassResult<G::Group>| match pass.no_image {
                Some(from) => sum_without_image(&pass_points, set, from),
                None => Ok(G::Group::zero()),
            };
            self.run_sets(&runner, plan, source, &pass_sets, &mut totals, left_out).await?;
        }
        Ok(totals)
    }

    /// Runs the GPU stages for `plan` on a leased workspace of `runner` (curve `G`'s, or its
    /// prepared bases' [`MsmContext::bases_runner`]), gives it back, checks the faults of
    /// uploaded points, then decodes the window sums; with `profile`, also the timings of every
    /// part (see [`run_stages`]). A pass on a Weierstrass curve's Edwards model whose result came
    /// back exceptional runs again on the Weierstrass model (see [`crate::curve::EdwardsMap`]).
    pub(crate) async fn run<G: GpuCurve>(
        &self,
        runner: &CurveRunner,
        plan: &Plan,
        points: PointSource<'_>,
        scalars: &dyn Upload,
        profile: bool,
    ) -> Result<PassResult<G::Group>, MsmError> {
        let output = self.run_on(runner, plan, points, scalars, profile).await?;
        let no_image = output.faults.no_image;
        if !runner.exceptional(&output.window_sums) {
            let window_sums = points_from_gpu::<G>(&output.window_sums, runner.curve, runner.kernels().form)?;
            let on_edwards = runner.curve.model.on_edwards_image();
            return Ok(PassResult { window_sums, timings: output.timings, no_image, on_edwards });
        }
        // Only points outside G1 get here: the pass again with the Weierstrass kernels, from
        // the points as uploaded (prepared bases kept them for this).
        // One Weierstrass runner per curve, the calls' runner's, whichever runner ran the pass.
        let fallback = self.weierstrass_runner::<G>(&*self.runner::<G>().await?).await?;
        let output = match points {
            PointSource::Upload { .. } => self.run_on(&fallback, plan, points, scalars, profile).await?,
            PointSource::Prepared(pass) => {
                let converted = self.convert_again(&fallback, pass).await?;
                self.run_on(&fallback, plan, PointSource::Prepared(&converted), scalars, profile).await?
            }
        };
        let window_sums = points_from_gpu::<G>(&output.window_sums, fallback.curve, fallback.kernels().form)?;
        // The Weierstrass model holds every point: none is left to the host.
        Ok(PassResult { window_sums, timings: output.timings, no_image: None, on_edwards: false })
    }

    /// [`MsmContext::run`] on `runner`, up to the raw window sums, with the faults of uploaded
    /// points checked.
    pub(crate) async fn run_on(
        &self,
        runner: &CurveRunner,
        plan: &Plan,
        points: PointSource<'_>,
        scalars: &dyn Upload,
        profile: bool,
    ) -> Result<RunOutput, MsmError> {
        self.gpu.count_pass();
        let output = {
            // Waits only while max_workspaces other passes on this curve hold theirs.
            let mut lease = runner.workspaces.lease(&runner.run_sizes(plan, points)).await;
            runner.run_leased(&self.gpu, &mut lease, plan, points, scalars, profile).await?
            // The lease ends here: the next pass may use the workspace while this one decodes.
        };
        #[cfg(feature = "test-hooks")]
        let output = self.maybe_wrong(runner, output);
        // A curve's measurement beside the calls begins once its first call's pass is done.
        #[cfg(not(target_arch = "wasm32"))]
        self.measuring.lock().map_err(poisoned)?.values().for_each(calibrate::Measurement::begin);
        if let PointSource::Upload { first, .. } = points {
            output.faults.check(first)?;
        }
        Ok(output)
    }

    /// The Weierstrass runner of a curve whose `runner` computes on its Edwards model, compiled
    /// on first use with the same field form.
    async fn weierstrass_runner<G: GpuCurve>(&self, runner: &CurveRunner) -> Result<Arc<CurveRunner>, MsmError> {
        let kernels = Kernels { accumulation: Accumulation::Projective, ..runner.kernels() };
        self.runner_in::<G>(&runner.weierstrass, kernels).await
    }

    /// The runner `slot` holds, or one compiled with `kernels` into it (concurrent first uses
    /// wait for one compilation).
    async fn runner_in<G: GpuCurve>(&self, slot: &CurveSlot, kernels: Kernels) -> Result<Arc<CurveRunner>, MsmError> {
        let mut slot = slot.lock().await;
        if let Some(runner) = slot.as_ref() {
            return Ok(runner.clone());
        }
        let runner = Arc::new(CurveRunner::compile::<G>(&self.gpu, self.max_workspaces, kernels).await?);
        *slot = Some(runner.clone());
        Ok(runner)
    }

    /// The runner of curve `G`'s prepared bases: the calls' runner, or where bases run another
    /// accumulation ([`crate::DeviceProfile::prepared_bases_accumulation`]) one with the same
    /// field form, compiled on first use.
    /// Its workspaces are its own: a process that runs both calls and prepared bases of a curve
    /// keeps a workspace in each.
    pub(crate) async fn bases_runner<G: GpuCurve>(&self) -> Result<Arc<CurveRunner>, MsmError> {
        let runner = self.runner::<G>().await?;
        let kernels = runner.kernels();
        let accumulation = self.gpu.profile.prepared_bases_accumulation(kernels.accumulation);
        if accumulation == kernels.accumulation {
            return Ok(runner);
        }
        self.runner_in::<G>(&runner.bases, Kernels { accumulation, ..kernels }).await
    }

    /// The slot of curve `G`'s runner.
    fn slot<G: GpuCurve>(&self) -> Result<Arc<CurveSlot>, MsmError> {
        let mut curves = self.curves.lock().map_err(poisoned)?;
        Ok(curves.entry(TypeId::of::<G>()).or_insert_with(|| Arc::new(CurveSlot::new(None, false))).clone())
    }

    /// The compiled pipelines and workspace pool of curve `G`, compiling them on first use
    /// (the kernels [`calibrate::start`] gives), and later those of a measurement that finished
    /// beside the calls.
    pub(crate) async fn runner<G: GpuCurve>(&self) -> Result<Arc<CurveRunner>, MsmError> {
        let slot = self.slot::<G>()?;
        let mut slot = slot.lock().await;
        if slot.is_some() {
            #[cfg(not(target_arch = "wasm32"))]
            self.adopt_measurement::<G>(&mut slot, false).await?;
            return Ok(slot.clone().expect("compiled"));
        }
        let start = calibrate::start::<G>(&self.gpu, self.fixed, self.calibration_budget).await?;
        let runner =
            Arc::new(CurveRunner::compile::<G>(&self.gpu, self.max_workspaces, start.calibration.kernels).await?);
        self.self_test::<G>(&runner).await?;
        self.calibrations.lock().map_err(poisoned)?.insert(TypeId::of::<G>(), start.calibration);
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(measurement) = start.measuring {
            self.measuring.lock().map_err(poisoned)?.insert(TypeId::of::<G>(), measurement);
        }
        *slot = Some(runner.clone());
        Ok(runner)
    }

    /// Takes the result of curve `G`'s measurement beside the calls once it has finished (or,
    /// with `wait`, waiting for it): its kernels replace the runner in `slot` where they differ
    /// (calls and prepared bases in flight keep the runner they hold). A failed measurement
    /// keeps the rule's kernels, which compiled and ran.
    #[cfg(not(target_arch = "wasm32"))]
    async fn adopt_measurement<G: GpuCurve>(
        &self,
        slot: &mut Option<Arc<CurveRunner>>,
        wait: bool,
    ) -> Result<(), MsmError> {
        let id = TypeId::of::<G>();
        let Some(measurement) = self.measuring.lock().map_err(poisoned)?.get(&id).cloned() else {
            return Ok(());
        };
        let result = match wait {
            true => measurement.wait(),
            false => match measurement.finished() {
                Some(result) => result,
                None => return Ok(()),
            },
        };
        self.measuring.lock().map_err(poisoned)?.remove(&id);
        // The rule's kernels, which compiled and passed the self-test, stay for good.
        let keep_rule = |why: String| -> Result<(), MsmError> {
            log::warn!("{}: {why}; its calls keep the kernels chosen by rule", G::spec().name);
            if let Some(calibration) = self.calibrations.lock().map_err(poisoned)?.get_mut(&id) {
                calibration.provisional = false;
            }
            Ok(())
        };
        let calibration = match result {
            Ok(calibration) => calibration,
            Err(e) => return keep_rule(format!("calibration failed: {e}")),
        };
        if slot.as_ref().map(|runner| runner.kernels()) != Some(calibration.kernels) {
            let runner = CurveRunner::compile::<G>(&self.gpu, self.max_workspaces, calibration.kernels).await?;
            if let Err(e) = self.self_test::<G>(&runner).await {
                return keep_rule(e.to_string());
            }
            *slot = Some(Arc::new(runner));
        }
        self.calibrations.lock().map_err(poisoned)?.insert(id, calibration);
        Ok(())
    }

    /// Makes this context's device compute wrong results from now on, as a faulty GPU would: each
    /// pass's first two window sums come back swapped (points on the curve, a wrong sum). For
    /// tests of the self-test.
    #[cfg(feature = "test-hooks")]
    #[doc(hidden)]
    pub fn compute_wrong_results_for_tests(&self) {
        self.wrong_results.store(true, Ordering::Relaxed);
    }

    /// `output` with its first two window sums swapped after
    /// [`MsmContext::compute_wrong_results_for_tests`].
    #[cfg(feature = "test-hooks")]
    fn maybe_wrong(&self, runner: &CurveRunner, mut output: RunOutput) -> RunOutput {
        let words = runner.curve.model.point_coords() * runner.curve.spec.storage_words();
        if self.wrong_results.load(Ordering::Relaxed) && output.window_sums.len() >= 2 * words {
            let (first, rest) = output.window_sums.split_at_mut(words);
            first.swap_with_slice(&mut rest[..words]);
        }
        output
    }

    /// Hands curve `G` a finished measurement, as if it had run beside the calls (the test of how
    /// a context adopts one, which runs on bn254).
    #[cfg(all(test, feature = "bn254", not(target_arch = "wasm32")))]
    pub(crate) fn measured_for_tests<G: GpuCurve>(&self, result: Result<Calibration, MsmError>) {
        let measurement = calibrate::Measurement::finished_with(result);
        self.measuring.lock().expect("not poisoned").insert(TypeId::of::<G>(), measurement);
    }

    /// The device (tests that drive single stages, the profiler's microbenchmark).
    pub(crate) fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Destroys this context's device, as a driver reset would lose it: from now on every call
    /// returns [`MsmError::DeviceLost`] (calls in flight return it or their result), and the
    /// shared default context replaces itself if this is it. For tests of device loss.
    #[cfg(feature = "test-hooks")]
    #[doc(hidden)]
    pub fn lose_device_for_tests(&self) {
        self.gpu.destroy("lose_device_for_tests");
    }

    /// The shared default context that the free [`msm`] uses (created if needed), so tests can
    /// lose its device.
    #[cfg(feature = "test-hooks")]
    #[doc(hidden)]
    pub async fn default_for_tests() -> Result<Arc<MsmContext>, MsmError> {
        default_context().await
    }
}

fn poisoned<T>(_: std::sync::PoisonError<T>) -> MsmError {
    MsmError::Gpu("context lock poisoned by a panic in another thread".into())
}

#[cfg(not(target_arch = "wasm32"))]
static DEFAULT_CONTEXT: Mutex<Option<Arc<MsmContext>>> = Mutex::new(None);

/// The stored default context, if any (natively shared by all threads).
#[cfg(not(target_arch = "wasm32"))]
fn stored_default() -> Result<Option<Arc<MsmContext>>, MsmError> {
    Ok(DEFAULT_CONTEXT.lock().map_err(poisoned)?.clone())
}

/// Stores `fresh` unless a live context got there first; returns the one stored.
#[cfg(not(target_arch = "wasm32"))]
fn store_default(fresh: Arc<MsmContext>) -> Result<Arc<MsmContext>, MsmError> {
    let mut slot = DEFAULT_CONTEXT.lock().map_err(poisoned)?;
    match slot.as_ref() {
        Some(ctx) if ctx.gpu.check_alive().is_ok() => Ok(ctx.clone()),
        _ => Ok(slot.insert(fresh).clone()),
    }
}

// On the web, WebGPU objects belong to one thread, so the default context is per thread.
#[cfg(target_arch = "wasm32")]
thread_local! {
    static DEFAULT_CONTEXT: std::cell::RefCell<Option<Arc<MsmContext>>> = const { std::cell::RefCell::new(None) };
}

#[cfg(target_arch = "wasm32")]
fn stored_default() -> Result<Option<Arc<MsmContext>>, MsmError> {
    Ok(DEFAULT_CONTEXT.with(|d| d.borrow().clone()))
}

#[cfg(target_arch = "wasm32")]
fn store_default(fresh: Arc<MsmContext>) -> Result<Arc<MsmContext>, MsmError> {
    Ok(DEFAULT_CONTEXT.with(|d| {
        let mut slot = d.borrow_mut();
        match slot.as_ref() {
            Some(ctx) if ctx.gpu.check_alive().is_ok() => ctx.clone(),
            _ => slot.insert(fresh).clone(),
        }
    }))
}

/// The shared default context, created on first use and re-created after a device loss.
pub(crate) async fn default_context() -> Result<Arc<MsmContext>, MsmError> {
    if let Some(ctx) = stored_default()? {
        if ctx.gpu.check_alive().is_ok() {
            return Ok(ctx);
        }
    }
    store_default(Arc::new(MsmContext::new().await?))
}

/// Σ scalars\[i\]·points\[i\] on a context shared by the process (natively; per thread in
/// WASM), created on first use and again after its device is lost (see [`MsmContext::msm`]).
///
/// ```no_run
/// # #[cfg(feature = "ed-on-bls12-377")]
/// # async fn example(points: Vec<ark_ed_on_bls12_377::EdwardsAffine>, scalars: Vec<ark_ed_on_bls12_377::Fr>) -> Result<(), webgpu_msm::MsmError> {
/// let q = webgpu_msm::msm(&points, &scalars).await?;
/// # let _ = q; Ok(()) }
/// ```
pub async fn msm<G: GpuCurve>(points: &[G], scalars: &[G::ScalarField]) -> Result<G::Group, MsmError> {
    if points.len() != scalars.len() {
        return Err(MsmError::LengthMismatch { points: points.len(), scalars: scalars.len() });
    }
    default_context().await?.msm(points, scalars).await
}
