// Short Weierstrass curves y² = x³ + b (a = 0) in homogeneous projective coordinates
// (x = X/Z, y = Y/Z), with the complete formulas of Renes, Costello and Batina (2015),
// algorithms 7 (addition), 8 (mixed addition) and 9 (doubling): correct for doubling and the
// identity (0 : 1 : 0) without branches.

struct Point { x: Field, y: Field, z: Field }
struct PointPacked { c: array<PackedField, 3> }
// An input point after conversion: affine, Montgomery form. Never the identity (stage 1 gives
// identity points no digits), which is what mixed addition requires.
struct Stored { x: Field, y: Field }
struct StoredPacked { c: array<PackedField, 2> }
// An input point as uploaded: canonical affine words; the identity is x = y = 0.
struct RawPoint { x: Words, y: Words }

fn point_identity() -> Point {
    return Point(FIELD_ZERO, FIELD_ONE, FIELD_ZERO);
}

fn raw_is_identity(raw: RawPoint) -> bool {
    return words_is_zero(raw.x) && words_is_zero(raw.y);
}

fn stored_from_raw(raw: RawPoint) -> Stored {
    return Stored(field_to_montgomery(field_from_words(raw.x)), field_to_montgomery(field_from_words(raw.y)));
}

fn stored_negate(q: Stored) -> Stored {
    return Stored(q.x, field_neg(q.y));
}

fn point_add(p: Point, q: Point) -> Point {
    var t0 = field_mul(p.x, q.x);
    var t1 = field_mul(p.y, q.y);
    var t2 = field_mul(p.z, q.z);
    var t3 = field_mul(field_add(p.x, p.y), field_add(q.x, q.y));
    var t4 = field_add(t0, t1);
    t3 = field_sub(t3, t4);
    t4 = field_mul(field_add(p.y, p.z), field_add(q.y, q.z));
    var x3 = field_add(t1, t2);
    t4 = field_sub(t4, x3);
    x3 = field_mul(field_add(p.x, p.z), field_add(q.x, q.z));
    var y3 = field_add(t0, t2);
    y3 = field_sub(x3, y3);
    x3 = field_add(t0, t0);
    t0 = field_add(x3, t0);
    t2 = mul_by_b3(t2);
    var z3 = field_add(t1, t2);
    t1 = field_sub(t1, t2);
    y3 = mul_by_b3(y3);
    x3 = field_mul(t4, y3);
    t2 = field_mul(t3, t1);
    x3 = field_sub(t2, x3);
    y3 = field_mul(y3, t0);
    t1 = field_mul(t1, z3);
    y3 = field_add(t1, y3);
    t0 = field_mul(t0, t3);
    z3 = field_mul(z3, t4);
    z3 = field_add(z3, t0);
    return Point(x3, y3, z3);
}

// p + q for an affine q that is not the identity (p may be).
fn point_add_stored(p: Point, q: Stored) -> Point {
    var t0 = field_mul(p.x, q.x);
    var t1 = field_mul(p.y, q.y);
    var t3 = field_mul(field_add(q.x, q.y), field_add(p.x, p.y));
    var t4 = field_add(t0, t1);
    t3 = field_sub(t3, t4);
    t4 = field_add(field_mul(q.y, p.z), p.y);
    var y3 = field_add(field_mul(q.x, p.z), p.x);
    var x3 = field_add(t0, t0);
    t0 = field_add(x3, t0);
    var t2 = mul_by_b3(p.z);
    var z3 = field_add(t1, t2);
    t1 = field_sub(t1, t2);
    y3 = mul_by_b3(y3);
    x3 = field_mul(t4, y3);
    t2 = field_mul(t3, t1);
    x3 = field_sub(t2, x3);
    y3 = field_mul(y3, t0);
    t1 = field_mul(t1, z3);
    y3 = field_add(t1, y3);
    t0 = field_mul(t0, t3);
    z3 = field_mul(z3, t4);
    z3 = field_add(z3, t0);
    return Point(x3, y3, z3);
}

fn point_double(p: Point) -> Point {
    var t0 = field_square(p.y);
    var z3 = field_double(field_double(field_double(t0)));
    var t1 = field_mul(p.y, p.z);
    var t2 = mul_by_b3(field_square(p.z));
    var x3 = field_mul(t2, z3);
    var y3 = field_add(t0, t2);
    z3 = field_mul(t1, z3);
    t1 = field_add(t2, t2);
    t2 = field_add(t1, t2);
    t0 = field_sub(t0, t2);
    y3 = field_mul(t0, y3);
    y3 = field_add(x3, y3);
    t1 = field_mul(p.x, p.y);
    x3 = field_mul(t0, t1);
    x3 = field_double(x3);
    return Point(x3, y3, z3);
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
