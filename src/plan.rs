//! Sizes of one MSM call: window width, windows, buckets and reduction threads.

use std::sync::atomic::{AtomicU32, Ordering};

use bytemuck::{Pod, Zeroable};

/// Widest window the pipeline uses. Wider windows need more bucket memory than WebGPU's default
/// 128 MiB binding allows at 2^20 points, and bucket reduction cost doubles per extra bit. The
/// digits buffer packs two digits per word, which holds a magnitude up to 2^(c−1) and a sign bit
/// in 16 bits for c ≤ 15 (`pack_digit` in common.wgsl).
pub const MAX_WINDOW_BITS: u32 = 15;
/// Narrowest window: below 9 bits a window has fewer buckets than the scan has threads, which
/// is correct but wasteful; tiny inputs still work.
pub const MIN_WINDOW_BITS: u32 = 2;
/// Upper bound of reduction threads per window.
pub const MAX_SEGMENTS: u32 = 256;
/// Buckets each reduction thread walks at least (its fixed cost is a small scalar
/// multiplication of about 1.5·c additions, against 2 per bucket). Compact plans
/// ([`PlanShape::Compact`], software GPUs) run this: with 128 instead of 32, 2^16 points'
/// reduction (32 threads per window instead of 128) takes 15% less time on both software GPUs
/// measured, with still 10 workgroups of 64 threads to spread over a CPU's
/// cores. Spread plans split it further ([`Plan::shaped`]).
pub const MIN_SEGMENT_LEN: u32 = 128;
/// Reduction threads a spread plan aims for ([`Plan::shaped`]). Each reduction
/// thread's running sum is a serial chain of additions, so a GPU needs tens of thousands of them
/// in flight: on an H100 (132 SMs) the 2,560 threads of 2^16 points left most schedulers idle,
/// and the reduction took 5.6 of bn254's 8.5 ms. 2^15 threads fill a device's register file at
/// about 128 registers per thread.
pub const HARDWARE_REDUCTION_THREADS: u32 = 1 << 15;
/// Fewest buckets per reduction thread in a spread plan: below it, a thread's
/// scalar multiplication (about 1.5·c additions) outweighs its running sum (2 per bucket).
pub const MIN_HARDWARE_SEGMENT_LEN: u32 = 8;
/// Carries per group in spread plans ([`Plan::carry_group`]). A bucket that spans many chunks
/// leaves a carry in each chunk after its first, and one reduction thread adds them one after
/// another: a window whose digits crowd into few buckets (the top window of BLS12-381's 255-bit
/// scalars holds 1 bit at c = 15, so half the points share one bucket) made that chain 2,048
/// additions long, 60 ms of a 2^20 call on an H100. Groups of 64 cut the longest chain
/// (MAX_CHUNKS_PER_WINDOW carries) to 64 + 64 additions. Folded plans, whose windows hold up
/// to F·4,096 chunks ([`Plan::shaped`]), group about the square root of their chunk count
/// instead, so both chains stay near it: 128 + 128 additions for F = 4 at 2^20 points.
pub const CARRY_GROUP: u32 = 64;
/// Fewest CSR entries one bucket-accumulation thread adds.
pub const MIN_CHUNK_LEN: u32 = 16;
/// Entries per accumulation chunk forced on spread plans, 0 for each plan's own
/// ([`force_hardware_chunk_len`]).
static FORCED_HARDWARE_CHUNK_LEN: AtomicU32 = AtomicU32::new(0);

/// Makes every spread plan in this process (hardware GPUs'; [`Plan::shaped`]) accumulate
/// `chunk_len` entries per thread, or (`None`) each plan its own: a benchmark's knob for measuring
/// on a device how the number of accumulation threads matters (`examples/msm --chunk-len`). Plain
/// plans at 2^20 points run 17 windows of 4,096 chunks of 256 entries, about as many threads as a
/// large GPU holds at once, so a GPU may run them in one full round and a short second one. Any
/// chunk length gives the same results; buffer sizes and passes follow it. Returns `false`,
/// changing nothing, unless `chunk_len` is a power of two of at least [`MIN_CHUNK_LEN`].
pub fn force_hardware_chunk_len(chunk_len: Option<u32>) -> bool {
    let value = chunk_len.unwrap_or(0);
    if chunk_len.is_some_and(|len| !len.is_power_of_two() || len < MIN_CHUNK_LEN) {
        return false;
    }
    FORCED_HARDWARE_CHUNK_LEN.store(value, Ordering::Relaxed);
    true
}

