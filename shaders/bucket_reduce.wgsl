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
// Empty buckets (start = end) are never written by stage 3: they read as the identity.
@group(0) @binding(3) var<storage, read> bucket_starts: array<u32>;
@group(0) @binding(4) var<storage, read> bucket_ends: array<u32>;

fn bucket(j: u32) -> Point {
    if (bucket_starts[j] == bucket_ends[j]) {
        return point_identity();
    }
    return point_unpack(buckets[j]);
}

// The thread's work is a sequence of point additions, all through ONE call of point_add:
// drivers inline every call, so a single call site keeps this shader small (compile time, and
// shader size limits of software GPUs). Complete formulas make point_add(p, p) a doubling.
//   ops [0, 2L): running += B_k, then sum += running, for k = L down to 1;
//   then for each bit of m = t·L from the top: scaled += scaled, and scaled += running if set;
//   last: sum += scaled.
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
    let m = t * len;
    var bits = 0u;
    if (m != 0u) {
        bits = 32u - countLeadingZeros(m);
    }
    let accumulate_ops = 2u * len;
    let total_ops = accumulate_ops + 2u * bits + 1u;

    var running = point_identity();
    var sum = point_identity();
    var scaled = point_identity();
    for (var op = 0u; op < total_ops; op = op + 1u) {
        var lhs: Point;
        var rhs: Point;
        if (op < accumulate_ops) {
            if (op % 2u == 0u) {
                lhs = running;
                rhs = bucket(first + len - 1u - op / 2u);
            } else {
                lhs = sum;
                rhs = running;
            }
        } else if (op + 1u < total_ops) {
            let j = op - accumulate_ops;
            let bit = bits - 1u - j / 2u;
            lhs = scaled;
            rhs = scaled;
            if (j % 2u == 1u) {
                if (((m >> bit) & 1u) == 0u) {
                    continue;
                }
                rhs = running;
            }
        } else {
            lhs = sum;
            rhs = scaled;
        }
        let result = point_add(lhs, rhs);
        if (op < accumulate_ops && op % 2u == 0u) {
            running = result;
        } else if (op < accumulate_ops || op + 1u == total_ops) {
            sum = result;
        } else {
            scaled = result;
        }
    }
    partials[id] = point_pack(sum);
}
