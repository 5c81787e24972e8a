// Twisted Edwards curves −x² + y² = 1 + d·x²·y² (a = −1) in extended coordinates
// (x = X/Z, y = Y/Z, x·y = T/Z), with the unified formulas of Hisil, Wong, Carter and Dawson
// (2008): complete on this curve (d is not a square), so doubling and the identity
// (0 : 1 : 0 : 1) need no branches.

struct Point { x: Field, y: Field, t: Field, z: Field }
struct PointPacked { c: array<PackedField, 4> }
// An input point after conversion, in the precomputed form (y − x, y + x, 2d·x·y) that makes a
// mixed addition cost 7 multiplications.
struct Stored { y_minus_x: Field, y_plus_x: Field, t2d: Field }
struct StoredPacked { c: array<PackedField, 3> }
// An input point as uploaded: canonical affine words; the identity is (0, 1).
struct RawPoint { x: Words, y: Words }

fn point_identity() -> Point {
    return Point(FIELD_ZERO, FIELD_ONE, FIELD_ZERO, FIELD_ONE);
}

fn raw_is_identity(raw: RawPoint) -> bool {
    return words_is_zero(raw.x) && words_is_one(raw.y);
}

fn stored_from_raw(raw: RawPoint) -> Stored {
    let x = field_to_montgomery(field_from_words(raw.x));
    let y = field_to_montgomery(field_from_words(raw.y));
    return Stored(field_sub(y, x), field_add(y, x), field_mul(field_mul(x, y), D2));
}

// −(x, y) = (−x, y): swaps y − x with y + x and negates 2d·x·y.
fn stored_negate(q: Stored) -> Stored {
    return Stored(q.y_plus_x, q.y_minus_x, field_neg(q.t2d));
}

fn point_add(p: Point, q: Point) -> Point {
    let a = field_mul(field_sub(p.y, p.x), field_sub(q.y, q.x));
    let b = field_mul(field_add(p.y, p.x), field_add(q.y, q.x));
    let c = field_mul(field_mul(p.t, q.t), D2);
    let d = field_double(field_mul(p.z, q.z));
    let e = field_sub(b, a);
    let f = field_sub(d, c);
    let g = field_add(d, c);
    let h = field_add(b, a);
    return Point(field_mul(e, f), field_mul(g, h), field_mul(e, h), field_mul(f, g));
}

fn point_add_stored(p: Point, q: Stored) -> Point {
    let a = field_mul(field_sub(p.y, p.x), q.y_minus_x);
    let b = field_mul(field_add(p.y, p.x), q.y_plus_x);
    let c = field_mul(p.t, q.t2d);
    let d = field_double(p.z);
    let e = field_sub(b, a);
    let f = field_sub(d, c);
    let g = field_add(d, c);
    let h = field_add(b, a);
    return Point(field_mul(e, f), field_mul(g, h), field_mul(e, h), field_mul(f, g));
}

fn point_double(p: Point) -> Point {
    let a = field_square(p.x);
    let b = field_square(p.y);
    let c = field_double(field_square(p.z));
    let e = field_sub(field_sub(field_square(field_add(p.x, p.y)), a), b);
    // With a = −1: D = −A, G = D + B, F = G − C, H = D − B.
    let g = field_sub(b, a);
    let f = field_sub(g, c);
    let h = field_neg(field_add(a, b));
    return Point(field_mul(e, f), field_mul(g, h), field_mul(e, h), field_mul(f, g));
}

fn point_pack(p: Point) -> PointPacked {
    return PointPacked(array<PackedField, 4>(field_pack(p.x), field_pack(p.y), field_pack(p.t), field_pack(p.z)));
}

fn point_unpack(p: PointPacked) -> Point {
    return Point(field_unpack(p.c[0]), field_unpack(p.c[1]), field_unpack(p.c[2]), field_unpack(p.c[3]));
}

fn stored_pack(q: Stored) -> StoredPacked {
    return StoredPacked(array<PackedField, 3>(field_pack(q.y_minus_x), field_pack(q.y_plus_x), field_pack(q.t2d)));
}

fn stored_unpack(q: StoredPacked) -> Stored {
    return Stored(field_unpack(q.c[0]), field_unpack(q.c[1]), field_unpack(q.c[2]));
}