/// Most accumulation chunks per window. The reduction thread that adds a bucket's pieces adds
/// one per chunk the bucket spans (all of them when every scalar is equal): 4096 additions, plus
/// its segment's few dozen, of at most about 13 loop back-edges each (batched products) stay
/// within the loop budget ([`crate::DeviceProfile::LOOP_BUDGET`]), and bound that serial chain
/// on every GPU.
pub const MAX_CHUNKS_PER_WINDOW: u32 = 4096;
/// Affine Edwards bases: stored points one `normalize_points` thread divides by their Z with
/// one shared inversion (`NORMALIZE_BATCH` in `shaders/common.wgsl`). An inversion costs about
/// 450 multiplications on BLS12-377's field, so 1.8 per point, beside the 7 of the division; the
/// software GPUs that run this by default need few threads (2^16 points: 256), and batches of
/// 128 make the step 10% longer on one.
pub const NORMALIZE_BATCH: u32 = 256;
/// Chunks are about this many average buckets long: longer chunks mean fewer bucket pieces to
/// combine afterwards, shorter ones more threads. On a software GPU at 2^16, 4 instead of 2
/// takes 5% off a bls12-377 call (ed-on-bls12-377 within noise); 8 is no better.
pub const BUCKETS_PER_CHUNK: u32 = 4;

/// How a device runs a plan's threads ([`Plan::shaped`]; the device profile chooses,
/// [`crate::DeviceProfile::plan_shape`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PlanShape {
    /// The plan [`Plan::choose`] makes: the fewest reduction threads, carries added one by one
    /// (software GPUs, which run a few threads per core).
    #[default]
    Compact,
    /// Reduction spread over many threads, carries combined in groups first (hardware GPUs,
    /// which need tens of thousands of threads in flight).
    Spread,
}

/// Most scalar sets one pass of a batch MSM takes: larger batches run in groups of this many
/// (or fewer where the device's buffer limits need it). Bounds the workspace a batch grows.
pub const MAX_SETS_PER_PASS: u32 = 64;

/// The sizes of one MSM call, as the shaders see them (`struct Plan` in `shaders/common.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct Plan {
    /// Number of points, F·m for a folded plan (see [`Plan::fold`]); each set has
    /// [`Plan::scalars_per_set`] scalars.
    pub n: u32,
    /// Window width c.
    pub window_bits: u32,
    /// Windows K = ceil((scalar_bits + 1) / c): the extra bit absorbs the last signed carry. In
    /// a folded plan, the folded windows W = ceil((scalar_bits + 1) / (c·F)).
    pub num_windows: u32,
    /// Buckets per window h = 2^(c−1) (signed digits have magnitude 1..=h).
    pub num_buckets: u32,
    /// Reduction threads per window T, a power of two dividing h.
    pub segments: u32,
    /// Buckets per reduction thread, h / T.
    pub segment_len: u32,
    /// CSR entries per bucket-accumulation thread S (a power of two): every thread adds the
    /// same number of points whatever the bucket sizes.
    pub chunk_len: u32,
    /// Accumulation threads per window C = ceil(n / S).
    pub chunks_per_window: u32,
    /// [`Plan::POINTS_MONTGOMERY`] and [`Plan::SCALARS_MONTGOMERY`] bits: which uploads hold
    /// arkworks' Montgomery form (the Rust API) rather than canonical integers (the bytes API);
    /// [`Plan::SCALARS_BLINDED`]: whether the scalars are blinded.
    pub inputs: u32,
    /// Scalar sets S over the same points (a batch MSM): set s is uploaded after set s − 1 and
    /// owns windows s·K … s·K + K − 1, so every per-window buffer holds S·K windows.
    pub sets: u32,
    /// Precompute factor F of prepared bases that store each of their m points with its
    /// multiples 2^(j·c·W)·P, j < F (1: none). Scalars are split into W·F digits; digit
    /// j·W + w of point i goes to window w of point j·m + i, so the F·m stored points share
    /// W windows and bucket reduction and Horner run W times instead of W·F.
    pub fold: u32,
    /// Carries per group G: 1, or in spread plans [`CARRY_GROUP`] ([`Plan::shaped`]), where
    /// `combine_carries` first adds each group of G consecutive carries of a bucket into the
    /// group's first, so `bucket_reduce` adds one carry per group.
    pub carry_group: u32,
}

