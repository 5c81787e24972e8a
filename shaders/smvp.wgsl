// Stage 3: sparse matrix–vector product, i.e. bucket accumulation, load-balanced.
//
// Window w's CSR entries lie at [w·n, w·n + E_w), grouped by bucket. They are cut into chunks of
// S = plan.chunk_len entries, and thread (w, k) adds the points of chunk k: every thread does
// the same work however the points spread over buckets (one bucket may hold every point).
//   accumulate_chunks: a bucket inside the chunk is written to buckets[]; a bucket that starts
//     in the chunk but runs past its end is written to buckets[] too (its first piece); the piece
//     of a bucket that started in an earlier chunk goes to the chunk's carry slot.
//   bucket_reduce.wgsl then adds the pieces of buckets that span chunks.
#import common
#import field
#import curve

#import chunks

@compute @workgroup_size(WORKGROUP_SIZE)
fn accumulate_chunks(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    stash_enter(lane);
    let chunk = thread_index(gid, nwg);
    if (chunk >= all_windows(plan) * plan.chunks_per_window) {
        return;
    }
    let range = chunk_range(chunk);
    let start = range.x;
    let end = range.y;
    if (start >= end) {
        return;
    }

    var j = bucket_containing(chunk / plan.chunks_per_window, start);
    var bucket_end = bucket_ends[j];
    var acc = point_identity();
    for (var e = start; e < end; e = e + 1u) {
        if (e == bucket_end) {
            flush(j, acc, chunk, start);
            acc = point_identity();
            j = next_bucket(j, e);
            bucket_end = bucket_ends[j];
        }
        acc = add_entry(acc, e);
    }
    flush(j, acc, chunk, start);
}

// Stage 4a, hardware GPUs only (plan.carry_group = G > 1; src/plan.rs, CARRY_GROUP): a bucket
// that spans many chunks has a carry in each chunk after its first, at chunks a … b, and
// bucket_reduce adds a bucket's pieces one after another, a chain of up to C additions in one
// thread when a window's digits crowd into few buckets. Here the carries are combined in groups
// of G from a: thread (w, k) whose chunk starts group a + m·G adds the group's other carries
// into its own, so bucket_reduce adds ceil((b − a + 1) / G) carries per bucket.
@compute @workgroup_size(WORKGROUP_SIZE)
fn combine_carries(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    stash_enter(lane);
    let c = thread_index(gid, nwg);
    if (c >= all_windows(plan) * plan.chunks_per_window) {
        return;
    }
    let range = chunk_range(c);
    if (range.x >= range.y) {
        return;
    }
    let w = c / plan.chunks_per_window;
    let k = c % plan.chunks_per_window;
    // The bucket open at the chunk's start; the chunk holds a carry when it began earlier.
    let j = bucket_containing(w, range.x);
    if (bucket_starts[j] >= range.x) {
        return;
    }
    let first_carry = chunk_of_entry(plan, w, bucket_starts[j]) + 1u;
    let last_carry = chunk_of_entry(plan, w, bucket_ends[j] - 1u);
    if ((k - first_carry) % plan.carry_group != 0u) {
        return;
    }
    let last = min(k + plan.carry_group - 1u, last_carry);
    var sum = point_unpack(carries[c]);
    for (var i = c + 1u; i <= c + last - k; i = i + 1u) {
        sum = point_add(sum, point_unpack(carries[i]));
    }
    carries[c] = point_pack(sum);
}
