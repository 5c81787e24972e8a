//! The pipeline's table: its buffers and its GPU steps. For each step: the shader stage that holds
//! it, its entry point, the buffers it binds, its dispatch size and what runs on prepared bases
//! change. Pipelines, bind groups, dispatches, the cost model and the profile all read it from
//! here, so adding a step means one [`Step`] variant and its arms below, its WGSL entry point, and
//! its cost in [`crate::cost`].

use crate::limbs::MulForm;
use crate::plan::{Plan, PlanShape};
use crate::point_model::PointModel;
use crate::wgsl::Stage;

pub use crate::point_model::Accumulation;

/// Workgroup size of the one-thread-per-item stages (`WORKGROUP_SIZE` in `common.wgsl`).
const WORKGROUP_SIZE: u32 = 64;
/// Largest workgroup count per dispatch dimension (WebGPU default limit).
const MAX_GROUPS_PER_DIMENSION: u32 = 65_535;

/// Workgroup counts for `threads` threads, folded into two dimensions when needed
/// (`thread_index` in `common.wgsl` unfolds them).
pub(crate) fn dispatch_size(threads: u32) -> (u32, u32) {
    let groups = threads.div_ceil(WORKGROUP_SIZE).max(1);
    if groups <= MAX_GROUPS_PER_DIMENSION {
        (groups, 1)
    } else {
        (MAX_GROUPS_PER_DIMENSION, groups.div_ceil(MAX_GROUPS_PER_DIMENSION))
    }
}

/// The buffers of the pipeline, in the order of [`Buffer::ALL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Buffer {
    /// Uniform `Plan`: the call's sizes (`struct Plan` in `shaders/common.wgsl`).
    Plan,
    /// Uploaded point words: the first `RAW_LOW_POINTS` (2^19) points.
    RawPoints,
    /// Uploaded point words from point `RAW_LOW_POINTS` on. Two buffers, so that each holds
    /// its share of a pass of 2^20 points within WebGPU's default 128 MiB binding: the BLS12 G2
    /// groups' uploaded points (192 bytes in 32-bit words) took two passes in one buffer.
    RawPointsHigh,
    /// Uploaded scalar words.
    RawScalars,
    /// Points in Montgomery (stored) form, packed: the first half of each point's coordinates
    /// (rounded up: two of three), `StoredFront` in the curve's WGSL.
    PointsFront,
    /// The rest of each stored point's coordinates (`StoredBack`). Two buffers, so that each
    /// holds a pass of 2^20 points within WebGPU's default 128 MiB binding: bls12-377's points
    /// on its Edwards model (192 bytes each in 32-bit limbs) took two passes in one buffer.
    PointsBack,
    /// Per point: 1 if it is the identity, else 0.
    Identity,
    /// Signed digits, window-major.
    Digits,
    /// Bucket counts, then scatter cursors, then bucket end offsets.
    BucketCounts,
    /// Bucket start offsets.
    BucketStarts,
    /// CSR entries: point indices grouped by bucket.
    Entries,
    /// Bucket sums.
    Buckets,
    /// Per-segment reduction results, then (after the reduction threads' running and scaled
    /// sums) each window's sum, which the host reads back.
    Partials,
    /// Per-chunk pieces of buckets that began in an earlier chunk (stage 3).
    Carries,
    /// The lowest bad input point of each kind, which `convert_points` records and the host
    /// reads before it uses any result (`FAULT_*` in `common.wgsl`).
    Faults,
    /// Per point, with affine Edwards bases: `normalize_points`' running product of the Zs
    /// before it (Montgomery's trick).
    Prefixes,
    /// Per point of blinded prepared bases ([`crate::MsmConfig::blinding`]): its blinding
    /// factor, an integer below r that `decompose_scalars` adds to its scalar. The workspace's
    /// own is a placeholder that unblinded runs bind but do not read.
    Blinding,
}

impl Buffer {
    /// Every buffer.
    pub const ALL: [Buffer; 17] = [
        Buffer::Plan,
        Buffer::RawPoints,
        Buffer::RawPointsHigh,
        Buffer::RawScalars,
        Buffer::PointsFront,
        Buffer::PointsBack,
        Buffer::Identity,
        Buffer::Digits,
        Buffer::BucketCounts,
        Buffer::BucketStarts,
        Buffer::Entries,
        Buffer::Buckets,
        Buffer::Partials,
        Buffer::Carries,
        Buffer::Faults,
        Buffer::Prefixes,
        Buffer::Blinding,
    ];

