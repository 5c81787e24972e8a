// Stage 3 for short Weierstrass curves: batch-affine bucket accumulation over the same
// load-balanced chunks as smvp.wgsl (see chunks.wgsl).
//
// Every chunk keeps an affine running sum of its current bucket piece in chunk_states[]. One
// step adds the next entry of every chunk to its sum. An affine addition needs 1/(x₂ − x₁);
// each step thread owns plan.affine_batch consecutive chunks and shares ONE field inversion
// among their additions with Montgomery's trick (forward: running products of the
// denominators; one inversion; backward: each inverse from the running products), so an
// addition costs 6 multiplications plus its share of the inversion, instead of the 11 of a
// projective mixed addition.
//   start_affine_chunks: one thread per chunk loads its first entry;
//   step_affine_chunks: dispatched chunk_len − 1 times; per chunk and step: a bucket that ends
//     is flushed (as smvp.wgsl does) and the sum restarts at the next point; otherwise the point
//     is added (doubling when it equals the sum; the identity when it is its negative);
//   finish_affine_chunks: one thread per chunk flushes its last piece;
//   bucket_reduce.wgsl adds the pieces of buckets that span chunks, as for the projective kernels.
#import common
#import field
#import curve

#import chunks

@group(0) @binding(7) var<storage, read_write> chunk_states: array<ChunkState>;

// A chunk between steps.
struct ChunkState {
    // Affine running sum of the current bucket piece (meaningless when SUM_IS_IDENTITY).
    sum: StoredPacked,
    // Product of the denominators of the step thread's earlier chunks (Montgomery's trick).
    prefix: PackedField,
    // Next CSR entry to add; the chunk is done when it reaches `end`.
    next: u32,
    end: u32,
    // Global index of the bucket the running sum belongs to.
    bucket: u32,
    flags: u32,
}

// ChunkState.flags: the running sum is the identity (after P + (−P)).
const SUM_IS_IDENTITY: u32 = 1u;

// What a step does to one chunk.
const STEP_NONE: u32 = 0u;      // the chunk is done
const STEP_RESTART: u32 = 1u;   // the entry starts a new bucket (flush, then sum = point)
const STEP_SET: u32 = 2u;       // the sum is the identity: sum = point
const STEP_CANCEL: u32 = 3u;    // point = −sum: sum = identity
const STEP_ADD: u32 = 4u;       // distinct x: affine addition
const STEP_DOUBLE: u32 = 5u;    // point = sum (y ≠ 0): affine doubling

struct Step {
    kind: u32,
    point: Stored,
    // x₂ − x₁ (ADD) or 2y (DOUBLE); one for the other kinds.
    denominator: Field,
}

fn classify(state: ChunkState) -> Step {
    if (state.next >= state.end) {
        return Step(STEP_NONE, Stored(FIELD_ZERO, FIELD_ZERO), FIELD_ONE);
    }
    let point = load_entry(state.next);
    if (state.next == bucket_ends[state.bucket]) {
        return Step(STEP_RESTART, point, FIELD_ONE);
    }
    if ((state.flags & SUM_IS_IDENTITY) != 0u) {
        return Step(STEP_SET, point, FIELD_ONE);
    }
    let sum = stored_unpack(state.sum);
    if (!field_eq(sum.x, point.x)) {
        return Step(STEP_ADD, point, field_sub(point.x, sum.x));
    }
    if (field_eq(sum.y, point.y) && !field_eq(sum.y, FIELD_ZERO)) {
        return Step(STEP_DOUBLE, point, field_double(sum.y));
    }
    return Step(STEP_CANCEL, point, FIELD_ONE);
}

struct Denominator {
    present: bool,
    value: Field,
}

// The forward pass's share of classify(): only the denominator, reading the x coordinates
// alone unless they are equal (the rare doubling or cancellation).
fn forward_denominator(c: u32) -> Denominator {
    let next = chunk_states[c].next;
    let none = Denominator(false, FIELD_ONE);
    if (next >= chunk_states[c].end || next == bucket_ends[chunk_states[c].bucket]) {
        return none;
    }
    if ((chunk_states[c].flags & SUM_IS_IDENTITY) != 0u) {
        return none;
    }
    let x = field_unpack(points_front[entries[next] & ENTRY_INDEX_MASK].c[0]);
    let sum_x = field_unpack(chunk_states[c].sum.c[0]);
    if (!field_eq(sum_x, x)) {
        return Denominator(true, field_sub(x, sum_x));
    }
    let step = classify(chunk_states[c]);
    return Denominator(has_denominator(step.kind), step.denominator);
}

