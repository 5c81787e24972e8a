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
fn accumulate_chunks(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
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
        acc = point_add_stored(acc, load_entry(e));
    }
    flush(j, acc, chunk, start);
}