    /// Whether shaders bind it as a uniform buffer (all others are storage buffers).
    pub fn is_uniform(self) -> bool {
        self == Buffer::Plan
    }

    /// Whether the host writes it before a run's first step: an upload or a clear
    /// (`gpu::run::run_stages`).
    pub fn written_before_run(self) -> bool {
        use Buffer::*;
        matches!(self, Plan | RawPoints | RawPointsHigh | RawScalars | BucketCounts | Faults)
    }

    /// Whether the host reads it back after a run's last step.
    pub fn read_after_run(self) -> bool {
        matches!(self, Buffer::Partials | Buffer::Faults)
    }

    /// Whether prepared bases (see [`crate::PreparedBases`]) hold their own copy, which runs on
    /// them bind instead of the workspace's.
    pub fn held_by_prepared_bases(self) -> bool {
        matches!(self, Buffer::PointsFront | Buffer::PointsBack | Buffer::Identity | Buffer::Faults | Buffer::Blinding)
    }
}

/// How the shaders of a context are generated and its plans shaped: the field form, the
/// accumulation and the plan shape (which the device profile chooses for the form,
/// [`crate::DeviceProfile::plan_shape`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Kernels {
    /// Limbs and multiplication of field elements.
    pub form: MulForm,
    /// Stage 3's additions.
    pub accumulation: Accumulation,
    /// How plans run their threads ([`Plan::shaped`]): spread plans also run
    /// [`Step::CombineCarries`].
    pub plan: PlanShape,
}

/// How a step uses a buffer it binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// It only reads the buffer.
    Read,
    /// It writes the buffer (and may read it).
    ReadWrite,
}

/// One compute dispatch of the MSM pipeline; [`Step::ALL`] lists them in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// Stage 1: points checked (range, curve equation) and into their stored (Montgomery) form,
    /// with their identity flags and the lowest bad index of each kind.
    ConvertPoints,
    /// Stage 1, with affine Edwards bases only ([`Accumulation::EdwardsAffine`]): each stored
    /// point divided by its Z, one inversion per thread's batch of points.
    NormalizePoints,
    /// Stage 1, with [`crate::MsmConfig::check_subgroup`] on a curve whose cofactor is not 1:
    /// each point multiplied by the group order, the lowest one outside the prime-order group
    /// recorded in the faults. Not part of the curve's pipelines: its pipeline is compiled when
    /// first needed.
    CheckSubgroup,
    /// Stage 1, at `prepare` with a precompute factor only: each point's multiples
    /// 2^(j·c·W)·P ([`Plan::fold`]) into the stored points, with their flags. Not part of the
    /// curve's pipelines: its pipeline is compiled when first needed.
    PrecomputeMultiples,
    /// Stage 1: scalars uploaded in arkworks' Montgomery form into integers, in place
    /// (dispatched only for such uploads).
    ConvertScalars,
    /// Stage 1: scalars into signed window digits, counting the points of every bucket.
    DecomposeScalars,
    /// Stage 2: prefix scan of the bucket counts into bucket start offsets.
    ScanBucketCounts,
    /// Stage 2: scatter of point indices into the CSR entries of their buckets.
    ScatterEntries,
    /// Stage 3: bucket accumulation, an equal chunk of entries per thread.
    AccumulateChunks,
    /// Stage 4, spread plans only ([`Plan::carry_group`] > 1): each bucket's carries added up
    /// in groups, so no reduction thread adds a long chain of them.
    CombineCarries,
    /// Stage 4: running-sum bucket reduction into per-segment partial sums, adding every piece
    /// of each bucket (its first, then its carries, one per group).
    BucketReduce,
    /// Stage 4: each window's partial sums into one (a tree per window), so the host reads back
    /// one point per window.
    SumWindows,
}

impl Step {
    /// Every step, in the order they run (and of their discriminants, `step as usize`).
    pub const ALL: [Step; 12] = [
        Step::ConvertPoints,
        Step::NormalizePoints,
        Step::CheckSubgroup,
        Step::PrecomputeMultiples,
        Step::ConvertScalars,
        Step::DecomposeScalars,
        Step::ScanBucketCounts,
        Step::ScatterEntries,
        Step::AccumulateChunks,
        Step::CombineCarries,
        Step::BucketReduce,
        Step::SumWindows,
    ];

