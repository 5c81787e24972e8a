// Stage 2: CSR transposition. The digits form a sparse matrix (a row per window, a column per
// point); transposing it lists, for every bucket, the points that enter it.
//   scan_bucket_counts: one workgroup per window turns bucket counts into start offsets
//     (exclusive prefix sum; window w's entries start at w·n).
//   scatter_entries: one thread per point appends its index to each of its buckets, in the
//     windows of every scalar set.
#import common

@group(0) @binding(0) var<uniform> plan: Plan;

const SCAN_THREADS: u32 = 256u;
var<workgroup> partial_sums: array<u32, 256>;

// In scan_bucket_counts: counts in, cursors (= starts) out. In scatter_entries: cursors, which
// end as the bucket end offsets that stage 3 reads.
@group(0) @binding(1) var<storage, read_write> bucket_counts: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> bucket_starts: array<u32>;
// Two packed digits per word (digit_word, pack_digit in common.wgsl).
@group(0) @binding(3) var<storage, read> digits: array<u32>;
// entries[e]: point index (| DIGIT_NEGATIVE); bucket j's entries are [bucket_starts[j], end_j).
@group(0) @binding(4) var<storage, read_write> entries: array<u32>;

@compute @workgroup_size(SCAN_THREADS)
fn scan_bucket_counts(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let w = wg.x;
    let t = lid.x;
    let h = plan.num_buckets;
    let per_thread = (h + SCAN_THREADS - 1u) / SCAN_THREADS;
    let lo = min(t * per_thread, h);
    let hi = min(lo + per_thread, h);
    let base = w * h;

    var total = 0u;
    for (var b = lo; b < hi; b = b + 1u) {
        total = total + atomicLoad(&bucket_counts[base + b]);
    }
    partial_sums[t] = total;
    workgroupBarrier();
    // Hillis–Steele inclusive scan over the per-thread totals.
    for (var offset = 1u; offset < SCAN_THREADS; offset = offset << 1u) {
        var left = 0u;
        if (t >= offset) {
            left = partial_sums[t - offset];
        }
        workgroupBarrier();
        partial_sums[t] = partial_sums[t] + left;
        workgroupBarrier();
    }
    var start = w * plan.n + partial_sums[t] - total;
    for (var b = lo; b < hi; b = b + 1u) {
        let count = atomicLoad(&bucket_counts[base + b]);
        bucket_starts[base + b] = start;
        atomicStore(&bucket_counts[base + b], start);
        start = start + count;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn scatter_entries(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if (i >= plan.n) {
        return;
    }
    for (var w = 0u; w < all_windows(plan); w = w + 1u) {
        let scalar_set = w / plan.num_windows;
        let window = w % plan.num_windows;
        let word = digits[digit_word(plan, scalar_set, window / 2u, i)];
        let digit = unpack_digit(word >> (16u * (window & 1u)));
        if (digit != 0u) {
            let bucket = w * plan.num_buckets + (digit & ENTRY_INDEX_MASK) - 1u;
            let slot = atomicAdd(&bucket_counts[bucket], 1u);
            entries[slot] = i | (digit & DIGIT_NEGATIVE);
        }
    }
}