fn has_denominator(kind: u32) -> bool {
    return kind == STEP_ADD || kind == STEP_DOUBLE;
}

fn chunk_count() -> u32 {
    return all_windows(plan) * plan.chunks_per_window;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn start_affine_chunks(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = thread_index(gid, nwg);
    if (c >= chunk_count()) {
        return;
    }
    let range = chunk_range(c);
    var state: ChunkState;
    state.next = range.x;
    state.end = range.y;
    state.flags = 0u;
    if (range.x < range.y) {
        state.bucket = bucket_containing(c / plan.chunks_per_window, range.x);
        state.sum = stored_pack(load_entry(range.x));
        state.next = range.x + 1u;
    }
    chunk_states[c] = state;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn step_affine_chunks(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    // Thread t owns chunks t, t + T, t + 2T, … (T threads): neighbouring threads touch
    // neighbouring chunk states.
    let t = thread_index(gid, nwg);
    let count = chunk_count();
    let threads = (count + plan.affine_batch - 1u) / plan.affine_batch;
    if (t >= threads) {
        return;
    }
    let owned = (count - t + threads - 1u) / threads;

    // Forward: running products of the denominators.
    var product = FIELD_ONE;
    var additions = 0u;
    for (var k = 0u; k < owned; k = k + 1u) {
        let c = t + k * threads;
        let denominator = forward_denominator(c);
        if (denominator.present) {
            chunk_states[c].prefix = field_pack(product);
            product = field_mul(product, denominator.value);
            additions = additions + 1u;
        }
    }
    // Only restarts, sets and cancellations (or nothing) this step: no inversion needed.
    var inverse = FIELD_ONE;
    if (additions != 0u) {
        inverse = field_inv(product);
    }

    // Backward: each denominator's inverse, then the step itself. The step writes only the
    // state's fields it changes: a whole-state store would keep the prefix (and the sum of
    // steps that replace it) live through the addition, which spilled on a real GPU compiler
    // (the BLS12 G2 groups on navi21; BENCHMARKS.md).
    for (var k = owned; k > 0u; k = k - 1u) {
        let c = t + (k - 1u) * threads;
        let step = classify(chunk_states[c]);
        if (step.kind == STEP_NONE) {
            continue;
        }
        let next = chunk_states[c].next;
        if (step.kind == STEP_RESTART) {
            var piece = point_identity();
            if ((chunk_states[c].flags & SUM_IS_IDENTITY) == 0u) {
                piece = point_from_affine(stored_unpack(chunk_states[c].sum));
            }
            let bucket = chunk_states[c].bucket;
            flush(bucket, piece, c, chunk_range(c).x);
            chunk_states[c].bucket = next_bucket(bucket, next);
            chunk_states[c].sum = stored_pack(step.point);
            chunk_states[c].flags = 0u;
        } else if (step.kind == STEP_SET) {
            chunk_states[c].sum = stored_pack(step.point);
            chunk_states[c].flags = 0u;
        } else if (step.kind == STEP_CANCEL) {
            chunk_states[c].flags = SUM_IS_IDENTITY;
        } else {
            // 1/denominator = inverse · prefix; then drop this denominator from the inverse.
            let m = field_mul_x2(inverse, field_unpack(chunk_states[c].prefix), inverse, step.denominator);
            inverse = m.r[1];
            let sum = stored_unpack(chunk_states[c].sum);
            chunk_states[c].sum = stored_pack(affine_add(sum, step.point, m.r[0], step.kind == STEP_DOUBLE));
        }
        chunk_states[c].next = next + 1u;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn finish_affine_chunks(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = thread_index(gid, nwg);
    if (c >= chunk_count()) {
        return;
    }
    let range = chunk_range(c);
    if (range.x >= range.y) {
        return;
    }
    let state = chunk_states[c];
    var piece = point_identity();
    if ((state.flags & SUM_IS_IDENTITY) == 0u) {
        piece = point_from_affine(stored_unpack(state.sum));
    }
    flush(state.bucket, piece, c, range.x);
}
