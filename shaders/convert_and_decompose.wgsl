// Stage 1, one thread per input, in two kernels (three with affine Edwards bases):
//   convert_points: point i checked and brought into Montgomery form (the curve's stored
//     form), and whether it gets no digits: the identity, a bad point, or a point the curve
//     model cannot hold (which the host adds; prepared bases run it once, at preparation). This is where uploaded points are validated: the host only copies
//     them (coordinates below p, then the curve equation; the lowest bad index of each kind is
//     kept in `faults`, which the host reads before it uses any result).
//   normalize_points (a Weierstrass curve's Edwards model with affine bases only): the stored
//     points divided by their Z, one inversion per NORMALIZE_BATCH points.
//   decompose_scalars: scalar i of set s into signed windows (the set's windows s·K …
//     s·K + K − 1), counting each window's bucket sizes; one thread per scalar of every set.
//     With a precompute factor F (prepared bases that store multiples, Plan.fold), into W·F
//     digits spread over the F stored copies of point i.
//
// Digits: window w holds bits [w·c, (w+1)·c) of the scalar plus the carry from window w − 1.
// A value v ≥ 2^(c−1) becomes v − 2^c with a carry into the next window, so every digit lies in
// [−2^(c−1), 2^(c−1)] (the top window never overflows: num_windows leaves it a spare bit).
// Identity points get no digits, so they cost nothing later.
#import common
#import field
#import curve
#import scalar

@group(0) @binding(0) var<uniform> plan: Plan;
// Uploaded point i: raw_points[i] below RAW_LOW_POINTS, else raw_points_high[i − RAW_LOW_POINTS].
@group(0) @binding(1) var<storage, read> raw_points: array<RawPoint>;
@group(0) @binding(9) var<storage, read> raw_points_high: array<RawPoint>;
// The sets' scalars one after another (scalar i of set s at s·m + i, m = scalars_per_set(plan)).
@group(0) @binding(2) var<storage, read> raw_scalars: array<ScalarWords>;
// Stored point i: stored_unpack_halves(points_front[i], points_back[i]).
@group(0) @binding(3) var<storage, read_write> points_front: array<StoredFront>;
@group(0) @binding(8) var<storage, read_write> points_back: array<StoredBack>;
// identity[i]: POINT_USED, or POINT_SKIPPED if point i gets no digits (the identity, a bad
// point), or POINT_LEFT_TO_HOST (no stored form: the host adds its multiple).
@group(0) @binding(6) var<storage, read_write> identity: array<u32>;
// digits[digit_word(plan, s, k, i)]: the digits of point i in windows 2k and 2k + 1 of set s,
// packed (pack_digit; 0 for none).
@group(0) @binding(4) var<storage, read_write> digits: array<u32>;
// bucket_counts[w·h + b − 1]: how many points enter bucket b of window w.
@group(0) @binding(5) var<storage, read_write> bucket_counts: array<atomic<u32>>;
// faults[FAULT_*]: !i for the lowest bad point i of each kind (atomicMax of !i), 0 for none.
@group(0) @binding(7) var<storage, read_write> faults: array<atomic<u32>>;
// blinding[i]: with INPUT_SCALARS_BLINDED, point i's blinding factor b_i < r (an integer).
@group(0) @binding(11) var<storage, read> blinding: array<ScalarWords>;

// Word k of s (its 8 words as two vec4s, src/wgsl/storage.rs); 0 past its last word.
fn scalar_word(s: ScalarWords, k: u32) -> u32 {
    if (k >= 8u) {
        return 0u;
    }
    return select(s.v[1][k & 3u], s.v[0][k & 3u], k < 4u);
}

// Bits [bit, bit + width) of s (width ≤ 16).
fn scalar_bits(s: ScalarWords, bit: u32, width: u32) -> u32 {
    let word = bit >> 5u;
    let shift = bit & 31u;
    var v = scalar_word(s, word) >> shift;
    if (shift + width > 32u) {
        v = v | (scalar_word(s, word + 1u) << (32u - shift));
    }
    return v & ((1u << width) - 1u);
}

