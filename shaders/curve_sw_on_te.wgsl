// A short Weierstrass curve y² = x³ + b with a point of order 2, (α, 0), computed on its twisted
// Edwards model −u² + v² = 1 + d·u²·v² (src/curve/edwards_model.rs has the map and why it is
// exact): uploads are checked as Weierstrass points (sw_inputs.wgsl), converted to extended
// Edwards points, and added with the formulas of te_points.wgsl. The host maps the partial sums
// back.
#import stash
#import sw_inputs
#import te_points

#if NORMALIZE_STORED_POINTS
// An input point after stage 1 (affine bases): (y − x, y + x, 2d·x·y) of its affine Edwards
// image (te_stored_affine.wgsl). convert_points stores (Y − X, Y + X, Z) of the extended image
// (no inversion there); normalize_points divides by Z, one inversion per batch of points, and
// computes 2d·x·y. All zeros for a point with no image: convert_points gives it no digits and
// reports it, and the host adds its multiple.
#import te_stored_affine
#else
// An input point after conversion: (Y − X, Y + X, 2d·T, 2Z) of its extended Edwards image, the
// precomputed form of HWCD's addition (8 multiplications; Z is not 1, which saves the
// conversion an inversion). All zeros for a point with no image: convert_points gives it no
// digits and reports it, and the host adds its multiple.
struct Stored { y_minus_x: Field, y_plus_x: Field, t2d: Field, z2: Field }
struct StoredPacked { c: array<PackedField, 4> }
// Its halves as two storage buffers hold them (points_front, points_back; see stored_front).
struct StoredFront { c: array<PackedField, 2> }
struct StoredBack { c: array<PackedField, 2> }
#endif

// The Edwards image of the affine Weierstrass point (x, y): with w = x − α,
// X = κ·w·(w + t), Y = (w − t)·y, T = κ·w·(w − t), Z = y·(w + t); with affine bases, before its
// division by Z (see Stored).
// No image (Z = 0) where y = 0 (the points of order 2) or w = −t.
fn stored_from_affine(x: Field, y: Field) -> Stored {
    let w = field_sub(x, EDWARDS_ALPHA);
    let w_plus_t = field_add(w, EDWARDS_T);
    let w_minus_t = field_sub(w, EDWARDS_T);
    let kw = field_mul(w, EDWARDS_KAPPA);
#if NORMALIZE_STORED_POINTS
    let m = field_mul_x3(kw, w_plus_t, w_minus_t, y, y, w_plus_t);
    if (field_eq(m.r[2], FIELD_ZERO)) {
        return Stored(FIELD_ZERO, FIELD_ZERO, FIELD_ZERO);
    }
    return Stored(field_sub(m.r[1], m.r[0]), field_add(m.r[1], m.r[0]), m.r[2]);
#else
    let m = field_mul_x4(kw, w_plus_t, w_minus_t, y, kw, w_minus_t, y, w_plus_t);
    if (field_eq(m.r[3], FIELD_ZERO)) {
        return Stored(FIELD_ZERO, FIELD_ZERO, FIELD_ZERO, FIELD_ZERO);
    }
    return Stored(field_sub(m.r[1], m.r[0]), field_add(m.r[1], m.r[0]), field_mul(m.r[2], D2), field_double(m.r[3]));
#endif
}

#if NORMALIZE_STORED_POINTS
// The Z of a point as convert_points stored it (its back half), one for a point with no image.
fn stored_denominator(back: StoredBack) -> Field {
    let z = field_unpack(back.c[0]);
    if (field_eq(z, FIELD_ZERO)) {
        return FIELD_ONE;
    }
    return z;
}

