// Short Weierstrass curves y² = x³ + b (a = 0) in homogeneous projective coordinates
// (x = X/Z, y = Y/Z), with the complete formulas of Renes, Costello and Batina (2015),
// algorithms 7 (addition), 8 (mixed addition) and 9 (doubling): correct for doubling and the
// identity (0 : 1 : 0) without branches.
#import stash
#import sw_inputs

struct Point { x: Field, y: Field, z: Field }
struct PointPacked { c: array<PackedField, 3> }
// An input point after conversion: affine, Montgomery form. Never the identity (stage 1 gives
// identity points no digits), which is what mixed addition requires.
struct Stored { x: Field, y: Field }
struct StoredPacked { c: array<PackedField, 2> }
// Its halves as two storage buffers hold them (points_front, points_back; see stored_front).
struct StoredFront { c: array<PackedField, 1> }
struct StoredBack { c: array<PackedField, 1> }

fn point_identity() -> Point {
    return Point(FIELD_ZERO, FIELD_ONE, FIELD_ZERO);
}

fn stored_from_affine(x: Field, y: Field) -> Stored {
    return Stored(x, y);
}

// Canonical upload words into the stored form (tests; the pipeline converts in convert_points).
fn stored_from_raw(raw: RawPoint) -> Stored {
    let m = field_mul_x2(field_from_words(raw.x), R2_MOD_P, field_from_words(raw.y), R2_MOD_P);
    return stored_from_affine(m.r[0], m.r[1]);
}

// Every affine point has a stored form here.
fn stored_lacks_image(q: Stored) -> bool {
    return false;
}

fn stored_negate(q: Stored) -> Stored {
    return Stored(q.x, field_neg(q.y));
}

// The stored (affine) form of a projective point that is not the identity: one inversion.
fn stored_from_point(p: Point) -> Stored {
    let inverse = field_inv(p.z);
    let m = field_mul_x2(p.x, inverse, p.y, inverse);
    return Stored(m.r[0], m.r[1]);
}

// Whether p is the identity (which has no stored form: it gets no digits).
fn point_is_identity(p: Point) -> bool {
    return field_eq(p.z, FIELD_ZERO);
}

// Whether p is the group's neutral element (check_subgroup): the complete formulas give Z = 0
// for it alone.
fn point_is_neutral(p: Point) -> bool {
    return point_is_identity(p);
}

// Sums and differences that are only multiplied are formed lazily (field_add_lazy, below 2p; see
// src/wgsl/field_gen.rs): every other value stays below p, as additions, negations, mul_by_b3,
// comparisons and storage need.
// The multiplications are grouped into batches of independent products (field_mul_xK): with the
// rolled multiplication each batch is one loop, and a software GPU caps the loop iterations of an
// invocation (DeviceProfile::LOOP_BUDGET), so fewer loops mean longer chains of additions per
// thread.

// Second half shared by the three formulas: from t0 = 3·X1X2 (or 3·Y² for doubling), t1, t3, t4,
// y3 = 3b·(…), z3 the sums of products x3 = t3·t1 − t4·y3, y3 = y3·t0 + t1·z3,
// z3 = z3·t4 + t0·t3, each fused into one reduction (field_mul_sum) where the field fuses them.
// y3 is reduced (a product by 3b) and the others may be lazy: x3 negates y3. (−y3)·t4, not
// t4·(−y3): the first order took bls12-381's 32-bit accumulation to 136 VGPRs on navi21 (3 waves
// per SIMD instead of 4).
fn point_finish(t0: Field, t1: Field, t3: Field, t4: Field, y3: Field, z3: Field) -> Point {
#if !SUMS_FUSED
    return point_finish_apart(t0, t1, t3, t4, y3, z3);
#else
#if PRODUCTS_BATCHED
    let m = field_mul_sum_x3(t3, t1, field_neg(y3), t4, y3, t0, t1, z3, z3, t4, t0, t3);
    return Point(m.r[0], m.r[1], m.r[2]);
#else
    // One sum at a time, in the order that measured fewest registers on a real GPU compiler
    // (navi21): at most six inputs and two results live (G2 points exceed a real
    // GPU's registers otherwise).
    let x = field_mul_sum(t3, t1, field_neg(y3), t4);
    let y = field_mul_sum(y3, t0, t1, z3);
    let z = field_mul_sum(z3, t4, t0, t3);
    return Point(x, y, z);
#endif
#endif
}

