// Twisted Edwards curves −x² + y² = 1 + d·x²·y² (a = −1), d not a square: the points of
// te_points.wgsl, and input points stored affine in the precomputed form of HWCD's mixed
// addition (te_stored_affine.wgsl).
#import stash
#import te_points
#import te_stored_affine

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