// Internal: public for the test hooks; users read only a profile's plan's fields.
#[doc(hidden)]
impl Plan {
    /// [`Plan::inputs`] bit: points are uploaded as arkworks' Montgomery-form limbs.
    pub const POINTS_MONTGOMERY: u32 = 1;
    /// [`Plan::inputs`] bit: scalars are uploaded as arkworks' Montgomery-form limbs.
    pub const SCALARS_MONTGOMERY: u32 = 2;
    /// [`Plan::inputs`] bit: each scalar is blinded by its point's factor in
    /// [`crate::step::Buffer::Blinding`] (prepared bases with [`crate::MsmConfig::blinding`]).
    pub const SCALARS_BLINDED: u32 = 4;

    /// This plan for uploads of the form `inputs` ([`Plan::inputs`]).
    pub fn with_inputs(self, inputs: u32) -> Self {
        Plan { inputs, ..self }
    }

    /// This plan for `sets` scalar sets over its points ([`Plan::sets`]).
    pub fn with_sets(self, sets: u32) -> Self {
        Plan { sets, ..self }
    }

    /// The plan in `shape` (the device profile's [`crate::DeviceProfile::plan_shape`]). A
    /// compact plan is this one: the fewest reduction segments, whose scalar multiplications
    /// are extra work. A spread plan runs many threads: segments double, down to
    /// [`MIN_HARDWARE_SEGMENT_LEN`] buckets each, until all windows have
    /// [`HARDWARE_REDUCTION_THREADS`], and a bucket's carries are combined in groups of
    /// [`CARRY_GROUP`] first. The window width stays as [`Plan::choose`] picked it. A folded
    /// plan ([`Plan::fold`] F > 1) keeps the chunk length of an unfolded call over its m points
    /// ([`Plan::chunk_len_for`]), so its accumulation runs about as many threads as that call's,
    /// F times as many chunks per window as [`MAX_CHUNKS_PER_WINDOW`] allows compact plans:
    /// with their F·m entries per window in at most 4,096 chunks, prepared bases with F = 4 at
    /// 2^20 points run 20,480 accumulation threads of 1,024 entries each where plain calls run
    /// 69,632 of 256, and take 1.4–1.9× as long as F = 1 on an H200 (BENCHMARKS.md, "Prepared
    /// bases with a precompute factor"). Their
    /// carry groups grow to about the square root of the chunks per window ([`CARRY_GROUP`]), so
    /// neither `combine_carries` nor a reduction thread adds a longer chain of carries than that.
    /// Applying it twice changes nothing, so buffer sizing and dispatch can both apply it.
    pub fn shaped(self, shape: PlanShape) -> Self {
        self.shaped_with(shape, FORCED_HARDWARE_CHUNK_LEN.load(Ordering::Relaxed))
    }