// point_finish with each product reduced on its own (13-bit limbs, which do not fuse sums, and
// the BLS12 G2 groups on hardware GPUs: see sums_fused in src/wgsl/fp2.rs): the difference
// formed by a subtraction, not by negating t4 first.
fn point_finish_apart(t0: Field, t1: Field, t3: Field, t4: Field, y3: Field, z3: Field) -> Point {
#if PRODUCTS_BATCHED
    let m = field_mul_x6(t4, y3, t3, t1, y3, t0, t1, z3, t0, t3, z3, t4);
    return Point(field_sub(m.r[1], m.r[0]), field_add(m.r[3], m.r[2]), field_add(m.r[5], m.r[4]));
#else
    // One product at a time, each pair summed at once, y3 and t1 last used as early as possible:
    // at most six inputs and two results live (G2 points exceed a real GPU's registers otherwise).
    // z3 waits in the stash while x is formed (src/wgsl/stash.rs; it took bn254-g2's 13-bit
    // reductions to no spills on navi21).
    stash_put(z3);
    let x = field_sub(field_mul(t3, t1), field_mul(t4, y3));
    let z3_back = stash_take();
    let y = field_add(field_mul(y3, t0), field_mul(t1, z3_back));
    let z = field_add(field_mul(z3_back, t4), field_mul(t0, t3));
    return Point(x, y, z);
#endif
}

// RCB algorithm 7.
fn point_add(p: Point, q: Point) -> Point {
#if !PRODUCTS_BATCHED
    return point_add_in_turn(p, q);
#else
    let m = field_mul_x6(
        p.x, q.x, p.y, q.y, p.z, q.z,
        field_add_lazy(p.x, p.y), field_add_lazy(q.x, q.y),
        field_add_lazy(p.y, p.z), field_add_lazy(q.y, q.z),
        field_add_lazy(p.x, p.z), field_add_lazy(q.x, q.z));
    var t0 = m.r[0];
    var t1 = m.r[1];
    var t2 = m.r[2];
    var t3 = m.r[3];
    var t4 = field_add(t0, t1);
    t3 = field_sub_lazy(t3, t4);
    t4 = m.r[4];
    var x3 = field_add(t1, t2);
    t4 = field_sub_lazy(t4, x3);
    x3 = m.r[5];
    var y3 = field_add(t0, t2);
    y3 = field_sub(x3, y3);
    x3 = field_add(t0, t0);
    t0 = field_add_lazy(x3, t0);
    t2 = mul_by_b3(t2);
    let z3 = field_add_lazy(t1, t2);
    t1 = field_sub_lazy(t1, t2);
    y3 = mul_by_b3(y3);
    return point_finish(t0, t1, t3, t4, y3, z3);
#endif
}

// RCB algorithm 7 with one product at a time (hardware GPUs): the same values as point_add's
// batched order. The three plain products come first, then the six coordinate sums, so that
// each input is last used early: fewer values live during each product (up to 32 fewer VGPRs on
// navi21). t2 waits in the stash while the sums are formed, the addition's
// widest point (the BLS12 G2 groups spilled there; src/wgsl/stash.rs).
fn point_add_in_turn(p: Point, q: Point) -> Point {
    let t0 = field_mul(p.x, q.x);
    let t1 = field_mul(p.y, q.y);
    stash_put(field_mul(p.z, q.z));
    let p_xy = field_add_lazy(p.x, p.y);
    let p_yz = field_add_lazy(p.y, p.z);
    let p_xz = field_add_lazy(p.x, p.z);
    let q_xy = field_add_lazy(q.x, q.y);
    let q_yz = field_add_lazy(q.y, q.z);
    let q_xz = field_add_lazy(q.x, q.z);
    let t3 = field_sub_lazy(field_mul(p_xy, q_xy), field_add(t0, t1));
#if FP2_LOOP
    // Taken after the next product: held across it, t2 took bn254-g2's full additions to 10
    // spill instructions on navi21 with Fp2 products in one loop (MulForm::fp2_loop). The other
    // forms keep the earlier take (DeviceProfile::loop_fp2_products says why).
    let yz = field_mul(p_yz, q_yz);
    let t2 = stash_take();
    let t4 = field_sub_lazy(yz, field_add(t1, t2));
#else
    let t2 = stash_take();
    let t4 = field_sub_lazy(field_mul(p_yz, q_yz), field_add(t1, t2));
#endif
    let y3 = field_sub(field_mul(p_xz, q_xz), field_add(t0, t2));
    let b3t2 = mul_by_b3(t2);
    return point_finish(field_add_lazy(field_double(t0), t0), field_sub_lazy(t1, b3t2), t3, t4, mul_by_b3(y3),
        field_add_lazy(t1, b3t2));
}

