//! The buffers and bind groups of one curve's pipeline, kept between calls and grown on demand.

use crate::curve::{CurveSpec, MAX_SCALAR_BITS, SCALAR_WORDS};
use crate::plan::{Plan, MAX_SETS_PER_PASS};
use crate::point_model::RunningCurve;
use crate::step::{Buffer, Kernels, Step};

use super::pipelines::CurvePipelines;
use super::resident::PreparedPass;
use crate::upload::{raw_buffer_bytes, FAULTS_BYTES};

/// Where the window sums start in [`Buffer::Partials`], in regions of `plan.total_segments()`
/// points (`WINDOW_SUMS_REGION` in `shaders/bucket_reduce.wgsl`).
pub(crate) const WINDOW_SUMS_REGION: u64 = 3;

/// Byte sizes of every buffer for a plan, in the order of [`Buffer::ALL`], and whether
/// buffers whose lives do not overlap share memory ([`BufferSizes::regions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BufferSizes {
    sizes: [u64; Buffer::ALL.len()],
    /// `false` only for tests that read every buffer after a run.
    shared: bool,
}

/// The first and last position, among the steps a run may execute (every step but
/// [`Step::PrecomputeMultiples`], which runs at `prepare` on the bases' own buffers), at which
/// `buffer` holds data a later step or the host needs: from the step that first binds it (or,
/// for an upload or a clear, before the first step) to the last that binds it (or, where the
/// host reads it back, after the last step). Over every step, so the range holds whichever of
/// them a curve's kernels run.
fn live_range(buffer: Buffer) -> (usize, usize) {
    let steps = Step::ALL.into_iter().filter(|&step| step != Step::PrecomputeMultiples);
    let uses: Vec<usize> = steps
        .enumerate()
        .filter(|(_, step)| step.bindings().iter().any(|&(_, b, _)| b == buffer))
        .map(|(i, _)| i + 1)
        .collect();
    let first = if buffer.written_before_run() { 0 } else { uses.first().copied().unwrap_or(0) };
    let last = if buffer.read_after_run() { usize::MAX } else { uses.last().copied().unwrap_or(0) };
    (first, last)
}

impl BufferSizes {
    /// What `plan` needs on the curve `spec` with `kernels` (on the point model their
    /// accumulation runs there).
    pub(crate) fn for_plan(spec: &CurveSpec, kernels: Kernels, plan: &Plan) -> Self {
        let curve = RunningCurve::new(spec, kernels.accumulation);
        let plan = &plan.shaped(kernels.plan);
        let n = plan.n as u64;
        let field = spec.storage_words() as u64 * 4;
        let point = curve.point_bytes();
        let (front, back) = curve.stored_half_bytes();
        let windows = plan.all_windows() as u64;
        let raw_points = raw_buffer_bytes(spec, plan.scalars_per_set() as usize);
        let sizes = Buffer::ALL.map(|b| match b {
            Buffer::Plan => std::mem::size_of::<Plan>() as u64,
            Buffer::RawPoints => raw_points[0],
            Buffer::RawPointsHigh => raw_points[1],
            Buffer::RawScalars => plan.sets as u64 * plan.scalars_per_set() as u64 * SCALAR_WORDS as u64 * 4,
            Buffer::PointsFront => n * front,
            Buffer::PointsBack => n * back,
            Buffer::Identity => n * 4,
            // Two 16-bit digits per word, each set's windows paired (`digit_word` in common.wgsl).
            Buffer::Digits => plan.sets as u64 * plan.num_windows.div_ceil(2) as u64 * n * 4,
            Buffer::Entries => windows * n * 4,
            Buffer::BucketCounts | Buffer::BucketStarts => plan.total_buckets() as u64 * 4,
            Buffer::Buckets => plan.total_buckets() as u64 * point,
            // The partial sums, each reduction thread's running and scaled sums, then the
            // window sums that are read back (`WINDOW_SUMS_REGION` in bucket_reduce.wgsl).
            Buffer::Partials => (WINDOW_SUMS_REGION * plan.total_segments() as u64 + windows) * point,
            Buffer::Carries => plan.total_chunks() as u64 * point,
            Buffer::Faults => FAULTS_BYTES,
            Buffer::Prefixes => match curve.model.normalizes_stored_points() {
                true => n * field,
                false => 0,
            },
            // Prepared bases hold the factors (PreparedPass::blinding); the workspace's stands
            // in for them in unblinded runs, at the binding's minimum of one factor.
            Buffer::Blinding => SCALAR_WORDS as u64 * 4,
        });
        // Zero-sized bindings are invalid; keep every buffer at least one 16-byte slot.
        BufferSizes { sizes: sizes.map(|s| s.max(16)), shared: true }
    }

