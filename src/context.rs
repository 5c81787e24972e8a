//! [`MsmContext`]: a device with compiled pipelines and reusable buffers, and the shared default.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ark_ff::Zero;

use crate::calibrate::{Calibration, Candidates, Fixed, DEFAULT_CALIBRATION_BUDGET};
use crate::combine::{combine_windows, points_from_gpu, sum_without_image};
use crate::curve::GpuCurve;
use crate::curve::{CurveModel, CurveSpec};
use crate::gpu::device::Gpu;
use crate::gpu::pipelines::CurvePipelines;
use crate::gpu::run::{run_stages, PointSource, RunOutput, Timings};
use crate::gpu::workspace::{
    max_points, max_sets, BufferSizes, Workspace, WorkspaceLease, WorkspacePool, DEFAULT_WORKSPACES,
};
use crate::plan::Plan;
use crate::step::{Accumulation, Kernels};
use crate::upload::{Points, ScalarSets, Scalars, Upload};
use crate::wgsl::MulForm;
use crate::{DeviceProfile, MsmError};

/// Most GPU passes one call is split into (bounds host memory and time of a single call).
pub const MAX_PASSES: usize = 64;

/// A WebGPU device ready to compute MSMs.
///
/// Create one and keep it: the first call for each curve compiles that curve's shaders, and
/// buffers are kept for later calls of the same or smaller size. Calls on one context may run
/// concurrently: each GPU pass leases one of the curve's workspaces (buffer sets, at most
/// [`MsmContext::max_workspaces`] per curve) from upload to readback, so one call can upload
/// while another computes, and decodes its results after giving the workspace back.
pub struct MsmContext {
    /// Unique per context: prepared bases remember which context holds their buffers.
    pub(crate) id: u64,
    gpu: Gpu,
    /// The field form and accumulation the caller fixed; the rest is calibrated per curve.
    pub(crate) fixed: Fixed,
    /// See [`MsmContext::with_calibration_budget`].
    pub(crate) calibration_budget: f64,
    /// The kernels of each curve compiled so far (the synchronous size queries read them).
    kernels: Mutex<HashMap<TypeId, Kernels>>,
    /// Caps the points of one GPU pass below the device's limit (tests of the splitting).
    pass_limit: Option<usize>,
    /// Most workspaces per curve (see [`MsmContext::with_max_workspaces`]).
    max_workspaces: usize,
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

/// `SetLengthMismatch` for the first scalar set, of those with lengths `lens`, whose length is
/// not the points' `n`.
pub(crate) fn check_set_lengths(n: usize, lens: impl IntoIterator<Item = usize>) -> Result<(), MsmError> {
    match lens.into_iter().enumerate().find(|&(_, len)| len != n) {
        Some((set, scalars)) => Err(MsmError::SetLengthMismatch { set, points: n, scalars }),
        None => Ok(()),
    }
}

/// A curve's runner once compiled. Concurrent first calls on a curve wait for one compilation
/// instead of each compiling the same shaders.
pub(crate) type CurveSlot = futures_intrusive::sync::Mutex<Option<Arc<CurveRunner>>>;

/// What a context keeps per curve.
pub(crate) struct CurveRunner {
    pub(crate) spec: &'static CurveSpec,
    /// The kernels chosen for the curve, and what was measured to choose them.
    pub(crate) calibration: Calibration,
    pub(crate) pipelines: CurvePipelines,
    pub(crate) workspaces: WorkspacePool,
    /// On a curve computed on its Edwards model ([`Accumulation::Edwards`]): the Weierstrass
    /// runner that repeats a pass whose result came back exceptional, compiled when first needed.
    pub(crate) weierstrass: CurveSlot,
    /// Where prepared bases run another accumulation than the calls
    /// ([`crate::DeviceProfile::affine_prepared_bases`]): their runner, compiled at the first
    /// `prepare` (or kept from calibration, which compiled it as a candidate).
    pub(crate) bases: CurveSlot,
    /// The pipeline of [`crate::step::Step::PrecomputeMultiples`], compiled when bases are first
    /// prepared with a precompute factor.
    pub(crate) precompute: Mutex<Option<wgpu::ComputePipeline>>,
}

impl CurveRunner {
    /// The field form and accumulation of the pipelines.
    pub(crate) fn kernels(&self) -> Kernels {
        self.calibration.kernels
    }