// t − r where t ≥ r or `carry` (t's bit 256) is set, else t; every word is computed either way,
// so the time does not depend on t.
fn scalar_reduce_once(t: array<u32, 8>, carry: bool) -> array<u32, 8> {
    let order = GROUP_ORDER;
    var d: array<u32, 8>;
    var borrow = 0u;
    for (var k = 0u; k < 8u; k = k + 1u) {
        let low = t[k] - order[k];
        d[k] = low - borrow;
        borrow = select(0u, 1u, t[k] < order[k] || low < borrow);
    }
    let keep = borrow == 1u && !carry;
    var out: array<u32, 8>;
    for (var k = 0u; k < 8u; k = k + 1u) {
        out[k] = select(d[k], t[k], keep);
    }
    return out;
}

// (s + b) mod r for any s < 2^256 and b < r: s reduced below r by SCALAR_REDUCTIONS conditional
// subtractions (all of them run, whatever s), then b added and r subtracted once more if the sum
// reaches r. Uniform b makes the result uniform below r whatever s is: the digits, bucket sizes
// and so the work of a blinded call do not depend on the scalars.
fn scalar_blind(s: ScalarWords, b: ScalarWords) -> ScalarWords {
    var t: array<u32, 8>;
    for (var k = 0u; k < 8u; k = k + 1u) {
        t[k] = scalar_word(s, k);
    }
    for (var j = 0u; j < SCALAR_REDUCTIONS; j = j + 1u) {
        t = scalar_reduce_once(t, false);
    }
    var carry = 0u;
    for (var k = 0u; k < 8u; k = k + 1u) {
        let sum = t[k] + scalar_word(b, k);
        let out = sum + carry;
        carry = select(0u, 1u, sum < t[k] || out < sum);
        t[k] = out;
    }
    t = scalar_reduce_once(t, carry == 1u);
    return ScalarWords(array<vec4<u32>, 2>(vec4<u32>(t[0], t[1], t[2], t[3]), vec4<u32>(t[4], t[5], t[6], t[7])));
}

