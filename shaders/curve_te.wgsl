// Twisted Edwards curves −x² + y² = 1 + d·x²·y² (a = −1), d not a square: the points of
// te_points.wgsl, and input points stored affine in the precomputed form of HWCD's mixed
// addition.
#import stash
#import te_points

// An input point after conversion, in the precomputed form (y − x, y + x, 2d·x·y) that makes a
// mixed addition cost 7 multiplications.
struct Stored { y_minus_x: Field, y_plus_x: Field, t2d: Field }
struct StoredPacked { c: array<PackedField, 3> }
// Its halves as two storage buffers hold them (points_front, points_back; see stored_front).
struct StoredFront { c: array<PackedField, 2> }
struct StoredBack { c: array<PackedField, 1> }
// An input point as uploaded: affine words, canonical (bytes API) or arkworks' Montgomery form
// (Rust API); the identity is (0, 1).
struct RawPoint { x: Words, y: Words }

// Affine (x, y) in Montgomery form: whether it is the identity, (0, 1).
fn affine_is_identity(x: Field, y: Field) -> bool {
    return field_eq(x, FIELD_ZERO) && field_eq(y, FIELD_ONE);
}

// Whether −x² + y² = 1 + d·x²·y², doubled to use the constant 2d: 2(y² − x²) = 2 + 2d·x²·y².
fn affine_on_curve(x: Field, y: Field) -> bool {
    let m = field_mul_x2(x, x, y, y);
    let lhs = field_double(field_sub(m.r[1], m.r[0]));
    let rhs = field_add(field_double(FIELD_ONE), field_mul(field_mul(m.r[0], m.r[1]), D2));
    return field_eq(lhs, rhs);
}

fn stored_from_affine(x: Field, y: Field) -> Stored {
    return Stored(field_sub(y, x), field_add(y, x), field_mul(field_mul(x, y), D2));
}

// Canonical upload words into the stored form (tests; the pipeline converts in convert_points).
fn stored_from_raw(raw: RawPoint) -> Stored {
    let xy = field_mul_x2(field_from_words(raw.x), R2_MOD_P, field_from_words(raw.y), R2_MOD_P);
    return stored_from_affine(xy.r[0], xy.r[1]);
}

// Every affine point has a stored form here.
fn stored_lacks_image(q: Stored) -> bool {
    return false;
}

// −(x, y) = (−x, y): swaps y − x with y + x and negates 2d·x·y.
fn stored_negate(q: Stored) -> Stored {
    return Stored(q.y_plus_x, q.y_minus_x, field_neg(q.t2d));
}

// The stored form of an extended point: one inversion to affine.
fn stored_from_point(p: Point) -> Stored {
    let inverse = field_inv(p.z);
    let m = field_mul_x2(p.x, inverse, p.y, inverse);
    return stored_from_affine(m.r[0], m.r[1]);
}

// The identity's stored form, (1, 1, 0), adds as the identity: no point needs skipping.
fn point_is_identity(p: Point) -> bool {
    return false;
}

fn point_add_stored(p: Point, q: Stored) -> Point {
    let m = field_mul_x3(field_sub(p.y, p.x), q.y_minus_x, field_add(p.y, p.x), q.y_plus_x, p.t, q.t2d);
    return point_combine(m.r[0], m.r[1], m.r[2], field_double(p.z));
}

fn stored_pack(q: Stored) -> StoredPacked {
    return StoredPacked(array<PackedField, 3>(field_pack(q.y_minus_x), field_pack(q.y_plus_x), field_pack(q.t2d)));
}

fn stored_unpack(q: StoredPacked) -> Stored {
    return Stored(field_unpack(q.c[0]), field_unpack(q.c[1]), field_unpack(q.c[2]));
}

// Stored points lie in two buffers, the first coordinates of each in points_front and the rest
// in points_back, so that each buffer of 2^20 points fits WebGPU's default 128 MiB binding.
fn stored_front(q: StoredPacked) -> StoredFront {
    return StoredFront(array<PackedField, 2>(q.c[0], q.c[1]));
}

fn stored_back(q: StoredPacked) -> StoredBack {
    return StoredBack(array<PackedField, 1>(q.c[2]));
}

fn stored_unpack_halves(front: StoredFront, back: StoredBack) -> Stored {
    return Stored(field_unpack(front.c[0]), field_unpack(front.c[1]), field_unpack(back.c[0]));
}