    /// These sizes with every buffer in memory of its own (tests that read each stage's output
    /// after a run).
    #[cfg(test)]
    pub(crate) fn apart(self) -> Self {
        BufferSizes { shared: false, ..self }
    }

    /// Size of one buffer.
    pub(crate) fn get(&self, buffer: Buffer) -> u64 {
        self.sizes[buffer as usize]
    }

    /// The memory region of each buffer (indices into [`BufferSizes::region_sizes`]): buffers
    /// whose live ranges ([`live_range`]) do not overlap share one, the largest first (each goes
    /// to the first region whose buffers' lives it does not meet), so a pass holds about the
    /// most it needs at one time rather than every buffer it ever binds: the uploaded points
    /// die at their conversion and the CSR entries take their memory, the digits die at the
    /// scatter and the buckets take theirs. The uniform [`Buffer::Plan`] has one of its own.
    pub(crate) fn regions(&self) -> [usize; Buffer::ALL.len()] {
        let mut region = std::array::from_fn(|i| i);
        if !self.shared {
            return region;
        }
        let mut order: Vec<Buffer> = Buffer::ALL.into_iter().filter(|b| !b.is_uniform()).collect();
        order.sort_by_key(|&b| (std::cmp::Reverse(self.get(b)), b as usize));
        let mut members: Vec<Vec<Buffer>> = Vec::new();
        let ranges = Buffer::ALL.map(live_range);
        let meets = |a: Buffer, b: Buffer| {
            let ((a0, a1), (b0, b1)) = (ranges[a as usize], ranges[b as usize]);
            a0 <= b1 && b0 <= a1
        };
        for buffer in order {
            let k = match members.iter().position(|m| m.iter().all(|&other| !meets(buffer, other))) {
                Some(k) => k,
                None => {
                    members.push(Vec::new());
                    members.len() - 1
                }
            };
            members[k].push(buffer);
            region[buffer as usize] = k;
        }
        region[Buffer::Plan as usize] = members.len();
        region
    }

    /// Bytes of each region of [`BufferSizes::regions`]: its largest buffer.
    pub(crate) fn region_sizes(&self) -> Vec<u64> {
        let regions = self.regions();
        let mut sizes = vec![0; regions.iter().max().map_or(0, |&k| k + 1)];
        for buffer in Buffer::ALL {
            let k = regions[buffer as usize];
            sizes[k] = sizes[k].max(self.get(buffer));
        }
        sizes
    }

    /// Bytes of GPU memory the buffers take, shared ones counted once.
    pub(crate) fn total(&self) -> u64 {
        self.region_sizes().iter().sum()
    }

    /// The largest buffer.
    pub(crate) fn largest(&self) -> u64 {
        self.sizes.iter().copied().max().unwrap_or(0)
    }

    /// Whether every buffer fits one binding on a device with `limits`, and all of them
    /// `budget` bytes where there is one.
    pub(crate) fn fits(&self, limits: &wgpu::Limits, budget: Option<u64>) -> bool {
        self.largest() <= binding_cap(limits) && budget.is_none_or(|budget| self.total() <= budget)
    }

    /// These sizes for runs on prepared bases, which bind the bases' own points and flags and
    /// upload no points: the workspace's copies of those hold one point (`one_point`: the sizes
    /// of a one-point plan), the least a binding takes.
    pub(crate) fn for_prepared_bases(mut self, one_point: &BufferSizes) -> Self {
        for buffer in [
            Buffer::RawPoints,
            Buffer::RawPointsHigh,
            Buffer::PointsFront,
            Buffer::PointsBack,
            Buffer::Identity,
            Buffer::Prefixes,
        ] {
            self.sizes[buffer as usize] = one_point.get(buffer);
        }
        self
    }

    /// Whether buffers of these sizes hold `other`'s (sharing memory only where `other` may).
    fn covers(&self, other: &BufferSizes) -> bool {
        self.sizes.iter().zip(other.sizes).all(|(a, b)| *a >= b) && (other.shared || !self.shared)
    }

    fn max(&self, other: &BufferSizes) -> BufferSizes {
        BufferSizes {
            sizes: std::array::from_fn(|i| self.sizes[i].max(other.sizes[i])),
            shared: self.shared && other.shared,
        }
    }
}

