// The quadratic extension Fp2 = Fp[u]/(u² − β) over the base field above (renamed into the fp_
// namespace by src/wgsl/fp2.rs): an element is c0 + c1·u. It defines the names the curve
// formulas and stages use (Field, field_*, FIELD_*), so they run unchanged over Fp2.

struct Field { c0: Fp, c1: Fp }
// Storage: c0's words, then c1's.
struct PackedField { c0: PackedFp, c1: PackedFp }
// A canonical coordinate as uploaded: c0's words, then c1's.
struct Words { c0: FpWords, c1: FpWords }

const FIELD_ZERO = Field(FP_ZERO, FP_ZERO);
const FIELD_ONE = Field(FP_ONE, FP_ZERO);
// Multiplying by these scales each coordinate by a base field constant (see field.wgsl).
const R2_MOD_P = Field(FP_R2_MOD_P, FP_ZERO);
const ARK_TO_MONT = Field(FP_ARK_TO_MONT, FP_ZERO);

fn field_add(a: Field, b: Field) -> Field {
    return Field(fp_add(a.c0, b.c0), fp_add(a.c1, b.c1));
}

fn field_sub(a: Field, b: Field) -> Field {
    return Field(fp_sub(a.c0, b.c0), fp_sub(a.c1, b.c1));
}

// The conjugate a0 − a1·u of a0 + a1·u: the Frobenius map a ↦ a^p.
fn field_conjugate(a: Field) -> Field {
    return Field(a.c0, fp_sub(FP_ZERO, a.c1));
}

fn field_eq(a: Field, b: Field) -> bool {
    return fp_eq(a.c0, b.c0) && fp_eq(a.c1, b.c1);
}

fn field_pack(a: Field) -> PackedField {
    return PackedField(fp_pack(a.c0), fp_pack(a.c1));
}

fn field_unpack(p: PackedField) -> Field {
    return Field(fp_unpack(p.c0), fp_unpack(p.c1));
}

fn field_from_words(w: Words) -> Field {
    return Field(fp_from_words(w.c0), fp_from_words(w.c1));
}

fn words_below_p(w: Words) -> bool {
    return fp_words_below_p(w.c0) && fp_words_below_p(w.c1);
}

// Karatsuba: from the three base products a0·b0, a1·b1 and (a0 + a1)·(b0 + b1),
//   a·b = (a0·b0 + β·a1·b1) + ((a0 + a1)·(b0 + b1) − a0·b0 − a1·b1)·u.
fn fp2_from_products(a0b0: Fp, a1b1: Fp, sum_product: Fp) -> Field {
    return Field(fp_add_times_nonresidue(a0b0, a1b1), fp_sub(sum_product, fp_add(a0b0, a1b1)));
}

// With 32-bit limbs (FP_SUMS_FUSED), the schoolbook form as two fused base sums instead,
//   a·b = (a0·b0 + (β·a1)·b1) + (a0·b1 + a1·b0)·u:
// four products but two reductions where Karatsuba takes three of each, and no sums of
// coordinates; a third fewer instructions on a real GPU compiler.
fn field_mul(a: Field, b: Field) -> Field {
#if FP_SUMS_FUSED
    return Field(fp_mul_sum(a.c0, b.c0, fp_mul_by_nonresidue(a.c1), b.c1), fp_mul_sum(a.c0, b.c1, a.c1, b.c0));
#else
#if FP2_LOOP
    // The three base products in one loop, one per iteration (MulForm::fp2_loop): a third of
    // the code of three inlined multiplications, which is what a real GPU compiler's time grows
    // with. The counter is uniform, so choosing the factors is a branch, not a select per word.
    // The coordinate sums are reduced, as below.
    var c0 = FP_ZERO;
    var c1 = FP_ZERO;
    for (var k = 0u; k < 3u; k++) {
        var x = a.c0;
        var y = b.c0;
        if k == 0u {
            x = fp_add(a.c0, a.c1);
            y = fp_add(b.c0, b.c1);
        } else if k == 2u {
            x = a.c1;
            y = b.c1;
        }
        let product = fp_mul(x, y);
        if k == 0u {
            c1 = product;
        } else {
            if k == 1u {
                c0 = product;
            } else {
                c0 = fp_add_times_nonresidue(c0, product);
            }
            c1 = fp_sub(c1, product);
        }
    }
    return Field(c0, c1);
#else
#if !PRODUCTS_BATCHED
    // The coordinate sums are reduced here: lazy ones (fp_add_lazy, as batches take them) spill
    // 299 VGPRs instead of 239 in bls12-381-g2's 13-bit accumulation on navi21.
    let sum_product = fp_mul(fp_add(a.c0, a.c1), fp_add(b.c0, b.c1));
    let a0b0 = fp_mul(a.c0, b.c0);
    return fp2_from_products(a0b0, fp_mul(a.c1, b.c1), sum_product);
#else
    // The coordinate sums are only multiplied: lazy (fp_add_lazy, src/wgsl/field_gen.rs).
    let m = fp_mul_x3(a.c0, b.c0, a.c1, b.c1, fp_add_lazy(a.c0, a.c1), fp_add_lazy(b.c0, b.c1));
    return fp2_from_products(m.r[0], m.r[1], m.r[2]);
#endif
#endif
#endif
}

// a·b + c·d: Karatsuba on the base field's sums of two products (with 32-bit limbs, fused:
// three reductions where two Karatsuba products take six).
fn field_mul_sum(a: Field, b: Field, c: Field, d: Field) -> Field {
#if !PRODUCTS_BATCHED
    let low = fp_mul_sum(a.c0, b.c0, c.c0, d.c0);
    let high = fp_mul_sum(a.c1, b.c1, c.c1, d.c1);
    let sum_product = fp_mul_sum(fp_add(a.c0, a.c1), fp_add(b.c0, b.c1), fp_add(c.c0, c.c1), fp_add(d.c0, d.c1));
    return fp2_from_products(low, high, sum_product);
#else
    let m = fp_mul_sum_x3(
        a.c0, b.c0, c.c0, d.c0,
        a.c1, b.c1, c.c1, d.c1,
        fp_add_lazy(a.c0, a.c1), fp_add_lazy(b.c0, b.c1), fp_add_lazy(c.c0, c.c1), fp_add_lazy(d.c0, d.c1));
    return fp2_from_products(m.r[0], m.r[1], m.r[2]);
#endif
}

// Two base products: with v = a0·a1,
//   a² = ((a0 + a1)·(a0 + β·a1) − v − β·v) + 2v·u.
fn field_square(a: Field) -> Field {
    let m = fp_mul_x2(a.c0, a.c1, fp_add(a.c0, a.c1), fp_add_times_nonresidue(a.c0, a.c1));
    let v = m.r[0];
    return Field(fp_sub(m.r[1], fp_add_times_nonresidue(v, v)), fp_add(v, v));
}

// a⁻¹ = (a0 − a1·u) / (a0² − β·a1²), one base inversion (0 for 0).
fn field_inv(a: Field) -> Field {
    let m = fp_mul_x2(a.c0, a.c0, a.c1, a.c1);
    let inverse = fp_inv(fp_sub_times_nonresidue(m.r[0], m.r[1]));
    let r = fp_mul_x2(a.c0, inverse, a.c1, inverse);
    return Field(r.r[0], fp_neg(r.r[1]));
}