// A point as convert_points stored it, divided by its Z given inverse = 1/Z:
// (y − x, y + x) = (Y − X, Y + X)/Z and 2d·x·y = (d/2)·((y + x) + (y − x))·((y + x) − (y − x)).
// A point with no image stays all zero.
fn stored_normalize(q: Stored, inverse: Field) -> Stored {
    let m = field_mul_x2(q.y_minus_x, inverse, q.y_plus_x, inverse);
    let xy4 = field_mul(field_add_lazy(m.r[1], m.r[0]), field_sub_lazy(m.r[1], m.r[0]));
    return Stored(m.r[0], m.r[1], field_mul(xy4, D_HALF));
}
#endif

// Canonical upload words into the stored form (tests; the pipeline converts in convert_points).
fn stored_from_raw(raw: RawPoint) -> Stored {
    let xy = field_mul_x2(field_from_words(raw.x), R2_MOD_P, field_from_words(raw.y), R2_MOD_P);
    let q = stored_from_affine(xy.r[0], xy.r[1]);
#if NORMALIZE_STORED_POINTS
    // Z lies in the third coordinate until normalized (the inverse of zero, for no image, is zero).
    return stored_normalize(q, field_inv(q.t2d));
#else
    return q;
#endif
}

#if NORMALIZE_STORED_POINTS
// Whether the point had no Edwards image (stored_from_affine stored zeros; (y − x, y + x) is
// never (0, 0) on the curve).
fn stored_lacks_image(q: Stored) -> bool {
    return field_eq(q.y_minus_x, FIELD_ZERO) && field_eq(q.y_plus_x, FIELD_ZERO);
}
#else
// Whether the point had no Edwards image (stored_from_affine stored zeros).
fn stored_lacks_image(q: Stored) -> bool {
    return field_eq(q.z2, FIELD_ZERO);
}

// −(X : Y : T : Z) = (−X : Y : −T : Z): swaps Y − X with Y + X and negates 2d·T.
fn stored_negate(q: Stored) -> Stored {
    return Stored(q.y_plus_x, q.y_minus_x, field_neg(q.t2d), q.z2);
}

// The stored form of an extended point, (Y − X, Y + X, 2d·T, 2Z): no inversion. The all-zero
// point (an exceptional addition or doubling) stays all zero, which stored_lacks_image reports.
fn stored_from_point(p: Point) -> Stored {
    return Stored(field_sub(p.y, p.x), field_add(p.y, p.x), field_mul(p.t, D2), field_double(p.z));
}

// The identity's stored form, (1, 1, 0, 2), adds as the identity: no point needs skipping.
fn point_is_identity(p: Point) -> bool {
    return false;
}

fn point_add_stored(p: Point, q: Stored) -> Point {
    let m = field_mul_x4(field_sub_lazy(p.y, p.x), q.y_minus_x, field_add_lazy(p.y, p.x), q.y_plus_x, p.t, q.t2d, p.z,
        q.z2);
    return point_combine(m.r[0], m.r[1], m.r[2], m.r[3]);
}

fn stored_pack(q: Stored) -> StoredPacked {
    return StoredPacked(array<PackedField, 4>(field_pack(q.y_minus_x), field_pack(q.y_plus_x), field_pack(q.t2d),
        field_pack(q.z2)));
}

fn stored_unpack(q: StoredPacked) -> Stored {
    return Stored(field_unpack(q.c[0]), field_unpack(q.c[1]), field_unpack(q.c[2]), field_unpack(q.c[3]));
}

// Stored points lie in two buffers, the first coordinates of each in points_front and the rest
// in points_back, so that each buffer of 2^20 points fits WebGPU's default 128 MiB binding
// (192 bytes a point in one buffer split bls12-377's 2^20 points into two passes).
fn stored_front(q: StoredPacked) -> StoredFront {
    return StoredFront(array<PackedField, 2>(q.c[0], q.c[1]));
}

fn stored_back(q: StoredPacked) -> StoredBack {
    return StoredBack(array<PackedField, 2>(q.c[2], q.c[3]));
}

fn stored_unpack_halves(front: StoredFront, back: StoredBack) -> Stored {
    return Stored(field_unpack(front.c[0]), field_unpack(front.c[1]), field_unpack(back.c[0]), field_unpack(back.c[1]));
}
#endif