    /// [`Plan::shaped`] with `forced_chunk_len` entries per accumulation chunk in a spread
    /// plan, or the plan's own where it is 0 ([`force_hardware_chunk_len`]).
    fn shaped_with(self, shape: PlanShape, forced_chunk_len: u32) -> Self {
        if shape == PlanShape::Compact {
            return self;
        }
        let mut segments = self.segments;
        while segments < self.num_buckets / MIN_HARDWARE_SEGMENT_LEN
            && self.all_windows() * segments < HARDWARE_REDUCTION_THREADS
        {
            segments *= 2;
        }
        let chunk_len = match (forced_chunk_len, self.fold) {
            (0, 1) => self.chunk_len,
            (0, _) => Plan::chunk_len_for(self.scalars_per_set(), self.num_buckets),
            (forced, _) => forced,
        };
        let chunks_per_window = self.n.div_ceil(chunk_len);
        Plan {
            segments,
            segment_len: self.num_buckets / segments,
            carry_group: CARRY_GROUP.max(chunks_per_window.isqrt().next_power_of_two()),
            chunk_len,
            chunks_per_window,
            ..self
        }
    }

    /// Entries per accumulation chunk for `n` points in windows of `num_buckets` buckets: about
    /// [`BUCKETS_PER_CHUNK`] average buckets, at most [`MAX_CHUNKS_PER_WINDOW`] chunks, a power
    /// of two of at least [`MIN_CHUNK_LEN`].
    pub fn chunk_len_for(n: u32, num_buckets: u32) -> u32 {
        (BUCKETS_PER_CHUNK * n.div_ceil(num_buckets))
            .max(n.div_ceil(MAX_CHUNKS_PER_WINDOW))
            .next_power_of_two()
            .max(MIN_CHUNK_LEN)
    }

    /// The plan with window width `window_bits` for `n` scalars of `scalar_bits` bits.
    pub fn with_window(n: u32, scalar_bits: u32, window_bits: u32) -> Self {
        let num_buckets = 1u32 << (window_bits - 1);
        let segments = (num_buckets / MIN_SEGMENT_LEN).clamp(1, MAX_SEGMENTS);
        let chunk_len = Plan::chunk_len_for(n, num_buckets);
        Plan {
            n,
            window_bits,
            num_windows: (scalar_bits + 1).div_ceil(window_bits),
            num_buckets,
            segments,
            segment_len: num_buckets / segments,
            chunk_len,
            chunks_per_window: n.div_ceil(chunk_len),
            inputs: 0,
            sets: 1,
            fold: 1,
            carry_group: 1,
        }
    }

    /// The plan for `m` points stored with `fold` multiples each ([`Plan::fold`]) and scalars
    /// of `scalar_bits` bits, whose window minimizes [`Plan::folded_additions`] (with `fold`
    /// 1, [`Plan::choose`]).
    pub fn folded(m: u32, scalar_bits: u32, fold: u32) -> Self {
        (MIN_WINDOW_BITS..=MAX_WINDOW_BITS)
            .map(|c| Plan {
                num_windows: (scalar_bits + 1).div_ceil(c * fold),
                fold,
                ..Plan::with_window(m * fold, scalar_bits, c)
            })
            .min_by_key(|p| p.folded_additions(scalar_bits))
            .expect("window range is not empty")
    }

    /// [`Plan::additions`] of a folded plan for scalars of `scalar_bits` bits: accumulation adds
    /// each point once per window its scalar has digits in (ceil((bits + 1) / c) of them; the
    /// W·F slots beyond get zero digits, which add nothing), and reduction runs per folded
    /// window. Equal to `additions` without folding.
    pub fn folded_additions(&self, scalar_bits: u32) -> u64 {
        let digit_windows = (scalar_bits + 1).div_ceil(self.window_bits).min(self.num_windows * self.fold);
        let reduction = 2 * self.num_buckets as u64 + self.segments as u64 * 2 * (self.window_bits as u64 - 1);
        digit_windows as u64 * self.scalars_per_set() as u64 + self.num_windows as u64 * reduction
    }

    /// Scalars of each set, n / F.
    pub fn scalars_per_set(&self) -> u32 {
        self.n / self.fold
    }

    /// Threads of `normalize_points`: one per [`NORMALIZE_BATCH`] points.
    pub fn normalize_threads(&self) -> u32 {
        self.n.div_ceil(NORMALIZE_BATCH)
    }