    /// The step's WGSL entry point, also the label of its pipeline and pass and its name in
    /// profiles.
    pub fn name(self) -> &'static str {
        match self {
            Step::ConvertPoints => "convert_points",
            Step::NormalizePoints => "normalize_points",
            Step::CheckSubgroup => "check_subgroup",
            Step::PrecomputeMultiples => "precompute_multiples",
            Step::ConvertScalars => "convert_scalars",
            Step::DecomposeScalars => "decompose_scalars",
            Step::ScanBucketCounts => "scan_bucket_counts",
            Step::ScatterEntries => "scatter_entries",
            Step::AccumulateChunks => "accumulate_chunks",
            Step::CombineCarries => "combine_carries",
            Step::BucketReduce => "bucket_reduce",
            Step::SumWindows => "sum_windows",
        }
    }

    /// The steps kernels on the point model `model` run with plans of shape `plan`, in order
    /// (their pipelines; not [`Step::CheckSubgroup`] and [`Step::PrecomputeMultiples`], which
    /// only some preparations need,
    /// nor in compact plans [`Step::CombineCarries`], whose groups of carries hold 1: see
    /// [`Plan::shaped`]). A step of one point model only is chosen here.
    pub fn of(model: PointModel, plan: PlanShape) -> impl Iterator<Item = Step> {
        Step::ALL.into_iter().filter(move |step| match step {
            Step::NormalizePoints => model.normalizes_stored_points(),
            Step::CheckSubgroup | Step::PrecomputeMultiples => false,
            Step::CombineCarries => plan == PlanShape::Spread,
            _ => true,
        })
    }

    /// The stage whose composed module holds the entry point.
    pub fn stage(self) -> Stage {
        match self {
            Step::ConvertPoints
            | Step::NormalizePoints
            | Step::CheckSubgroup
            | Step::PrecomputeMultiples
            | Step::DecomposeScalars => {
                Stage::ConvertAndDecompose
            }
            Step::ConvertScalars => Stage::ConvertScalars,
            Step::ScanBucketCounts | Step::ScatterEntries => Stage::Transpose,
            Step::AccumulateChunks | Step::CombineCarries => Stage::Smvp,
            Step::BucketReduce | Step::SumWindows => Stage::BucketReduce,
        }
    }

    /// How many times the step is dispatched in a row.
    pub fn repeats(self, plan: &Plan) -> u32 {
        match self {
            Step::ConvertScalars => u32::from(plan.inputs & Plan::SCALARS_MONTGOMERY != 0),
            Step::CombineCarries => u32::from(plan.carry_group > 1),
            _ => 1,
        }
    }

    /// The buffers the step binds in group 0: (binding number, buffer, how the step uses it).
    /// Exactly the bindings its entry point uses (`tests/shaders.rs` checks them).
    pub fn bindings(self) -> &'static [(u32, Buffer, Access)] {
        use Access::*;
        use Buffer::*;
        match self {
            Step::ConvertPoints => &[
                (0, Plan, Read),
                (1, RawPoints, Read),
                (3, PointsFront, ReadWrite),
                (6, Identity, ReadWrite),
                (7, Faults, ReadWrite),
                (8, PointsBack, ReadWrite),
                (9, RawPointsHigh, Read),
            ],
            Step::NormalizePoints => {
                &[(0, Plan, Read), (3, PointsFront, ReadWrite), (8, PointsBack, ReadWrite), (10, Prefixes, ReadWrite)]
            }
            Step::CheckSubgroup => &[
                (0, Plan, Read),
                (3, PointsFront, Read),
                (6, Identity, Read),
                (7, Faults, ReadWrite),
                (8, PointsBack, Read),
            ],
            Step::PrecomputeMultiples => &[
                (0, Plan, Read),
                (3, PointsFront, ReadWrite),
                (6, Identity, ReadWrite),
                (7, Faults, ReadWrite),
                (8, PointsBack, ReadWrite),
            ],
            Step::ConvertScalars => &[(0, Plan, Read), (2, RawScalars, ReadWrite)],
            Step::DecomposeScalars => &[
                (0, Plan, Read),
                (2, RawScalars, Read),
                (4, Digits, ReadWrite),
                (5, BucketCounts, ReadWrite),
                (6, Identity, Read),
                (11, Blinding, Read),
            ],
            Step::ScanBucketCounts => &[(0, Plan, Read), (1, BucketCounts, ReadWrite), (2, BucketStarts, ReadWrite)],
            Step::ScatterEntries => {
                &[(0, Plan, Read), (1, BucketCounts, ReadWrite), (3, Digits, Read), (4, Entries, ReadWrite)]
            }
            Step::AccumulateChunks => &[
                (0, Plan, Read),
                (1, BucketStarts, Read),
                (2, BucketCounts, Read),
                (3, Entries, Read),
                (4, PointsFront, Read),
                (5, Buckets, ReadWrite),
                (6, Carries, ReadWrite),
                (8, PointsBack, Read),
            ],
            Step::CombineCarries => {
                &[(0, Plan, Read), (1, BucketStarts, Read), (2, BucketCounts, Read), (6, Carries, ReadWrite)]
            }
            Step::BucketReduce => &[
                (0, Plan, Read),
                (1, Buckets, Read),
                (2, Partials, ReadWrite),
                (3, BucketStarts, Read),
                (4, BucketCounts, Read),
                (5, Carries, Read),
            ],
            Step::SumWindows => &[(0, Plan, Read), (2, Partials, ReadWrite)],
        }
    }

    /// Workgroup counts (x, y) of the step's dispatch for `plan`.
    pub fn dispatch(self, plan: &Plan) -> (u32, u32) {
        match self {
            Step::ConvertPoints | Step::CheckSubgroup | Step::ScatterEntries => dispatch_size(plan.n),
            Step::NormalizePoints => dispatch_size(plan.normalize_threads()),
            // One thread per point of a set (not per stored multiple).
            Step::PrecomputeMultiples => dispatch_size(plan.scalars_per_set()),
            // One thread per scalar of every set.
            Step::ConvertScalars | Step::DecomposeScalars => dispatch_size(plan.sets * plan.scalars_per_set()),
            // One workgroup per window.
            Step::ScanBucketCounts | Step::SumWindows => (plan.all_windows(), 1),
            Step::AccumulateChunks | Step::CombineCarries => dispatch_size(plan.total_chunks()),
            Step::BucketReduce => dispatch_size(plan.total_segments()),
        }
    }

    /// Whether runs on prepared bases skip the step: they already hold what it computes.
    pub fn skipped_with_prepared_bases(self) -> bool {
        matches!(self, Step::ConvertPoints | Step::NormalizePoints | Step::CheckSubgroup | Step::PrecomputeMultiples)
    }

    /// Whether runs on prepared bases bind buffers of the bases for this step instead of the
    /// workspace's (a step they run that reads [`Buffer::held_by_prepared_bases`]).
    pub fn binds_prepared_bases(self) -> bool {
        !self.skipped_with_prepared_bases() && self.bindings().iter().any(|(_, b, _)| b.held_by_prepared_bases())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_step_at_its_discriminant() {
        for (i, step) in Step::ALL.into_iter().enumerate() {
            assert_eq!(step as usize, i, "{step:?}");
        }
        for (i, buffer) in Buffer::ALL.into_iter().enumerate() {
            assert_eq!(buffer as usize, i, "{buffer:?}");
        }
    }

    #[test]
    fn bindings_are_unique_per_step() {
        for step in Step::ALL {
            let bindings = step.bindings();
            for (i, (slot, buffer, _)) in bindings.iter().enumerate() {
                assert!(bindings[i + 1..].iter().all(|(s, b, _)| s != slot && b != buffer), "{step:?} {slot}");
            }
        }
    }

    /// Runs on prepared bases skip exactly the steps that would write the buffers the bases
    /// hold (so they never overwrite them), and every step they skip writes nothing else but
    /// its own scratch (`normalize_points`' running products).
    #[test]
    fn prepared_bases_skip_exactly_the_steps_that_make_them() {
        for step in Step::ALL {
            let writes = |prepared: bool| {
                step.bindings().iter().any(|&(_, b, access)| {
                    access == Access::ReadWrite && b.held_by_prepared_bases() == prepared && b != Buffer::Prefixes
                })
            };
            assert_eq!(step.skipped_with_prepared_bases(), writes(true), "{step:?}");
            if step.skipped_with_prepared_bases() {
                assert!(!writes(false), "{step:?} writes more than the prepared bases hold");
            }
        }
    }
}
