// Stage 4: parallel running-sum bucket reduction (cuZK's pBucketPointsReduction). Window w's
// buckets are split into T segments of L = h / T; thread (w, t) computes
//   Σ_{b in segment t} b·B_b = Σ_b (b − t·L)·B_b + (t·L)·Σ_b B_b
// with a running sum from the top bucket down plus one small scalar multiplication. The host
// adds the T partial sums of each window and combines the windows (Horner).
#import common
#import field
#import curve

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> buckets: array<PointPacked>;
// partials[w·T + t]: thread (w, t)'s share of window w's sum.
@group(0) @binding(2) var<storage, read_write> partials: array<PointPacked>;

// k·p by double-and-add from the top set bit.
fn point_mul_small(p: Point, k: u32) -> Point {
    var r = point_identity();
    if (k == 0u) {
        return r;
    }
    for (var bit = 31u - countLeadingZeros(k) + 1u; bit > 0u; bit = bit - 1u) {
        r = point_double(r);
        if (((k >> (bit - 1u)) & 1u) == 1u) {
            r = point_add(r, p);
        }
    }
    return r;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn bucket_reduce(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = thread_index(gid, nwg);
    if (id >= params.num_windows * params.segments) {
        return;
    }
    let w = id / params.segments;
    let t = id % params.segments;
    let len = params.segment_len;
    let first = w * params.num_buckets + t * len;

    var running = point_identity();
    var sum = point_identity();
    for (var k = len; k > 0u; k = k - 1u) {
        running = point_add(running, point_unpack(buckets[first + k - 1u]));
        sum = point_add(sum, running);
    }
    sum = point_add(sum, point_mul_small(running, t * len));
    partials[id] = point_pack(sum);
}