    /// The plan whose window minimizes the point additions counted by [`Plan::additions`].
    pub fn choose(n: u32, scalar_bits: u32) -> Self {
        (MIN_WINDOW_BITS..=MAX_WINDOW_BITS)
            .map(|c| Plan::with_window(n, scalar_bits, c))
            .min_by_key(|p| p.additions())
            .expect("window range is not empty")
    }

    /// Point additions of the GPU stages: one per (point, window) in bucket accumulation, two per
    /// bucket in the running sums, and about 2·log2(h) per reduction thread for its scalar
    /// multiplication.
    pub fn additions(&self) -> u64 {
        let per_window =
            self.n as u64 + 2 * self.num_buckets as u64 + self.segments as u64 * 2 * (self.window_bits as u64 - 1);
        self.num_windows as u64 * per_window
    }

    /// Windows of all scalar sets, S·K.
    pub fn all_windows(&self) -> u32 {
        self.sets * self.num_windows
    }

    /// Buckets over all windows (stage 3 threads).
    pub fn total_buckets(&self) -> u32 {
        self.all_windows() * self.num_buckets
    }

    /// Accumulation threads over all windows (stage 3 threads, and carry slots).
    pub fn total_chunks(&self) -> u32 {
        self.all_windows() * self.chunks_per_window
    }

