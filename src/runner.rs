//! [`CurveRunner`]: one curve's compiled pipelines for one choice of kernels, with its
//! workspaces, and how a pass runs on them. Calibration builds runners to time them and the
//! context keeps the one chosen; both come here for it, so neither needs the other's module.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::curve::GpuCurve;
use crate::gpu::device::Gpu;
use crate::gpu::pipelines::CurvePipelines;
use crate::gpu::run::{run_stages, PointSource, RunOutput};
use crate::gpu::workspace::{BufferSizes, Workspace, WorkspaceLease, WorkspacePool};
use crate::plan::Plan;
use crate::point_model::RunningCurve;
use crate::step::{Kernels, Step};
use crate::upload::Upload;
use crate::MsmError;

/// A curve's runner once compiled. Concurrent first calls on a curve wait for one compilation
/// instead of each compiling the same shaders.
pub(crate) type CurveSlot = futures_intrusive::sync::Mutex<Option<Arc<CurveRunner>>>;

/// What a context keeps per curve and choice of kernels.
pub(crate) struct CurveRunner {
    /// The curve and the point model its kernels run.
    pub(crate) curve: RunningCurve<'static>,
    /// The field form, accumulation and plan shape of the pipelines.
    kernels: Kernels,
    pub(crate) pipelines: CurvePipelines,
    pub(crate) workspaces: WorkspacePool,
    /// On a curve computed on its Edwards model ([`crate::Accumulation::Edwards`]): the
    /// Weierstrass runner that repeats a pass whose result came back exceptional, compiled when
    /// first needed.
    pub(crate) weierstrass: CurveSlot,
    /// Where prepared bases run another accumulation than the calls
    /// ([`crate::DeviceProfile::affine_prepared_bases`]): their runner, compiled at the first
    /// `prepare` (or kept from calibration, which compiled it as a candidate).
    pub(crate) bases: CurveSlot,
    /// The pipelines of the steps only some preparations run ([`Step::CheckSubgroup`],
    /// [`Step::PrecomputeMultiples`]), each compiled when first needed.
    pub(crate) on_demand: Mutex<HashMap<Step, wgpu::ComputePipeline>>,
}

impl CurveRunner {
    /// Compiles `G`'s pipelines with `kernels` (on the point model their accumulation runs
    /// there) into a runner whose pool keeps up to `max_workspaces` workspaces.
    pub(crate) async fn compile<G: GpuCurve>(
        gpu: &Gpu,
        max_workspaces: usize,
        kernels: Kernels,
    ) -> Result<CurveRunner, MsmError> {
        let mut runners = Self::compile_many::<G>(gpu, max_workspaces, &[kernels]).await?;
        Ok(runners.pop().expect("one runner per candidate"))
    }

    /// [`CurveRunner::compile`] of several candidates, compiled together (natively in parallel:
    /// see [`CurvePipelines::compile`]), in order.
    pub(crate) async fn compile_many<G: GpuCurve>(
        gpu: &Gpu,
        max_workspaces: usize,
        candidates: &[Kernels],
    ) -> Result<Vec<CurveRunner>, MsmError> {
        let curves: Vec<(RunningCurve<'static>, Kernels)> =
            candidates.iter().map(|&kernels| (RunningCurve::new(G::spec(), kernels.accumulation), kernels)).collect();
        let pipelines = CurvePipelines::compile(gpu, &curves).await?;
        Ok(curves
            .into_iter()
            .zip(pipelines)
            .map(|((curve, kernels), pipelines)| CurveRunner {
                curve,
                kernels,
                pipelines,
                workspaces: WorkspacePool::new(max_workspaces),
                weierstrass: CurveSlot::new(None, false),
                bases: CurveSlot::new(None, false),
                on_demand: Mutex::new(HashMap::new()),
            })
            .collect())
    }

    /// The field form, accumulation and plan shape of the pipelines.
    pub(crate) fn kernels(&self) -> Kernels {
        self.kernels
    }

    /// Buffer sizes of one pass of `plan`.
    pub(crate) fn buffer_sizes(&self, plan: &Plan) -> BufferSizes {
        BufferSizes::for_plan(self.curve.spec, self.kernels(), plan)
    }

    /// The workspace buffer sizes a pass of `plan` on `points` needs (runs on prepared bases
    /// bind the bases' points instead of the workspace's).
    pub(crate) fn run_sizes(&self, plan: &Plan, points: PointSource<'_>) -> BufferSizes {
        let sizes = self.buffer_sizes(plan);
        match points {
            PointSource::Upload { .. } => sizes,
            PointSource::Prepared(_) => {
                sizes.for_prepared_bases(&self.buffer_sizes(&Plan::choose(1, self.curve.spec.scalar_bits)))
            }
        }
    }

    /// Whether window sums read back from this runner came out of an exceptional Edwards
    /// addition or a point with no Edwards image (see [`crate::curve::EdwardsMap`]): then the
    /// pass must run again on the Weierstrass model.
    pub(crate) fn exceptional(&self, window_sums: &[u32]) -> bool {
        self.curve.model.on_edwards_image()
            && window_sums
                .chunks_exact(self.curve.model.point_coords() * self.curve.spec.storage_words())
                .any(|point| point.iter().all(|&word| word == 0))
    }

    /// Runs the GPU stages for `plan` on the workspace of `lease` (one of this runner's),
    /// growing it first if needed, and reads back the raw window sums.
    pub(crate) async fn run_leased(
        &self,
        gpu: &Gpu,
        lease: &mut WorkspaceLease<'_>,
        plan: &Plan,
        points: PointSource<'_>,
        scalars: &dyn Upload,
        profile: bool,
    ) -> Result<RunOutput, MsmError> {
        let plan = &plan.shaped(self.kernels().plan);
        let sizes = self.run_sizes(plan, points);
        if !lease.covers(&sizes) {
            let fresh = gpu.capture(|| Workspace::new(&gpu.device, &self.pipelines, &sizes, lease.workspace())).await?;
            lease.replace(fresh);
        }
        let workspace = lease.workspace().expect("covers the plan or was just created");
        let point_bytes = self.curve.point_bytes();
        run_stages(gpu, &self.pipelines, workspace, plan, points, scalars, point_bytes, profile).await
    }
}