/// The most scalar sets, of the `wanted` ones (at most [`MAX_SETS_PER_PASS`], at least 1),
/// whose buffers for `plan`'s points (`sizes` of a plan) all fit the device limits: a batch runs
/// its sets in groups of this many per pass. One set is never measured.
pub(crate) fn max_sets(
    limits: &wgpu::Limits,
    budget: Option<u64>,
    plan: &Plan,
    wanted: usize,
    sizes: impl Fn(&Plan) -> BufferSizes,
) -> usize {
    let most = MAX_SETS_PER_PASS.min(u32::try_from(wanted).unwrap_or(u32::MAX));
    let fits = |sets: u32| sizes(&plan.with_sets(sets)).fits(limits, budget);
    (2..=most).take_while(|&sets| fits(sets)).last().unwrap_or(1) as usize
}

/// The largest buffer one storage binding takes on a device with these limits.
fn binding_cap(limits: &wgpu::Limits) -> u64 {
    limits.max_storage_buffer_binding_size.min(limits.max_buffer_size)
}

/// The largest number of points (each stored with `fold` multiples, 1 for none; see
/// [`Plan::fold`]) whose buffers all fit the device limits and, where there is one, the
/// workspace's memory `budget`; 0 where not even one point fits.
pub(crate) fn max_points(
    spec: &CurveSpec,
    kernels: Kernels,
    limits: &wgpu::Limits,
    fold: u32,
    budget: Option<u64>,
) -> u32 {
    // Sized for the widest scalars any API accepts (256 bits), so the bound holds for all of them.
    let fits =
        |m: u32| BufferSizes::for_plan(spec, kernels, &Plan::folded(m, MAX_SCALAR_BITS, fold)).fits(limits, budget);
    // At most 2^28 stored points: far above any device's limit, and the plan's sizes stay
    // within u32.
    let (mut lo, mut hi) = (0u32, (1u32 << 28) / fold.max(1));
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Buffers and bind groups sized for some plans; reused while they are large enough.
pub(crate) struct Workspace {
    sizes: BufferSizes,
    buffers: Vec<wgpu::Buffer>,
    /// The bind group of every step of the curve over these buffers, in run order.
    bind_groups: Vec<(Step, wgpu::BindGroup)>,
    /// Natively, where the inputs are written before the GPU copies them into
    /// [`Buffer::RawPoints`] and [`Buffer::RawScalars`].
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) staging: super::staging::UploadStaging,
}

impl Workspace {
    /// Whether this workspace can run `sizes` without reallocating.
    pub(crate) fn covers(&self, sizes: &BufferSizes) -> bool {
        self.sizes.covers(sizes)
    }

    /// Allocates buffers covering both `sizes` and the previous workspace (so alternating sizes
    /// do not reallocate every call).
    pub(crate) fn new(
        device: &wgpu::Device,
        pipelines: &CurvePipelines,
        sizes: &BufferSizes,
        previous: Option<&Workspace>,
    ) -> Self {
        let sizes = previous.map_or(*sizes, |p| p.sizes.max(sizes));
        let regions = sizes.regions();
        let memory: Vec<wgpu::Buffer> = sizes
            .region_sizes()
            .into_iter()
            .enumerate()
            .map(|(k, size)| {
                let members: Vec<String> =
                    Buffer::ALL.iter().filter(|&&b| regions[b as usize] == k).map(|b| format!("{b:?}")).collect();
                let usage = match members.as_slice() == ["Plan"] {
                    true => wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    false => wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
                };
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&members.join("+")),
                    size,
                    usage,
                    mapped_at_creation: false,
                })
            })
            .collect();
        let buffers: Vec<wgpu::Buffer> = Buffer::ALL.iter().map(|&b| memory[regions[b as usize]].clone()).collect();
        let bind_groups = pipelines
            .steps()
            .map(|step| (step, bind_group(device, pipelines, step, |b| &buffers[b as usize])))
            .collect();
        Workspace {
            sizes,
            buffers,
            bind_groups,
            #[cfg(not(target_arch = "wasm32"))]
            staging: super::staging::UploadStaging::new(
                device,
                sizes.get(Buffer::RawPoints) + sizes.get(Buffer::RawPointsHigh) + sizes.get(Buffer::RawScalars),
            ),
        }
    }

    /// The steps a run executes, in order, each with its bind group: this workspace's, or for a
    /// run on `prepared` bases, without the steps they skip and with bind groups (created for
    /// this run) that read the points and identity flags of the bases.
    pub(crate) fn run_steps(
        &self,
        device: &wgpu::Device,
        pipelines: &CurvePipelines,
        prepared: Option<&PreparedPass>,
    ) -> Vec<(Step, wgpu::BindGroup)> {
        self.bind_groups
            .iter()
            .filter_map(|(step, own)| match prepared {
                None => Some((*step, own.clone())),
                Some(_) if step.skipped_with_prepared_bases() => None,
                Some(pass) if step.binds_prepared_bases() => {
                    let buffer = |b: Buffer| pass.buffer(b).unwrap_or(&self.buffers[b as usize]);
                    Some((*step, bind_group(device, pipelines, *step, buffer)))
                }
                Some(_) => Some((*step, own.clone())),
            })
            .collect()
    }

    /// The wgpu buffer behind `buffer`.
    pub(crate) fn buffer(&self, buffer: Buffer) -> &wgpu::Buffer {
        &self.buffers[buffer as usize]
    }
}

