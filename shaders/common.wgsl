// Types and helpers shared by every stage.

// Threads per workgroup for the one-thread-per-item stages.
const WORKGROUP_SIZE: u32 = 64u;
// A signed window digit is stored as its magnitude with this bit set when negative; 0 = no bucket.
const DIGIT_NEGATIVE: u32 = 0x80000000u;
// A CSR entry is a point index with DIGIT_NEGATIVE set when the point enters its bucket negated.
const ENTRY_INDEX_MASK: u32 = 0x7fffffffu;
// The digits buffer holds two digits per u32, 16 bits each (a magnitude of at most 2^14, as
// windows are at most 15 bits, with its sign in the top bit): window pair k of a set (windows
// 2k and 2k + 1) of point i at digit_word(plan, set, k, i), the even window in the low half.
const PACKED_DIGIT_NEGATIVE: u32 = 0x8000u;

// Digit words per point for one set's windows.
fn digit_pairs(p: Plan) -> u32 {
    return (p.num_windows + 1u) / 2u;
}

// The word of the digits buffer that holds window pair `pair` of scalar set s for point i.
fn digit_word(p: Plan, s: u32, pair: u32, i: u32) -> u32 {
    return (s * digit_pairs(p) + pair) * p.n + i;
}

// A digit (magnitude | DIGIT_NEGATIVE) in its 16-bit packed form, and back.
fn pack_digit(digit: u32) -> u32 {
    return (digit & 0x7fffu) | ((digit >> 16u) & PACKED_DIGIT_NEGATIVE);
}

fn unpack_digit(half: u32) -> u32 {
    return (half & 0x7fffu) | ((half & PACKED_DIGIT_NEGATIVE) << 16u);
}

// Bit of Plan.inputs: the points are uploaded in arkworks' Montgomery form (the Rust API)
// rather than as canonical integers (the bytes API). The scalars' bit (Plan::SCALARS_MONTGOMERY)
// is read by the host, which dispatches convert_scalars only when it is set.
const INPUT_POINTS_MONTGOMERY: u32 = 1u;
// Bit of Plan.inputs: decompose_scalars blinds each scalar s of point i as (s + b_i) mod r, b_i
// the prepared bases' blinding factor (src/prepared.rs, `Blinding`; Plan::SCALARS_BLINDED).
const INPUT_SCALARS_BLINDED: u32 = 4u;
// Uploaded points [0, RAW_LOW_POINTS) lie in one buffer, the rest in a second (from its start),
// so that each holds its share of a pass of 2^20 points within WebGPU's default 128 MiB binding
// (the BLS12 G2 groups' uploaded points take 192 bytes; RAW_LOW_POINTS in src/upload.rs).
const RAW_LOW_POINTS: u32 = 524288u;
// Stored points one normalize_points thread divides by their Z with one shared inversion, on a
// Weierstrass curve's Edwards model with affine bases (NORMALIZE_BATCH in src/plan.rs).
const NORMALIZE_BATCH: u32 = 256u;
// Slots of the faults buffer: the lowest point with a coordinate not below p, the lowest
// point off the curve, the lowest valid point that the curve model cannot hold (a
// Weierstrass point with no Edwards image, which the host adds instead), and the lowest point
// outside the prime-order group where check_subgroup ran (src/upload.rs, `Faults`).
const FAULT_OUT_OF_RANGE: u32 = 0u;
const FAULT_NOT_ON_CURVE: u32 = 1u;
const FAULT_NO_IMAGE: u32 = 2u;
const FAULT_NOT_IN_SUBGROUP: u32 = 3u;
// Values of a point's identity flag: it gets digits, it gets none (the identity or a bad point),
// or it gets none and the host adds its multiple instead (a point, or a multiple of it that
// prepared bases store, with no image on the curve model the pass runs; src/upload.rs).
const POINT_USED: u32 = 0u;
const POINT_SKIPPED: u32 = 1u;
const POINT_LEFT_TO_HOST: u32 = 2u;

// Per-call sizes, written by the host (src/plan.rs, `Plan`); the shader text never depends on n.
struct Plan {
    // Number of points: F·m in a folded plan, whose sets have m scalars (scalars_per_set).
    n: u32,
    // Window width c in bits.
    window_bits: u32,
    // Number of windows K = ceil((scalar_bits + 1) / c); folded: W = ceil((bits + 1) / (c·F)).
    num_windows: u32,
    // Buckets per window h = 2^(c-1); bucket b in 1..=h lives at index b - 1.
    num_buckets: u32,
    // Reduction threads per window T (a power of two dividing h).
    segments: u32,
    // Buckets per reduction thread, h / T.
    segment_len: u32,
    // CSR entries per accumulation thread S: each thread adds the same number of points.
    chunk_len: u32,
    // Accumulation threads per window C = ceil(n / S).
    chunks_per_window: u32,
    // Which uploads hold arkworks' Montgomery form (INPUT_POINTS_MONTGOMERY; bit 2 for scalars).
    inputs: u32,
    // Scalar sets S over the same points (a batch): set s owns windows s·K … s·K + K − 1, so
    // every per-window buffer holds S·K windows.
    sets: u32,
    // Precompute factor F (src/plan.rs, Plan::fold): the stored points are m points and their
    // multiples 2^(j·c·W)·P, j < F, point j·m + i; 1 for none.
    fold: u32,
    // Carries per group G (src/plan.rs, Plan::carry_group): 1, or on hardware GPUs the groups
    // combine_carries (smvp.wgsl) adds into their first carry before bucket_reduce.
    carry_group: u32,
}

// Windows of all scalar sets, S·K (Plan::all_windows).
fn all_windows(p: Plan) -> u32 {
    return p.sets * p.num_windows;
}

// The chunk, counted within window w, that holds window w's CSR entry `entry` (global offset):
// window w's entries start at w·n and each chunk holds p.chunk_len of them (chunks.wgsl).
fn chunk_of_entry(p: Plan, w: u32, entry: u32) -> u32 {
    return (entry - w * p.n) / p.chunk_len;
}

// Scalars of each set, n / F (Plan::scalars_per_set).
fn scalars_per_set(p: Plan) -> u32 {
    return p.n / p.fold;
}

// Threads of normalize_points for p.n points, one per NORMALIZE_BATCH (Plan::normalize_threads).
fn normalize_threads(p: Plan) -> u32 {
    return (p.n + NORMALIZE_BATCH - 1u) / NORMALIZE_BATCH;
}

// Linear index of this thread in a dispatch that may be folded into two dimensions
// (at most 65535 workgroups per dimension).
fn thread_index(gid: vec3<u32>, num_workgroups: vec3<u32>) -> u32 {
    return gid.x + gid.y * num_workgroups.x * WORKGROUP_SIZE;
}