    /// Reduction threads over all windows (stage 4 threads, points read back).
    pub fn total_segments(&self) -> u32 {
        self.all_windows() * self.segments
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_batch_matches_the_shader() {
        let shader = include_str!("../shaders/common.wgsl");
        assert!(shader.contains(&format!("const NORMALIZE_BATCH: u32 = {NORMALIZE_BATCH}u;")));
    }

    #[test]
    fn plan_invariants_hold_for_every_size() {
        for log_n in 0..=22 {
            for n in [1u32 << log_n, (1u32 << log_n) + 1, (1u32 << log_n) * 3 / 2] {
                let p = Plan::choose(n, 253);
                assert!((MIN_WINDOW_BITS..=MAX_WINDOW_BITS).contains(&p.window_bits));
                assert!(p.num_windows * p.window_bits > 253, "spare bit for the last carry");
                assert_eq!(p.segments * p.segment_len, p.num_buckets);
                assert!(p.segments.is_power_of_two());
                assert!(p.chunk_len.is_power_of_two() && p.chunk_len * p.chunks_per_window >= n);
                // A bucket spans at most C chunks: the combining thread's loop stays within the
                // per-invocation loop budget.
                assert!(p.chunks_per_window <= MAX_CHUNKS_PER_WINDOW);
                // The batched 32-bit form may accumulate with one product per loop
                // (`DeviceProfile::unbatched_wide_g1_accumulation`): at most 23 back-edges per
                // entry (BLS12-381's mixed addition, 3 iterations per product), the chunk's walk
                // past empty buckets at most one per bucket of the window, and its first
                // bucket's binary search fewer than c: 2,048 entries at c = 15 (16,384 buckets)
                // spend at most 63,503 of the 65,535.
                assert!(23 * p.chunk_len + p.num_buckets + p.window_bits <= crate::DeviceProfile::LOOP_BUDGET);
            }
        }
    }

    #[test]
    fn folded_plans_cover_the_scalar_bits() {
        for fold in 1..=16 {
            for log_m in [0, 10, 16, 20] {
                let p = Plan::folded(1 << log_m, 256, fold);
                assert!(p.num_windows * p.fold * p.window_bits > 256, "fold {fold}: spare bit for the last carry");
                assert_eq!((p.fold, p.n, p.scalars_per_set()), (fold, fold << log_m, 1 << log_m));
                if fold == 1 {
                    assert_eq!(p, Plan::choose(1 << log_m, 256));
                    assert_eq!(p.folded_additions(256), p.additions());
                }
            }
        }
    }

    #[test]
    fn spread_plans_split_the_reduction_into_more_threads() {
        for log_n in 0..=22 {
            let plan = Plan::choose(1 << log_n, 253);
            assert_eq!(plan.shaped(PlanShape::Compact), plan, "compact plans are the plan");
            let split = plan.shaped(PlanShape::Spread);
            assert_eq!(split.shaped(PlanShape::Spread), split, "idempotent");
            let kept = Plan { segments: plan.segments, segment_len: plan.segment_len, carry_group: 1, ..split };
            assert_eq!(kept, plan, "only the reduction's split changes");
            assert_eq!(split.carry_group, CARRY_GROUP);
            assert!(split.segments.is_power_of_two() && split.segments * split.segment_len == split.num_buckets);
            assert!(split.segments >= plan.segments);
            assert!(
                split.total_segments() >= HARDWARE_REDUCTION_THREADS
                    || split.segment_len <= MIN_HARDWARE_SEGMENT_LEN.max(plan.segment_len)
            );
        }
    }

    #[test]
    fn folded_spread_plans_keep_the_unfolded_chunk_length() {
        for fold in 1..=16 {
            for log_m in [0, 10, 16, 20] {
                let m = 1u32 << log_m;
                let plan = Plan::folded(m, 256, fold);
                assert_eq!(plan.shaped(PlanShape::Compact), plan, "compact plans are the plan");
                let split = plan.shaped(PlanShape::Spread);
                assert_eq!(split.shaped(PlanShape::Spread), split, "idempotent");
                assert_eq!(split.chunk_len, Plan::chunk_len_for(m, plan.num_buckets));
                assert_eq!(
                    (split.chunks_per_window, split.n, split.fold),
                    (plan.n.div_ceil(split.chunk_len), plan.n, fold)
                );
                // As many accumulation threads as an unfolded call with this window would run,
                // and never fewer than the folded plan had.
                assert!(split.chunk_len <= plan.chunk_len);
                assert!(split.chunks_per_window <= fold * MAX_CHUNKS_PER_WINDOW);
                // A bucket spanning every chunk: no more groups for its reduction thread to add
                // than carries for a combining thread (CARRY_GROUP at least).
                assert!(split.carry_group >= CARRY_GROUP && split.carry_group.is_power_of_two());
                assert!(split.chunks_per_window.div_ceil(split.carry_group) <= split.carry_group);
            }
        }
        // Prepared bases with F = 4 at 2^20: the chunks of a plain call's length.
        let split = Plan::folded(1 << 20, 256, 4).shaped(PlanShape::Spread);
        assert_eq!((split.chunk_len, split.chunks_per_window, split.carry_group), (256, 16_384, 128));
    }

    #[test]
    fn a_forced_chunk_length_applies_to_spread_plans_only() {
        for plan in [Plan::choose(1 << 20, 253), Plan::folded(1 << 16, 256, 4), Plan::choose(100, 253)] {
            assert_eq!(plan.shaped_with(PlanShape::Compact, 64), plan, "compact plans are the plan");
            for len in [MIN_CHUNK_LEN, 64, 1 << 12] {
                let split = plan.shaped_with(PlanShape::Spread, len);
                assert_eq!(split.shaped_with(PlanShape::Spread, len), split, "idempotent");
                assert_eq!((split.chunk_len, split.chunks_per_window), (len, plan.n.div_ceil(len)));
                assert!(split.chunks_per_window.div_ceil(split.carry_group) <= split.carry_group);
            }
        }
        // 2^20 points in chunks of 64: 16,384 chunks per window, carries in groups of 128.
        let split = Plan::choose(1 << 20, 253).shaped_with(PlanShape::Spread, 64);
        assert_eq!((split.chunks_per_window, split.carry_group), (16_384, 128));
        assert!(!force_hardware_chunk_len(Some(48)) && !force_hardware_chunk_len(Some(8)));
        assert_eq!(FORCED_HARDWARE_CHUNK_LEN.load(Ordering::Relaxed), 0, "refused values change nothing");
    }

    #[test]
    fn window_grows_with_n() {
        assert_eq!(Plan::choose(1 << 16, 253).window_bits, 13);
        assert!(Plan::choose(1 << 10, 253).window_bits < 13);
        assert!(Plan::choose(1 << 20, 253).window_bits >= 15);
    }
}