// p + q for an affine q that is not the identity (p may be). RCB algorithm 8.
fn point_add_stored(p: Point, q: Stored) -> Point {
#if !PRODUCTS_BATCHED
    return point_add_stored_in_turn(p, q);
#else
    let m = field_mul_x5(
        p.x, q.x, p.y, q.y,
        field_add_lazy(q.x, q.y), field_add_lazy(p.x, p.y),
        q.y, p.z, q.x, p.z);
    var t0 = m.r[0];
    var t1 = m.r[1];
    var t3 = m.r[2];
    var t4 = field_add(t0, t1);
    t3 = field_sub_lazy(t3, t4);
    t4 = field_add_lazy(m.r[3], p.y);
    var y3 = field_add(m.r[4], p.x);
    let x3 = field_add(t0, t0);
    t0 = field_add_lazy(x3, t0);
    var t2 = mul_by_b3(p.z);
    let z3 = field_add_lazy(t1, t2);
    t1 = field_sub_lazy(t1, t2);
    y3 = mul_by_b3(y3);
    return point_finish(t0, t1, t3, t4, y3, z3);
#endif
}

// RCB algorithm 8 with one product at a time, ordered so that the inputs are last used early
// (hardware GPUs): the same values as point_add_stored's batched order. t4 waits in the stash
// until the finish (src/wgsl/stash.rs). p.z is the first factor of its later products: a
// packed 13-bit product unpacks its second factor whole before its rounds, and a compiler
// shares that unpacking between products with the same second factor, keeping p.z's limbs
// live across the products between them (bn254-g2's 13-bit accumulation spilled 14 VGPRs on
// navi21 with q.x·p.z; none with p.z·q.x).
fn point_add_stored_in_turn(p: Point, q: Stored) -> Point {
    let t1 = field_mul(p.y, q.y);
    stash_put(field_add_lazy(field_mul(q.y, p.z), p.y));
    let sum_product = field_mul(field_add_lazy(q.x, q.y), field_add_lazy(p.x, p.y));
    let t0 = field_mul(p.x, q.x);
    let t3 = field_sub_lazy(sum_product, field_add(t0, t1));
    let y3 = mul_by_b3(field_add(field_mul(p.z, q.x), p.x));
    let t2 = mul_by_b3(p.z);
    let t4 = stash_take();
    return point_finish(field_add_lazy(field_double(t0), t0), field_sub_lazy(t1, t2), t3, t4, y3, field_add_lazy(t1, t2));
}

// RCB algorithm 9.
fn point_double(p: Point) -> Point {
    let m1 = field_mul_x4(p.y, p.y, p.y, p.z, p.z, p.z, p.x, p.y);
    var t0 = m1.r[0];
    let t0_4 = field_double(field_double(t0));
    var z3 = field_add_lazy(t0_4, t0_4);
    var t1 = m1.r[1];
    var t2 = mul_by_b3(m1.r[2]);
    var y3 = field_add_lazy(t0, t2);
    let t1_2 = field_add(t2, t2);
    let t2_3 = field_add(t1_2, t2);
    t0 = field_sub_lazy(t0, t2_3);
    let m2 = field_mul_x4(t2, z3, t1, z3, t0, y3, t0, m1.r[3]);
    y3 = field_add(m2.r[0], m2.r[2]);
    return Point(field_double(m2.r[3]), y3, m2.r[1]);
}

// The projective point of an affine one.
fn point_from_affine(q: Stored) -> Point {
    return Point(q.x, q.y, FIELD_ONE);
}

fn point_pack(p: Point) -> PointPacked {
    return PointPacked(array<PackedField, 3>(field_pack(p.x), field_pack(p.y), field_pack(p.z)));
}

fn point_unpack(p: PointPacked) -> Point {
    return Point(field_unpack(p.c[0]), field_unpack(p.c[1]), field_unpack(p.c[2]));
}

fn stored_pack(q: Stored) -> StoredPacked {
    return StoredPacked(array<PackedField, 2>(field_pack(q.x), field_pack(q.y)));
}

fn stored_unpack(q: StoredPacked) -> Stored {
    return Stored(field_unpack(q.c[0]), field_unpack(q.c[1]));
}

// Stored points lie in two buffers, the first coordinates of each in points_front and the rest
// in points_back, so that each buffer of 2^20 points fits WebGPU's default 128 MiB binding.
fn stored_front(q: StoredPacked) -> StoredFront {
    return StoredFront(array<PackedField, 1>(q.c[0]));
}

fn stored_back(q: StoredPacked) -> StoredBack {
    return StoredBack(array<PackedField, 1>(q.c[1]));
}

fn stored_unpack_halves(front: StoredFront, back: StoredBack) -> Stored {
    return Stored(field_unpack(front.c[0]), field_unpack(back.c[0]));
}