    /// Buffer sizes of one pass of `plan`.
    pub(crate) fn buffer_sizes(&self, plan: &Plan) -> BufferSizes {
        BufferSizes::for_plan(self.spec, self.kernels(), plan)
    }

    /// The workspace buffer sizes a pass of `plan` on `points` needs (runs on prepared bases
    /// bind the bases' points instead of the workspace's).
    pub(crate) fn run_sizes(&self, plan: &Plan, points: PointSource<'_>) -> BufferSizes {
        let sizes = self.buffer_sizes(plan);
        match points {
            PointSource::Upload { .. } => sizes,
            PointSource::Prepared(_) => {
                sizes.for_prepared_bases(&self.buffer_sizes(&Plan::choose(1, self.spec.scalar_bits)))
            }
        }
    }

    /// Whether window sums read back from this runner came out of an exceptional Edwards
    /// addition or a point with no Edwards image (see [`crate::curve::EdwardsMap`]): then the
    /// pass must run again on the Weierstrass model.
    pub(crate) fn exceptional(&self, window_sums: &[u32]) -> bool {
        matches!(self.spec.model, CurveModel::WeierstrassOnEdwards { .. })
            && window_sums
                .chunks_exact(self.spec.point_coords() * self.spec.packed_words(self.kernels().form))
                .any(|point| point.iter().all(|&word| word == 0))
    }
}

impl MsmContext {
    /// A context on the default (high-performance) adapter; [`MsmError::NoAdapter`] when there
    /// is none.
    pub async fn new() -> Result<Self, MsmError> {
        Self::create(None).await
    }

    /// A context on the default adapter whose shaders use `mul_form` for every curve instead of
    /// the form calibration picks ([`MsmContext::calibration`]): to compare forms on one's own
    /// device, or to override the choice. [`MsmError::RequestDevice`] for
    /// [`MulForm::Wide`] on a device without 64-bit integers. Plans follow the form
    /// ([`crate::DeviceProfile::plan_shape`]), so any form runs on any device.
    pub async fn with_mul_form(mul_form: MulForm) -> Result<Self, MsmError> {
        Self::create(Some(mul_form)).await
    }

    /// A context on the caller's own device and queue (both are handles: the caller keeps using
    /// its clones for its own work). Fails with [`MsmError::UnsuitableDevice`], naming the limit,
    /// on a device whose limits fall short of what the shaders need (WebGPU's default limits are
    /// enough). The context uses 64-bit integers if the device was created with
    /// `Features::SHADER_INT64`. It sets nothing on the device: the uncaptured-error handler and
    /// the device-lost callback stay the caller's, and its own errors are caught with error
    /// scopes around its work.
    pub fn from_wgpu(device: wgpu::Device, queue: wgpu::Queue) -> Result<Self, MsmError> {
        Self::on(Gpu::from_device(device, queue)?, None)
    }

    /// A context on `adapter` (one of `wgpu::Instance::enumerate_adapters`, say), with its own
    /// device as [`MsmContext::new`] creates it. Natively only: browsers expose one adapter.
    /// [`crate::MultiGpu`] runs MSMs over several such contexts.
    #[cfg(not(target_arch = "wasm32"))]
    pub async fn from_adapter(adapter: &wgpu::Adapter) -> Result<Self, MsmError> {
        Self::on(Gpu::on_adapter(adapter).await?, None)
    }

    async fn create(mul_form: Option<MulForm>) -> Result<Self, MsmError> {
        Self::on(Gpu::new().await?, mul_form)
    }

