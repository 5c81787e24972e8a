// Input points stored affine on a twisted Edwards curve with a = −1, in the precomputed form
// (y − x, y + x, 2d·x·y) of HWCD's mixed addition (7 multiplications): ed-on-bls12-377, and a
// Weierstrass curve's Edwards model with affine bases (curve_sw_on_te.wgsl). The curve file
// brings how points get there (stored_from_affine) and whether a stored point lacks an image.

struct Stored { y_minus_x: Field, y_plus_x: Field, t2d: Field }
struct StoredPacked { c: array<PackedField, 3> }
// Its halves as two storage buffers hold them (points_front, points_back; see stored_front).
struct StoredFront { c: array<PackedField, 2> }
struct StoredBack { c: array<PackedField, 1> }

// −(x, y) = (−x, y): swaps y − x with y + x and negates 2d·x·y.
fn stored_negate(q: Stored) -> Stored {
    return Stored(q.y_plus_x, q.y_minus_x, field_neg(q.t2d));
}

// The stored form of an extended point: one inversion to affine. The all-zero point (an
// exceptional addition or doubling on a Weierstrass curve's model) stays all zero (the inverse
// of zero is zero).
fn stored_from_point(p: Point) -> Stored {
    let inverse = field_inv(p.z);
    let m = field_mul_x2(p.x, inverse, p.y, inverse);
    return Stored(field_sub(m.r[1], m.r[0]), field_add(m.r[1], m.r[0]), field_mul(field_mul(m.r[0], m.r[1]), D2));
}

// The identity's stored form, (1, 1, 0), adds as the identity: no point needs skipping.
fn point_is_identity(p: Point) -> bool {
    return false;
}

fn point_add_stored(p: Point, q: Stored) -> Point {
    let m = field_mul_x3(field_sub_lazy(p.y, p.x), q.y_minus_x, field_add_lazy(p.y, p.x), q.y_plus_x, p.t, q.t2d);
    return point_combine(m.r[0], m.r[1], m.r[2], field_double(p.z));
}

fn stored_pack(q: Stored) -> StoredPacked {
    return StoredPacked(array<PackedField, 3>(field_pack(q.y_minus_x), field_pack(q.y_plus_x), field_pack(q.t2d)));
}

fn stored_unpack(q: StoredPacked) -> Stored {
    return Stored(field_unpack(q.c[0]), field_unpack(q.c[1]), field_unpack(q.c[2]));
}

// Stored points lie in two buffers, (y − x, y + x) in points_front and 2d·x·y in points_back,
// so that each buffer of 2^20 points fits WebGPU's default 128 MiB binding.
fn stored_front(q: StoredPacked) -> StoredFront {
    return StoredFront(array<PackedField, 2>(q.c[0], q.c[1]));
}

fn stored_back(q: StoredPacked) -> StoredBack {
    return StoredBack(array<PackedField, 1>(q.c[2]));
}

fn stored_unpack_halves(front: StoredFront, back: StoredBack) -> Stored {
    return Stored(field_unpack(front.c[0]), field_unpack(front.c[1]), field_unpack(back.c[0]));
}
