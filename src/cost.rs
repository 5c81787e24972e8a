//! The cost model: how many field multiplications each GPU step performs for one call, counted
//! from the plan and the actual bucket sizes exactly as the shaders walk them. With a measured
//! multiplication rate it gives each step's efficiency (see [`crate::profile`]).

use crate::curve::CurveSpec;
use crate::plan::Plan;
use crate::step::Step;

/// Field multiplications of every step, in the order of [`Step::ALL`]. `counts[w·h + b − 1]` is
/// the size of bucket b of window w (`cpu_model::decompose` computes them).
pub fn step_field_muls(spec: &CurveSpec, plan: &Plan, counts: &[u32]) -> Vec<(Step, u64)> {
    let muls = spec.op_muls();
    let entries: u64 = counts.iter().map(|&c| c as u64).sum();
    let of = |step| match step {
        Step::ConvertPoints => plan.n as u64 * muls.convert,
        Step::DecomposeScalars | Step::ScanBucketCounts | Step::ScatterEntries => 0,
        Step::AccumulateChunks => entries * muls.add_stored,
        Step::CombineChunkCarries => chunk_carries(plan, counts) * muls.add,
        Step::BucketReduce => reduction_additions(plan) * muls.add,
    };
    Step::ALL.into_iter().map(|step| (step, of(step))).collect()
}

/// Carries that `combine_chunk_carries` adds: for each bucket, the chunks after its first that
/// it reaches into.
pub fn chunk_carries(plan: &Plan, counts: &[u32]) -> u64 {
    let (n, s) = (plan.n as u64, plan.chunk_len as u64);
    let mut carries = 0;
    for (w, window) in counts.chunks_exact(plan.num_buckets as usize).enumerate() {
        let mut start = w as u64 * n;
        for &count in window {
            if count > 0 {
                let end = start + count as u64;
                carries += (end - 1 - w as u64 * n) / s - (start - w as u64 * n) / s;
                start = end;
            }
        }
    }
    carries
}

/// Point additions of `bucket_reduce`: per thread 2L for the running sums, one doubling per bit
/// of its offset m = t·L and one addition per set bit, and the final addition.
pub fn reduction_additions(plan: &Plan) -> u64 {
    let len = plan.segment_len as u64;
    let per_window: u64 = (0..plan.segments as u64)
        .map(|t| {
            let m = t * len;
            2 * len + (64 - m.leading_zeros() as u64) + m.count_ones() as u64 + 1
        })
        .sum();
    per_window * plan.num_windows as u64
}