    fn on(gpu: Gpu, mul_form: Option<MulForm>) -> Result<Self, MsmError> {
        if let Some(form) = mul_form.filter(|form| form.needs_int64() && !gpu.int64) {
            return Err(MsmError::RequestDevice(format!(
                "{form:?} needs 64-bit integers (SHADER_INT64), which {} lacks",
                gpu.info.name
            )));
        }
        static NEXT_ID: AtomicU64 = AtomicU64::new(0);
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        Ok(MsmContext {
            id,
            gpu,
            fixed: Fixed { form: mul_form, accumulation: None },
            calibration_budget: DEFAULT_CALIBRATION_BUDGET,
            kernels: Mutex::new(HashMap::new()),
            pass_limit: None,
            max_workspaces: DEFAULT_WORKSPACES,
            curves: Mutex::new(HashMap::new()),
        })
    }

    /// This context with `accumulation` in stage 3 for every curve instead of the one
    /// calibration picks (short Weierstrass curves only, see [`Accumulation::on`]);
    /// [`MsmContext::calibration`] says which runs. Call it before the first MSM.
    pub fn with_accumulation(mut self, accumulation: Accumulation) -> Self {
        self.fixed.accumulation = Some(accumulation);
        self
    }

    /// This context with another calibration budget: the accumulations are timed on a curve's
    /// first use only where the projective calibration pass is predicted to take at most
    /// `seconds` (default [`DEFAULT_CALIBRATION_BUDGET`], which only hardware GPUs meet;
    /// `f64::INFINITY` times them on every device, at the cost of compiling every candidate).
    /// See [`crate::calibrate`]. Call it before the first MSM.
    pub fn with_calibration_budget(mut self, seconds: f64) -> Self {
        self.calibration_budget = seconds;
        self
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

    /// This context with at most `workspaces` (≥ 1) sets of GPU buffers per curve, instead of
    /// 2: more lets more calls on one curve overlap, each set costing up to
    /// [`MsmContext::gpu_memory_bytes`] of the largest pass it has run; 1 makes calls on a curve
    /// take turns from upload to readback. Call it before the first MSM.
    pub fn with_max_workspaces(mut self, workspaces: usize) -> Self {
        self.max_workspaces = workspaces.max(1);
        self
    }

    /// Most workspaces (sets of GPU buffers) this context keeps per curve: 2 unless
    /// [`MsmContext::with_max_workspaces`] said otherwise. A curve's second and later
    /// workspaces are only allocated when calls on it overlap.
    pub fn max_workspaces(&self) -> usize {
        self.max_workspaces
    }

    /// The kernels curve `G` runs on this context and what was measured to choose them
    /// ([`crate::calibrate`]). The first call for a curve calibrates (unless this process
    /// already did on the same adapter) and compiles its pipelines, as its first MSM would.
    pub async fn calibration<G: GpuCurve>(&self) -> Result<Calibration, MsmError> {
        Ok(self.runner::<G>().await?.calibration.clone())
    }

    /// Name, backend and device type of the adapter in use.
    pub fn adapter_info(&self) -> wgpu::AdapterInfo {
        self.gpu.info.clone()
    }

    /// The most points one GPU pass takes on curve `G` with this device's limits; larger
    /// inputs run as several passes whose results are added.
    /// Before the curve's first use (when its kernels are not chosen yet), the fewest over the
    /// kernels the context may choose.
    pub fn max_pass_points<G: GpuCurve>(&self) -> usize {
        self.max_folded_pass_points::<G>(1)
    }

    /// [`MsmContext::max_pass_points`] for points each stored with `fold` multiples (prepared
    /// bases with a precompute factor; [`Plan::fold`]).
    pub(crate) fn max_folded_pass_points<G: GpuCurve>(&self, fold: u32) -> usize {
        let spec = G::spec();
        let fits = |kernels| max_points(spec, kernels, &self.gpu.limits, fold) as usize;
        let device = self.chosen_or_candidates::<G>().into_iter().map(fits).min().expect("at least one candidate");
        self.pass_limit.map_or(device, |limit| limit.min(device))
    }

    /// The kernels chosen for `G`, or before its first use every candidate.
    fn chosen_or_candidates<G: GpuCurve>(&self) -> Vec<Kernels> {
        let chosen = self.kernels.lock().ok().and_then(|k| k.get(&TypeId::of::<G>()).copied());
        chosen.map_or_else(|| Candidates::new(&self.gpu.profile, G::spec(), self.fixed).all().collect(), |k| vec![k])
    }

    /// The largest number of points one call takes on curve `G`: [`MAX_PASSES`] passes of
    /// [`MsmContext::max_pass_points`].
    pub fn max_points<G: GpuCurve>(&self) -> usize {
        self.max_pass_points::<G>() * MAX_PASSES
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
        let group_len = max_sets(&self.gpu.limits, &plan, sets.len(), |plan| runner.buffer_sizes(plan));
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

    /// Bytes of GPU buffers one pass of `n` points (at most `max_pass_points`) uses on `G`: one
    /// workspace. A curve keeps up to [`MsmContext::max_workspaces`] workspaces, each as large
    /// as the largest pass it has run, so its peak is `max_workspaces` times this for the
    /// largest pass when that many calls overlap (sequential calls keep one). Calls on prepared
    /// bases that run other kernels than the calls
    /// ([`PreparedBases::kernels`](crate::PreparedBases::kernels)) keep workspaces of their own.
    /// Before the curve's first use, the most over the kernels the context may choose.
    pub fn gpu_memory_bytes<G: GpuCurve>(&self, n: usize) -> u64 {
        let plan = Plan::choose(n as u32, G::spec().scalar_bits);
        let bytes = |kernels| BufferSizes::for_plan(G::spec(), kernels, &plan).total();
        self.chosen_or_candidates::<G>().into_iter().map(bytes).max().expect("at least one candidate")
    }

    /// Σ scalars\[i\]·points\[i\], equal to `G::Group::msm(points, scalars)` of arkworks.
    /// The host only copies the inputs (arkworks' own limbs); the GPU converts them and checks
    /// the points: `NotOnCurve` names the first point off the curve (only the equation is
    /// checked, as arkworks' `is_on_curve` does).
    pub async fn msm<G: GpuCurve>(&self, points: &[G], scalars: &[G::ScalarField]) -> Result<G::Group, MsmError> {
        if points.len() != scalars.len() {
            return Err(MsmError::LengthMismatch { points: points.len(), scalars: scalars.len() });
        }
        self.msm_inputs(Points::Arkworks(points), Scalars::Arkworks(scalars)).await
    }

    /// Σ sets\[s\]\[i\]·points\[i\] for every scalar set s over the same points: one result per
    /// set, each equal to [`MsmContext::msm`] of the points and that set. The sets run together,
    /// as extra windows of one GPU pass (groups of up to [`crate::plan::MAX_SETS_PER_PASS`] sets, fewer where
    /// the device's buffer limits need it): the points are uploaded and converted once per pass
    /// and all the sets' sums come back in one readback. Errors: `SetLengthMismatch` for the
    /// first set whose length differs from the points' (before any GPU work), then as for
    /// [`MsmContext::msm`]. An empty list of sets gives an empty result.
    pub async fn msm_batch<G: GpuCurve>(
        &self,
        points: &[G],
        sets: &[&[G::ScalarField]],
    ) -> Result<Vec<G::Group>, MsmError> {
        let sets: Vec<Scalars<'_, G>> = sets.iter().map(|set| Scalars::Arkworks(set)).collect();
        self.msm_batch_inputs(Points::Arkworks(points), &sets).await
    }

    /// The MSM of points and as many scalars: a batch of one set.
    pub(crate) async fn msm_inputs<G: GpuCurve>(
        &self,
        points: Points<'_, G>,
        scalars: Scalars<'_, G>,
    ) -> Result<G::Group, MsmError> {
        let mut results = self.msm_batch_inputs(points, &[scalars]).await?;
        Ok(results.pop().expect("one result per set"))
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
        let runner = self.runner::<G>().await?; // chooses the kernels, which set the pass size
        let max = self.max_points::<G>();
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
            let window_sums = points_from_gpu::<G>(&output.window_sums, runner.spec, runner.kernels().form)?;
            let on_edwards = matches!(runner.spec.model, CurveModel::WeierstrassOnEdwards { .. });
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
        let window_sums = points_from_gpu::<G>(&output.window_sums, fallback.spec, fallback.kernels().form)?;
        // The Weierstrass model holds every point: none is left to the host.
        Ok(PassResult { window_sums, timings: output.timings, no_image: None, on_edwards: false })
    }

    /// [`MsmContext::run`] on `runner`, up to the raw window sums, with the faults of uploaded
    /// points checked.
    async fn run_on(
        &self,
        runner: &CurveRunner,
        plan: &Plan,
        points: PointSource<'_>,
        scalars: &dyn Upload,
        profile: bool,
    ) -> Result<RunOutput, MsmError> {
        let output = {
            // Waits only while max_workspaces other passes on this curve hold theirs.
            let mut lease = runner.workspaces.lease(&runner.run_sizes(plan, points)).await;
            self.run_leased(runner, &mut lease, plan, points, scalars, profile).await?
            // The lease ends here: the next pass may use the workspace while this one decodes.
        };
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
        let runner = Arc::new(self.compile::<G>(kernels).await?);
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

    /// Runs the GPU stages for `plan` on the workspace of `lease`, growing it first if needed,
    /// and reads back the raw window sums.
    pub(crate) async fn run_leased(
        &self,
        runner: &CurveRunner,
        lease: &mut WorkspaceLease<'_>,
        plan: &Plan,
        points: PointSource<'_>,
        scalars: &dyn Upload,
        profile: bool,
    ) -> Result<RunOutput, MsmError> {
        let spec = runner.spec;
        let plan = &plan.shaped(runner.kernels().plan);
        let sizes = runner.run_sizes(plan, points);
        if !lease.covers(&sizes) {
            let fresh = self
                .gpu
                .capture(|| Workspace::new(&self.gpu.device, &runner.pipelines, &sizes, lease.workspace()))
                .await?;
            lease.replace(fresh);
        }
        let workspace = lease.workspace().expect("covers the plan or was just created");
        let point_bytes = (spec.point_coords() * spec.packed_words(runner.kernels().form) * 4) as u64;
        run_stages(&self.gpu, &runner.pipelines, workspace, plan, points, scalars, point_bytes, profile).await
    }

    /// The compiled pipelines and workspace pool of curve `G`, compiling them on first use.
    pub(crate) async fn runner<G: GpuCurve>(&self) -> Result<Arc<CurveRunner>, MsmError> {
        let slot = self
            .curves
            .lock()
            .map_err(poisoned)?
            .entry(TypeId::of::<G>())
            .or_insert_with(|| Arc::new(CurveSlot::new(None, false)))
            .clone();
        let mut slot = slot.lock().await;
        if let Some(runner) = slot.as_ref() {
            return Ok(runner.clone());
        }
        let runner = Arc::new(self.calibrate::<G>().await?);
        self.kernels.lock().map_err(poisoned)?.insert(TypeId::of::<G>(), runner.kernels());
        *slot = Some(runner.clone());
        Ok(runner)
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

/// Σ scalars\[i\]·points\[i\] on the shared default context (see [`MsmContext::msm`]).
pub async fn msm<G: GpuCurve>(points: &[G], scalars: &[G::ScalarField]) -> Result<G::Group, MsmError> {
    if points.len() != scalars.len() {
        return Err(MsmError::LengthMismatch { points: points.len(), scalars: scalars.len() });
    }
    default_context().await?.msm(points, scalars).await
}