// Writes stored point i into both halves.
fn store_point(i: u32, stored: Stored) {
    let packed = stored_pack(stored);
    points_front[i] = stored_front(packed);
    points_back[i] = stored_back(packed);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn convert_points(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if (i >= plan.n) {
        return;
    }
    var raw: RawPoint;
    if (i < RAW_LOW_POINTS) {
        raw = raw_points[i];
    } else {
        raw = raw_points_high[i - RAW_LOW_POINTS];
    }
    let in_range = words_below_p(raw.x) && words_below_p(raw.y);
    // One multiplication per coordinate into Montgomery form, from canonical words or arkworks'.
    var into_montgomery = R2_MOD_P;
    if ((plan.inputs & INPUT_POINTS_MONTGOMERY) != 0u) {
        into_montgomery = ARK_TO_MONT;
    }
    let m = field_mul_x2(field_from_words(raw.x), into_montgomery, field_from_words(raw.y), into_montgomery);
    let x = m.r[0];
    let y = m.r[1];
    let is_identity = affine_is_identity(x, y);
    let on_curve = is_identity || affine_on_curve(x, y);
    let stored = stored_from_affine(x, y);
    let no_image = !is_identity && stored_lacks_image(stored);
    if (!in_range) {
        atomicMax(&faults[FAULT_OUT_OF_RANGE], ~i);
    } else if (!on_curve) {
        atomicMax(&faults[FAULT_NOT_ON_CURVE], ~i);
    } else if (no_image) {
        atomicMax(&faults[FAULT_NO_IMAGE], ~i);
    }
    store_point(i, stored);
    var flag = POINT_USED;
    if (is_identity || !in_range || !on_curve) {
        flag = POINT_SKIPPED;
    } else if (no_image) {
        flag = POINT_LEFT_TO_HOST;
    }
    identity[i] = flag;
}

#if NORMALIZE_STORED_POINTS
// prefixes[i]: in normalize_points, the product of the Zs of the points its thread owns before
// point i.
@group(0) @binding(10) var<storage, read_write> prefixes: array<PackedField>;

// After convert_points, with affine Edwards bases: each stored point divided by its Z, with one
// inversion per thread for its NORMALIZE_BATCH points (Montgomery's trick: forward, the running
// products of the Zs; one inversion; backward, each 1/Z from the inverse and the running product
// before it, then that Z dropped from the inverse). Thread t of T owns points t, t + T, t + 2T, …,
// so neighbouring threads touch neighbouring points.
@compute @workgroup_size(WORKGROUP_SIZE)
fn normalize_points(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_index(gid, nwg);
    let threads = normalize_threads(plan);
    if (t >= threads) {
        return;
    }
    var product = FIELD_ONE;
    var last = t;
    for (var i = t; i < plan.n; i = i + threads) {
        prefixes[i] = field_pack(product);
        product = field_mul(product, stored_denominator(points_back[i]));
        last = i;
    }
    var inverse = field_inv(product);
    for (var i = last; ; i = i - threads) {
        let back = points_back[i];
        let m = field_mul_x2(inverse, field_unpack(prefixes[i]), inverse, stored_denominator(back));
        inverse = m.r[1];
        store_point(i, stored_normalize(stored_unpack_halves(points_front[i], back), m.r[0]));
        if (i < threads) {
            break;
        }
    }
}
#endif

// [k]·q for check_subgroup's constant k (SUBGROUP_SCALAR: r, or the BLS parameter's x² or |x|),
// by double-and-add from the top bit with mixed additions of q.
fn times_subgroup_scalar(q: Stored) -> Point {
    let k = SUBGROUP_SCALAR;
    var p = point_identity();
    for (var bit = SUBGROUP_SCALAR_BITS; bit > 0u; bit = bit - 1u) {
        p = point_double(p);
        if (((k[(bit - 1u) >> 5u] >> ((bit - 1u) & 31u)) & 1u) == 1u) {
            p = point_add_stored(p, q);
        }
    }
    return p;
}

#if SUBGROUP_BY_ORDER
// Whether stored point q is in the prime-order group: [r]·q is the neutral element exactly then.
// On a Weierstrass curve's Edwards model a multiple of a point outside the group may meet an
// exceptional addition, whose all-zero result is not the neutral element either.
fn in_subgroup(q: Stored) -> bool {
    return point_is_neutral(times_subgroup_scalar(q));
}
#else
// Whether projective p is the affine point (x, y).
fn point_is_affine(p: Point, x: Field, y: Field) -> bool {
    let m = field_mul_x2(x, p.z, y, p.z);
    return field_eq(p.x, m.r[0]) && field_eq(p.y, m.r[1]) && !field_eq(p.z, FIELD_ZERO);
}
#endif

#if SUBGROUP_BLS_G1
// Whether stored (affine) point q is in G1 of a BLS12 curve (src/curve/mod.rs, SubgroupTest):
// [x²]·q equals −φ(q) = (β·x, −y).
fn in_subgroup(q: Stored) -> bool {
    return point_is_affine(times_subgroup_scalar(q), field_mul(BLS_BETA, q.x), field_neg(q.y));
}
#endif

#if SUBGROUP_BLS_G2
// Whether stored (affine) point q is in G2 of a BLS12 curve: [x]·q equals ψ(q), that is [|x|]·q
// equals (x̄·PSI_X, ȳ·PSI_Y) (PSI_Y carries x's sign: src/curve/mod.rs, SubgroupTest).
fn in_subgroup(q: Stored) -> bool {
    let psi = field_mul_x2(field_conjugate(q.x), PSI_X, field_conjugate(q.y), PSI_Y);
    return point_is_affine(times_subgroup_scalar(q), psi.r[0], psi.r[1]);
}
#endif

// With MsmConfig::check_subgroup, after convert_points (and normalize_points), one thread per
// point: whether it is in the prime-order group (in_subgroup: by r, or by the curve's
// endomorphism); the lowest point outside it is recorded in faults[FAULT_NOT_IN_SUBGROUP]. A
// point the curve model cannot hold lies outside it by construction
// (src/curve/edwards_model.rs).
@compute @workgroup_size(WORKGROUP_SIZE)
fn check_subgroup(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    stash_enter(lane);
    let i = thread_index(gid, nwg);
    if (i >= plan.n) {
        return;
    }
    let flag = identity[i];
    if (flag == POINT_LEFT_TO_HOST) {
        atomicMax(&faults[FAULT_NOT_IN_SUBGROUP], ~i);
        return;
    }
    if (flag != POINT_USED) {
        return;
    }
    if (!in_subgroup(stored_unpack_halves(points_front[i], points_back[i]))) {
        atomicMax(&faults[FAULT_NOT_IN_SUBGROUP], ~i);
    }
}

// Prepared bases with a precompute factor F (Plan.fold), after convert_points, one thread per
// point i < m: the multiples 2^(j·c·W)·P_i, j = 1 … F − 1, by c·W doublings each, stored as
// points j·m + i with their flags. Copies of a point that gets no digits get none either. A
// multiple with no stored form (on a Weierstrass curve's Edwards model, only for points outside
// G1) leaves the whole point to the host: all its copies get no digits, its own flag becomes
// POINT_LEFT_TO_HOST and it is reported like a point with no image.
@compute @workgroup_size(WORKGROUP_SIZE)
fn precompute_multiples(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    stash_enter(lane);
    let i = thread_index(gid, nwg);
    let m = scalars_per_set(plan);
    if (i >= m) {
        return;
    }
    let skipped = identity[i] != POINT_USED;
    var p = point_add_stored(point_identity(), stored_unpack_halves(points_front[i], points_back[i]));
    var lost = false;
    for (var j = 1u; j < plan.fold; j = j + 1u) {
        for (var k = 0u; k < plan.window_bits * plan.num_windows; k = k + 1u) {
            p = point_double(p);
        }
        let multiple = stored_from_point(p);
        lost = lost || (!skipped && stored_lacks_image(multiple));
        store_point(j * m + i, multiple);
        identity[j * m + i] = select(POINT_USED, POINT_SKIPPED, skipped || point_is_identity(p));
    }
    if (lost) {
        for (var j = 1u; j < plan.fold; j = j + 1u) {
            identity[j * m + i] = POINT_SKIPPED;
        }
        identity[i] = POINT_LEFT_TO_HOST;
        atomicMax(&faults[FAULT_NO_IMAGE], ~i);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn decompose_scalars(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let scalar = thread_index(gid, nwg);
    let m = scalars_per_set(plan);
    if (scalar >= plan.sets * m) {
        return;
    }
    let i = scalar % m;
    let scalar_set = scalar / m;
    let first_window = scalar_set * plan.num_windows;
    var words = raw_scalars[scalar];
    if ((plan.inputs & INPUT_SCALARS_BLINDED) != 0u) {
        words = scalar_blind(words, blinding[i]);
    }

    let c = plan.window_bits;
    let half = plan.num_buckets;
    // W·F digits, W for each stored copy q of point i (copy 0: the point itself; F = 1: digit
    // w to window w of point i): digit j = q·W + w goes to window w of stored point q·m + i.
    let digit_count = plan.num_windows * plan.fold;
    var j = 0u;
    var carry = 0u;
    for (var q = 0u; q < plan.fold; q = q + 1u) {
        let point = q * m + i;
        let skip = identity[point] != POINT_USED;
        // The even window's packed digit, written with the odd one's (or alone, last).
        var pair = 0u;
        for (var w = 0u; w < plan.num_windows; w = w + 1u) {
            let v = scalar_bits(words, j * c, c) + carry;
            var digit = v;
            carry = 0u;
            if (v >= half && j + 1u < digit_count) {
                // v − 2^c, stored as magnitude 2^c − v with the sign bit.
                digit = ((1u << c) - v) | DIGIT_NEGATIVE;
                carry = 1u;
                if (v == (1u << c)) {
                    digit = 0u;
                }
            }
            if (skip) {
                digit = 0u;
            }
            let window = first_window + w;
            if ((w & 1u) == 0u) {
                pair = pack_digit(digit);
            } else {
                pair = pair | (pack_digit(digit) << 16u);
            }
            if ((w & 1u) == 1u || w + 1u == plan.num_windows) {
                digits[digit_word(plan, scalar_set, w / 2u, point)] = pair;
            }
            if (digit != 0u) {
                atomicAdd(&bucket_counts[window * plan.num_buckets + (digit & ENTRY_INDEX_MASK) - 1u], 1u);
            }
            j = j + 1u;
        }
    }
}
