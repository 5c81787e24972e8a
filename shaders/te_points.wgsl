// Twisted Edwards points −x² + y² = 1 + d·x²·y² (a = −1) in extended coordinates
// (x = X/Z, y = Y/Z, x·y = T/Z), with the unified formulas of Hisil, Wong, Carter and Dawson
// (2008). They are complete where d is not a square (ed-on-bls12-377): doubling and the identity
// (0 : 1 : 0 : 1) need no branches. Where d is a square (a Weierstrass curve on its Edwards
// model, EDWARDS_INCOMPLETE) they fail exactly when Z3 = F·G = 0; that result becomes the
// all-zero point, which every later addition keeps (each product has a zero factor), so the
// host sees it in the partial sums and runs the pass again on the Weierstrass model.

struct Point { x: Field, y: Field, t: Field, z: Field }
struct PointPacked { c: array<PackedField, 4> }

fn point_identity() -> Point {
    return Point(FIELD_ZERO, FIELD_ONE, FIELD_ZERO, FIELD_ONE);
}

// Whether p is the neutral element (0 : 1 : 0 : 1) up to Z (check_subgroup). Not the all-zero
// point of a failed addition, whose Z is 0.
fn point_is_neutral(p: Point) -> bool {
    return field_eq(p.x, FIELD_ZERO) && field_eq(p.y, p.z) && !field_eq(p.z, FIELD_ZERO);
}

// (E·F, G·H, E·H, F·G) as one batch of products (see field_mul_xK in field_gen.rs).
fn point_finish(e: Field, f: Field, g: Field, h: Field) -> Point {
    let m = field_mul_x4(e, f, g, h, e, h, f, g);
#if EDWARDS_INCOMPLETE
    if (field_eq(m.r[3], FIELD_ZERO)) {
        return Point(FIELD_ZERO, FIELD_ZERO, FIELD_ZERO, FIELD_ZERO);
    }
#endif
    return Point(m.r[0], m.r[1], m.r[2], m.r[3]);
}

fn point_add(p: Point, q: Point) -> Point {
    let m = field_mul_x4(field_sub_lazy(p.y, p.x), field_sub_lazy(q.y, q.x), field_add_lazy(p.y, p.x),
        field_add_lazy(q.y, q.x), p.t, q.t, p.z, q.z);
    return point_combine(m.r[0], m.r[1], field_mul(m.r[2], D2), field_double(m.r[3]));
}

// HWCD's common tail from A = (Y1−X1)(Y2−X2), B = (Y1+X1)(Y2+X2), C = 2d·T1T2, D = 2·Z1Z2:
// E = B − A, F = D − C, G = D + C, H = B + A, then point_finish (additions and mixed additions).
// A, B, C and D are reduced; E, F, G and H are only multiplied, so they are formed lazily
// (field_add_lazy in field_gen.rs).
fn point_combine(a: Field, b: Field, c: Field, d: Field) -> Point {
    return point_finish(field_sub_lazy(b, a), field_sub_lazy(d, c), field_add_lazy(d, c), field_add_lazy(b, a));
}

fn point_double(p: Point) -> Point {
    let s = field_add_lazy(p.x, p.y);
    let m = field_mul_x4(p.x, p.x, p.y, p.y, p.z, p.z, s, s);
    let a = m.r[0];
    let b = m.r[1];
    let c = field_double(m.r[2]);
    let e = field_sub_lazy(field_sub(m.r[3], a), b);
    // With a = −1: D = −A, G = D + B, F = G − C, H = D − B (E, F and H are only multiplied).
    let g = field_sub(b, a);
    let f = field_sub_lazy(g, c);
    let h = field_sub_lazy(FIELD_ZERO, field_add(a, b));
    return point_finish(e, f, g, h);
}

fn point_pack(p: Point) -> PointPacked {
    return PointPacked(array<PackedField, 4>(field_pack(p.x), field_pack(p.y), field_pack(p.t), field_pack(p.z)));
}

fn point_unpack(p: PointPacked) -> Point {
    return Point(field_unpack(p.c[0]), field_unpack(p.c[1]), field_unpack(p.c[2]), field_unpack(p.c[3]));
}
