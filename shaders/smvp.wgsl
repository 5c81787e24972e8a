// Stage 3: sparse matrix–vector product. One thread per bucket (window w, bucket b) adds up the
// points the transposition listed for it, negating those with a negative digit.
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
// [0]: the size of the largest bucket over params.max_bucket_entries (0 if none).
@group(0) @binding(6) var<storage, read_write> bucket_overflow: array<atomic<u32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn smvp(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let j = thread_index(gid, nwg);
    if (j >= params.num_windows * params.num_buckets) {
        return;
    }
    var acc = point_identity();
    let start = bucket_starts[j];
    let end = bucket_ends[j];
    if (end - start > params.max_bucket_entries) {
        atomicMax(&bucket_overflow[0], end - start);
        buckets[j] = point_pack(acc);
        return;
    }
    for (var e = start; e < end; e = e + 1u) {
        let entry = entries[e];
        var q = stored_unpack(points[entry & ENTRY_INDEX_MASK]);
        if ((entry & DIGIT_NEGATIVE) != 0u) {
            q = stored_negate(q);
        }
        acc = point_add_stored(acc, q);
    }
    buckets[j] = point_pack(acc);
}
