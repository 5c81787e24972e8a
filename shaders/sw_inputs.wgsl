// Uploaded points of a short Weierstrass curve y² = x³ + b: their layout and their checks.

// An input point as uploaded: affine words, canonical (bytes API) or arkworks' Montgomery form
// (Rust API); the identity is x = y = 0 in both.
struct RawPoint { x: Words, y: Words }

// Affine (x, y) in Montgomery form: whether it encodes the identity, (0, 0).
fn affine_is_identity(x: Field, y: Field) -> bool {
    return field_eq(x, FIELD_ZERO) && field_eq(y, FIELD_ZERO);
}

// Whether y² = x³ + b (field results are canonical, so equal values have equal limbs).
fn affine_on_curve(x: Field, y: Field) -> bool {
    let m = field_mul_x2(x, x, y, y);
    return field_eq(m.r[1], field_add(field_mul(m.r[0], x), B));
}