/// The bind group of `step`'s pipeline over the buffers of [`Step::bindings`], each looked up
/// with `buffer`.
pub(crate) fn bind_group<'a>(
    device: &wgpu::Device,
    pipelines: &CurvePipelines,
    step: Step,
    buffer: impl Fn(Buffer) -> &'a wgpu::Buffer,
) -> wgpu::BindGroup {
    step_bind_group(device, pipelines.get(step), step, buffer)
}

/// [`bind_group`] for `step`'s `pipeline` (a step compiled on demand).
pub(crate) fn step_bind_group<'a>(
    device: &wgpu::Device,
    pipeline: &wgpu::ComputePipeline,
    step: Step,
    buffer: impl Fn(Buffer) -> &'a wgpu::Buffer,
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = step
        .bindings()
        .iter()
        .map(|&(binding, b, _)| wgpu::BindGroupEntry { binding, resource: buffer(b).as_entire_binding() })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(step.name()),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    })
}

/// Workspaces most contexts keep per curve: one call can upload and encode while another's
/// GPU work runs, or decode while another uploads.
pub(crate) const DEFAULT_WORKSPACES: usize = 2;

/// The workspaces of one curve, shared by concurrent calls: a call leases one for its GPU run
/// and gives it back once the results are read back. At most `capacity` exist; a second one is
/// created only when a call finds every existing one leased (sequential calls keep one).
pub(crate) struct WorkspacePool {
    /// Workspaces not leased now.
    free: std::sync::Mutex<Vec<Workspace>>,
    /// One permit per workspace that may exist; a lease holds one.
    permits: futures_intrusive::sync::Semaphore,
}

/// A workspace leased from a [`WorkspacePool`]; dropping it returns the workspace to the pool.
pub(crate) struct WorkspaceLease<'a> {
    pool: &'a WorkspacePool,
    /// `None` until [`WorkspaceLease::fit`] has run (the pool had none free).
    workspace: Option<Workspace>,
    /// Released after `drop` has returned the workspace.
    _permit: futures_intrusive::sync::SemaphoreReleaser<'a>,
}

impl WorkspacePool {
    /// A pool of at most `capacity` (≥ 1) workspaces, none allocated yet.
    pub(crate) fn new(capacity: usize) -> Self {
        WorkspacePool {
            free: std::sync::Mutex::new(Vec::new()),
            permits: futures_intrusive::sync::Semaphore::new(true, capacity.max(1)),
        }
    }

    /// Waits (first come, first served) until fewer than `capacity` calls hold a lease, then
    /// leases the free workspace that best fits `sizes`: the smallest that covers them, else the
    /// largest (which [`WorkspaceLease::fit`] grows), else none (a new one will be created).
    pub(crate) async fn lease(&self, sizes: &BufferSizes) -> WorkspaceLease<'_> {
        let permit = self.permits.acquire(1).await;
        let mut free = self.free.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let covering = (0..free.len()).filter(|&i| free[i].covers(sizes)).min_by_key(|&i| free[i].sizes.total());
        let largest = (0..free.len()).max_by_key(|&i| free[i].sizes.total());
        let workspace = covering.or(largest).map(|i| free.swap_remove(i));
        WorkspaceLease { pool: self, workspace, _permit: permit }
    }
}

impl WorkspaceLease<'_> {
    /// The leased workspace; `None` when the pool had none free (nothing allocated yet).
    pub(crate) fn workspace(&self) -> Option<&Workspace> {
        self.workspace.as_ref()
    }

    /// Whether the leased workspace can run `sizes` as it is.
    pub(crate) fn covers(&self, sizes: &BufferSizes) -> bool {
        self.workspace.as_ref().is_some_and(|w| w.covers(sizes))
    }

    /// Replaces the leased workspace (dropping the old one's buffers) with `workspace`, which
    /// goes to the pool when the lease ends.
    pub(crate) fn replace(&mut self, workspace: Workspace) {
        self.workspace = Some(workspace);
    }
}

