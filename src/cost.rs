//! The cost model: how many field multiplications each GPU step performs for one call, counted
//! from the plan and the actual bucket sizes exactly as the shaders walk them. With a measured
//! multiplication rate it gives each step's efficiency (see [`crate::profile`]).

use crate::plan::Plan;
use crate::point_model::RunningCurve;
use crate::step::Step;
use crate::wgsl::inversion::inversion_muls;

/// Field multiplications of every step, in the order of [`Step::ALL`]. `counts[w·h + b − 1]` is
/// the size of bucket b of window w (`cpu_model::decompose` computes them).
pub fn step_field_muls(curve: RunningCurve, plan: &Plan, counts: &[u32]) -> Vec<(Step, u64)> {
    let muls = curve.op_muls();
    let entries: u64 = counts.iter().map(|&c| c as u64).sum();
    let of = |step| match step {
        Step::ConvertPoints => plan.n as u64 * muls.convert,
        Step::NormalizePoints => {
            plan.n as u64 * muls.normalize + plan.normalize_threads() as u64 * inversion_muls(&curve.spec.field)
        }
        // Run at preparation, not in MSM calls.
        Step::CheckSubgroup | Step::PrecomputeMultiples => 0,
        // Scalars leave arkworks' form with 16-bit products, not field multiplications.
        Step::ConvertScalars | Step::DecomposeScalars | Step::ScanBucketCounts | Step::ScatterEntries => 0,
        Step::AccumulateChunks => entries * muls.add_stored,
        Step::CombineCarries => (chunk_carries(plan, counts) - grouped_carries(plan, counts)) * muls.add,
        Step::BucketReduce => {
            let firsts = counts.iter().filter(|&&c| c > 0).count() as u64;
            (reduction_additions(plan) + firsts + grouped_carries(plan, counts)) * muls.add
        }
        Step::SumWindows => plan.all_windows() as u64 * (plan.segments as u64 - 1) * muls.add,
    };
    Step::ALL.into_iter().map(|step| (step, of(step))).collect()
}

/// Each non-empty bucket's carries: the chunks after its first that it reaches into.
fn bucket_carries<'a>(plan: &'a Plan, counts: &'a [u32]) -> impl Iterator<Item = u64> + 'a {
    let (n, s) = (plan.n as u64, plan.chunk_len as u64);
    counts.chunks_exact(plan.num_buckets as usize).enumerate().flat_map(move |(w, window)| {
        let window_start = w as u64 * n;
        window.iter().filter(|&&count| count > 0).scan(window_start, move |start, &count| {
            let end = *start + count as u64;
            let carries = (end - 1 - window_start) / s - (*start - window_start) / s;
            *start = end;
            Some(carries)
        })
    })
}

/// Carries the accumulation leaves besides the buckets' first pieces: for each bucket, the
/// chunks after its first that it reaches into.
pub fn chunk_carries(plan: &Plan, counts: &[u32]) -> u64 {
    bucket_carries(plan, counts).sum()
}

/// Carries that `bucket_reduce` adds: one per group of [`Plan::carry_group`] carries of a
/// bucket (`combine_carries` added up each group's others).
pub fn grouped_carries(plan: &Plan, counts: &[u32]) -> u64 {
    let group = plan.carry_group as u64;
    bucket_carries(plan, counts).map(|carries| carries.div_ceil(group)).sum()
}

/// Pieces of buckets over all chunks: each non-empty bucket's first piece, plus its carries.
pub fn bucket_pieces(plan: &Plan, counts: &[u32]) -> u64 {
    counts.iter().filter(|&&c| c > 0).count() as u64 + chunk_carries(plan, counts)
}

/// Point additions of `bucket_reduce` besides adding the buckets' pieces into the running sum
/// ([`bucket_pieces`]): per thread L for the sums of the running sum, one doubling per bit of its
/// offset m = t·L and one addition per set bit, and the final addition.
pub fn reduction_additions(plan: &Plan) -> u64 {
    let len = plan.segment_len as u64;
    let per_window: u64 = (0..plan.segments as u64)
        .map(|t| {
            let m = t * len;
            len + (64 - m.leading_zeros() as u64) + m.count_ones() as u64 + 1
        })
        .sum();
    per_window * plan.all_windows() as u64
}
