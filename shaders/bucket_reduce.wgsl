// Stage 4: parallel running-sum bucket reduction (cuZK's pBucketPointsReduction). Window w's
// buckets are split into T segments of L = h / T; thread (w, t) computes
//   Σ_{b in segment t} b·B_b = Σ_b (b − t·L)·B_b + (t·L)·Σ_b B_b
// with a running sum from the top bucket down plus one small scalar multiplication. Then
// sum_windows adds each window's T partial sums, so the host reads back one point per window
// and only combines the windows (Horner).
//
// Stage 3 leaves a bucket B_b in pieces: its first piece in buckets[], and one carry per later
// accumulation chunk it reaches into (see chunks.wgsl). The running sum adds every piece, so the
// pieces are combined here, with no pass of their own; empty buckets (start = end) are never
// written and add nothing.
#import common
#import field
#import curve

@group(0) @binding(0) var<uniform> plan: Plan;
@group(0) @binding(1) var<storage, read> buckets: array<PointPacked>;
// partials[w·T + t]: thread (w, t)'s share of window w's sum. Two more regions of K·T points
// follow: each thread's running and scaled sums, where they are kept in memory (see the
// running points below). Then, from WINDOW_SUMS_REGION·K·T, the sum of each window, which the
// host reads back.
@group(0) @binding(2) var<storage, read_write> partials: array<PointPacked>;
@group(0) @binding(3) var<storage, read> bucket_starts: array<u32>;
@group(0) @binding(4) var<storage, read> bucket_ends: array<u32>;
// carries[w·C + k]: chunk k's piece of the bucket that was already open when the chunk began.
@group(0) @binding(5) var<storage, read> carries: array<PointPacked>;

// Pieces of bucket j (global index; window w): 0 when empty, else 1 + its carries (one in each
// chunk after its first that it reaches into), which combine_carries (smvp.wgsl) has added up
// in groups of plan.carry_group: one per group.
fn pieces(j: u32, w: u32) -> u32 {
    let start = bucket_starts[j];
    let end = bucket_ends[j];
    if (start == end) {
        return 0u;
    }
    let carries = chunk_of_entry(plan, w, end - 1u) - chunk_of_entry(plan, w, start);
    return 1u + (carries + plan.carry_group - 1u) / plan.carry_group;
}

// Piece i of bucket j: its first piece, then its carries, the first of each group.
fn piece(j: u32, w: u32, i: u32) -> Point {
    if (i == 0u) {
        return point_unpack(buckets[j]);
    }
    let first_carry = chunk_of_entry(plan, w, bucket_starts[j]) + 1u;
    return point_unpack(carries[w * plan.chunks_per_window + first_carry + (i - 1u) * plan.carry_group]);
}

// The thread's work is a sequence of point additions, all through ONE call of point_add:
// drivers inline every call, so a single call site keeps this shader small (compile time, and
// shader size limits of software GPUs). Complete formulas make point_add(p, p) a doubling.
//   for k = L down to 1: running += each piece of B_k, then sum += running;
//   then for each bit of m = t·L from the top: scaled += scaled, and scaled += running if set;
//   last: sum += scaled.
const OP_PIECE: u32 = 0u;   // running += piece `next_piece` of bucket k
const OP_SUM: u32 = 1u;     // sum += running, then the next bucket down
const OP_SCALE: u32 = 2u;   // scaled += scaled (then scaled += running if the bit is set)
const OP_SCALE_ADD: u32 = 3u;
const OP_LAST: u32 = 4u;    // sum += scaled

// The three running points: on hardware GPUs (products one after another, !PRODUCTS_BATCHED)
// they live in memory, partials[id + STATE_* · K·T], and each addition loads its operands and
// stores its result, so only an addition's operands are live (held in registers, the
// reduction spills on a real GPU compiler: gpu-isa-stats). On software GPUs
// (batched products) they stay in private variables, which those run faster. Either way
// STATE_SUM ends in partials[id], which the host reads back.
const STATE_SUM: u32 = 0u;
const STATE_RUNNING: u32 = 1u;
const STATE_SCALED: u32 = 2u;

#if PRODUCTS_BATCHED
var<private> held_sum: Point;
var<private> held_running: Point;
var<private> held_scaled: Point;
#endif

fn state_load(slot: u32, at: u32) -> Point {
#if !PRODUCTS_BATCHED
    return point_unpack(partials[at]);
#else
    if (slot == STATE_SUM) {
        return held_sum;
    } else if (slot == STATE_RUNNING) {
        return held_running;
    }
    return held_scaled;
#endif
}

