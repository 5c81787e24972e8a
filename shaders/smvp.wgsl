// Stage 3: sparse matrix–vector product, i.e. bucket accumulation, load-balanced.
//
// Window w's CSR entries lie at [w·n, w·n + E_w), grouped by bucket. They are cut into chunks of
// S = params.chunk_len entries, and thread (w, k) adds the points of chunk k: every thread does
// the same work however the points spread over buckets (one bucket may hold every point).
//   accumulate_chunks: a bucket inside the chunk is written to buckets[]; a bucket that starts
//     in the chunk but runs past its end is written to buckets[] too (its first piece); the piece
//     of a bucket that started in an earlier chunk goes to the chunk's carry slot.
//   combine_chunk_carries: one thread per bucket adds the carries of the later chunks the bucket
//     spans to its first piece, and writes the identity to empty buckets.
#import common
#import field
#import curve

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> bucket_starts: array<u32>;
// After stage 2 the cursors hold each bucket's end offset.
@group(0) @binding(2) var<storage, read> bucket_ends: array<u32>;
@group(0) @binding(3) var<storage, read> entries: array<u32>;
@group(0) @binding(4) var<storage, read> points: array<StoredPacked>;
// buckets[w·h + b − 1]: the sum of bucket b of window w.
@group(0) @binding(5) var<storage, read_write> buckets: array<PointPacked>;
// carries[w·C + k]: chunk k's piece of the bucket that was already open when the chunk began.
@group(0) @binding(6) var<storage, read_write> carries: array<PointPacked>;

// The bucket of window w (global index w·h + b) whose entries contain CSR offset `entry`: the
// last bucket starting at or before it. Empty buckets start where the next one starts, so the
// last one found is never empty.
fn bucket_containing(w: u32, entry: u32) -> u32 {
    var lo = w * params.num_buckets;
    var hi = lo + params.num_buckets - 1u;
    while (lo < hi) {
        let mid = hi - (hi - lo) / 2u;
        if (bucket_starts[mid] <= entry) {
            lo = mid;
        } else {
            hi = mid - 1u;
        }
    }
    return lo;
}

// Stores chunk `chunk`'s sum `acc` of bucket j's points, given the chunk's first entry.
fn flush(j: u32, acc: Point, chunk: u32, chunk_start: u32) {
    if (bucket_starts[j] < chunk_start) {
        carries[chunk] = point_pack(acc);
    } else {
        buckets[j] = point_pack(acc);
    }
}

fn load_entry(e: u32) -> Stored {
    let entry = entries[e];
    let q = stored_unpack(points[entry & ENTRY_INDEX_MASK]);
    if ((entry & DIGIT_NEGATIVE) != 0u) {
        return stored_negate(q);
    }
    return q;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn accumulate_chunks(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let chunk = thread_index(gid, nwg);
    if (chunk >= params.num_windows * params.chunks_per_window) {
        return;
    }
    let w = chunk / params.chunks_per_window;
    let start = w * params.n + (chunk % params.chunks_per_window) * params.chunk_len;
    let window_end = bucket_ends[(w + 1u) * params.num_buckets - 1u];
    if (start >= window_end) {
        return;
    }
    let end = min(start + params.chunk_len, window_end);

    var j = bucket_containing(w, start);
    var bucket_end = bucket_ends[j];
    var acc = point_identity();
    for (var e = start; e < end; e = e + 1u) {
        if (e == bucket_end) {
            flush(j, acc, chunk, start);
            acc = point_identity();
            // The next non-empty bucket.
            j = j + 1u;
            while (bucket_ends[j] == e) {
                j = j + 1u;
            }
            bucket_end = bucket_ends[j];
        }
        acc = point_add_stored(acc, load_entry(e));
    }
    flush(j, acc, chunk, start);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn combine_chunk_carries(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let j = thread_index(gid, nwg);
    if (j >= params.num_windows * params.num_buckets) {
        return;
    }
    let start = bucket_starts[j];
    let end = bucket_ends[j];
    if (start == end) {
        buckets[j] = point_pack(point_identity());
        return;
    }
    let w = j / params.num_buckets;
    let first_chunk = (start - w * params.n) / params.chunk_len;
    let last_chunk = (end - 1u - w * params.n) / params.chunk_len;
    if (first_chunk == last_chunk) {
        return;
    }
    var acc = point_unpack(buckets[j]);
    let base = w * params.chunks_per_window;
    for (var k = first_chunk + 1u; k <= last_chunk; k = k + 1u) {
        acc = point_add(acc, point_unpack(carries[base + k]));
    }
    buckets[j] = point_pack(acc);
}