impl Drop for WorkspaceLease<'_> {
    fn drop(&mut self) {
        if let Some(workspace) = self.workspace.take() {
            self.pool.free.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(workspace);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{max_points, WINDOW_SUMS_REGION};
    use crate::plan::PlanShape;
    use crate::step::{Accumulation, Kernels};
    use crate::wgsl::MulForm;

    /// A pass holds 2^20 points of every curve and G2 group, in both field forms and with every
    /// accumulation and plan shape, within WebGPU's default limits: stored points lie in two
    /// buffers, where one held 699,050 of bls12-377's 192-byte points on its Edwards model, and so
    /// do uploaded points, where one held 699,050 of the BLS12 G2 groups' 192-byte points.
    #[test]
    fn a_pass_holds_2_pow_20_points_within_default_limits() {
        let limits = wgpu::Limits::default();
        for spec in crate::CurveId::ALL.iter().map(|id| id.spec()) {
            for form in [MulForm::WIDE, MulForm::ROLLED] {
                for accumulation in [Accumulation::Projective, Accumulation::Edwards, Accumulation::EdwardsAffine] {
                    for plan in [PlanShape::Compact, PlanShape::Spread] {
                        let kernels = Kernels { form, accumulation, plan };
                        let points = max_points(spec, kernels, &limits, 1, None);
                        assert!(points >= 1 << 20, "{} {kernels:?}: {points} points per pass", spec.name);
                    }
                }
            }
        }
    }

    /// Buffers that share memory never meet: no step binds two of them, none shares with a
    /// buffer the host uploads, clears or reads back while that one is live, and the uniform and
    /// the faults keep memory of their own. Sharing takes a pass of 2^20 bn254 points from the
    /// sum of its buffers to what the live ones need at once.
    #[test]
    fn buffers_share_memory_only_when_their_lives_do_not_meet() {
        use super::{live_range, BufferSizes};
        use crate::plan::Plan;
        use crate::step::{Buffer, Step};
        let kernels = Kernels { form: MulForm::WIDE, accumulation: Accumulation::Projective, plan: PlanShape::Compact };
        for spec in crate::CurveId::ALL.iter().map(|id| id.spec()) {
            for n in [1u32, 1 << 12, 1 << 20] {
                let sizes = BufferSizes::for_plan(spec, kernels, &Plan::choose(n, spec.scalar_bits));
                let regions = sizes.regions();
                for step in Step::ALL {
                    let mut bound: Vec<usize> = step.bindings().iter().map(|&(_, b, _)| regions[b as usize]).collect();
                    bound.sort();
                    bound.dedup();
                    assert_eq!(bound.len(), step.bindings().len(), "{} {step:?}", spec.name);
                }
                for a in Buffer::ALL {
                    for b in Buffer::ALL.into_iter().filter(|&b| b != a && regions[b as usize] == regions[a as usize]) {
                        let ((a0, a1), (b0, b1)) = (live_range(a), live_range(b));
                        assert!(a1 < b0 || b1 < a0, "{} {a:?} and {b:?} share memory while both live", spec.name);
                    }
                }
                for own in [Buffer::Plan, Buffer::Faults] {
                    let shared = Buffer::ALL.iter().filter(|&&b| regions[b as usize] == regions[own as usize]).count();
                    assert_eq!(shared, 1, "{} {own:?}", spec.name);
                }
                let apart: u64 = Buffer::ALL.iter().map(|&b| sizes.get(b)).sum();
                assert_eq!(sizes.apart().total(), apart);
                assert!(sizes.total() <= apart);
            }
        }
        let bn254 = crate::CurveId::ALL.iter().map(|id| id.spec()).find(|s| s.name == "bn254");
        if let Some(spec) = bn254 {
            let sizes = BufferSizes::for_plan(spec, kernels, &Plan::choose(1 << 20, spec.scalar_bits));
            assert!(sizes.total() * 4 < sizes.apart().total() * 3, "{sizes:?}");
        }
    }

    #[test]
    fn window_sums_region_matches_the_shader() {
        let shader = include_str!("../../shaders/bucket_reduce.wgsl");
        assert!(shader.contains(&format!("const WINDOW_SUMS_REGION: u32 = {WINDOW_SUMS_REGION}u;")));
    }
}