fn state_store(slot: u32, at: u32, p: Point) {
#if !PRODUCTS_BATCHED
    partials[at] = point_pack(p);
#else
    if (slot == STATE_SUM) {
        held_sum = p;
    } else if (slot == STATE_RUNNING) {
        held_running = p;
    } else {
        held_scaled = p;
    }
#endif
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn bucket_reduce(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    stash_enter(lane);
    let id = thread_index(gid, nwg);
    let threads = all_windows(plan) * plan.segments;
    if (id >= threads) {
        return;
    }
    let w = id / plan.segments;
    let t = id % plan.segments;
    let len = plan.segment_len;
    let first = w * plan.num_buckets + t * len;
    let m = t * len;
    var bits = 0u;
    if (m != 0u) {
        bits = 32u - countLeadingZeros(m);
    }

    for (var slot = 0u; slot < 3u; slot = slot + 1u) {
        state_store(slot, id + slot * threads, point_identity());
    }
    // Bucket k of the segment (L down to 1) and its pieces.
    var k = len;
    var next_piece = 0u;
    var bucket_pieces = pieces(first + k - 1u, w);
    var op = OP_PIECE;
    var bit = bits;
    loop {
        // Skip what adds nothing: a bucket's pieces once added, scaling without a set bit.
        if (op == OP_PIECE && next_piece == bucket_pieces) {
            op = OP_SUM;
        }
        if (op == OP_SCALE_ADD && ((m >> bit) & 1u) == 0u) {
            op = OP_SCALE;
        }
        if (op == OP_SCALE && bit == 0u) {
            op = OP_LAST;
        }
        // result = lhs + rhs, stored into lhs's state; rhs is a piece or another state.
        var lhs = STATE_RUNNING;
        var rhs = STATE_RUNNING;
        if (op == OP_SUM) {
            lhs = STATE_SUM;
        } else if (op == OP_SCALE) {
            lhs = STATE_SCALED;
            rhs = STATE_SCALED;
        } else if (op == OP_SCALE_ADD) {
            lhs = STATE_SCALED;
        } else if (op == OP_LAST) {
            lhs = STATE_SUM;
            rhs = STATE_SCALED;
        }
        var addend: Point;
        if (op == OP_PIECE) {
            addend = piece(first + k - 1u, w, next_piece);
        } else {
            addend = state_load(rhs, id + rhs * threads);
        }
        let at = id + lhs * threads;
        state_store(lhs, at, point_add(state_load(lhs, at), addend));
        if (op == OP_PIECE) {
            next_piece = next_piece + 1u;
        } else if (op == OP_SUM) {
            k = k - 1u;
            if (k == 0u) {
                op = OP_SCALE;
            } else {
                next_piece = 0u;
                bucket_pieces = pieces(first + k - 1u, w);
                op = OP_PIECE;
            }
        } else if (op == OP_SCALE) {
            bit = bit - 1u;
            op = OP_SCALE_ADD;
        } else if (op == OP_SCALE_ADD) {
            op = OP_SCALE;
        } else {
            break;
        }
    }
#if PRODUCTS_BATCHED
    partials[id] = point_pack(held_sum);
#endif
}

// Where the window sums start in partials, in regions of K·T points (after the partial sums and
// the running and scaled sums).
const WINDOW_SUMS_REGION: u32 = 3u;

// Stage 4b: window w's T partial sums into one, partials[WINDOW_SUMS_REGION·K·T + w]. One
// workgroup per window. Each lane l < lanes = min(T, WORKGROUP_SIZE) first adds the segments
// l + lanes, l + 2·lanes, … to segment l, then the lanes halve in a tree: lane l adds lane
// l + half's sum while l < half. A serial chain of T/lanes − 1 + log2(lanes) additions. The
// lanes' sums go through the running sums' region (free once bucket_reduce is done), so the
// partial sums stay as they were. An all-zero partial (an exceptional Edwards addition, see
// curve_sw_on_te.wgsl) absorbs every addition, so the window sum still shows it to the host.
@compute @workgroup_size(WORKGROUP_SIZE)
fn sum_windows(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    stash_enter(lane);
    let w = group.x;
    let first = w * plan.segments;
    let lane_sums = STATE_RUNNING * all_windows(plan) * plan.segments + first;
    let lanes = min(plan.segments, WORKGROUP_SIZE);
    let strided = plan.segments / lanes - 1u;
    let rounds = strided + countTrailingZeros(lanes);
    var sum = point_identity();
    if (lane < lanes) {
        sum = point_unpack(partials[first + lane]);
        partials[lane_sums + lane] = point_pack(sum);
    }
    for (var round = 0u; round < rounds; round = round + 1u) {
        var adds = lane < lanes;
        var other = first + lane + (round + 1u) * lanes;
        if (round >= strided) {
            // Every lane's sum so far is in its slot of lane_sums.
            storageBarrier();
            let half = lanes >> (round - strided + 1u);
            adds = lane < half;
            other = lane_sums + lane + half;
        }
        if (adds) {
            sum = point_add(sum, point_unpack(partials[other]));
            partials[lane_sums + lane] = point_pack(sum);
        }
    }
    if (lane == 0u) {
        partials[WINDOW_SUMS_REGION * all_windows(plan) * plan.segments + w] = point_pack(sum);
    }
}
