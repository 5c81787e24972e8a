//! The quadratic extension Fp2 = Fp\[u\]/(u² − β) in WGSL, for the G2 groups of pairing-friendly
//! curves. The base field's generated module is renamed into an `fp` namespace
//! (`base_namespace`: `Field` → `Fp`, `field_*` → `fp_*`, `FIELD_*` → `FP_*`, …); then
//! `shaders/fp2.wgsl` and the batches generated here define `Field` and the `field_*` functions
//! over pairs of base elements, so the curve formulas and stages run over Fp2 unchanged.

use std::fmt::Write;

use num_bigint::BigUint;

use super::mont::{batches_as_calls, product_params, MAX_BATCH, MAX_SUM_BATCH};
use super::identifiers::rename_identifiers;
use super::MulForm;

/// The base field's names in the `fp` namespace: the types `Field`, `PackedField`, `FieldXK`
/// and `Words` become `Fp`, `PackedFp`, `FpXK` and `FpWords`; `field_*` functions and `FIELD_*`
/// constants `fp_*` and `FP_*`; `R2_MOD_P`, `ARK_TO_MONT` and `words_below_p` get an `fp` prefix.
/// The limb constants (`LIMBS`, `P`, `MU`, …) keep their names: only the
/// base field has limbs.
pub(super) fn base_namespace(code: &str) -> String {
    rename_identifiers(code, |name| match name {
        "Field" => Some("Fp".into()),
        "PackedField" => Some("PackedFp".into()),
        "Words" => Some("FpWords".into()),
        "R2_MOD_P" | "ARK_TO_MONT" => Some(format!("FP_{name}")),
        "words_below_p" => Some(format!("fp_{name}")),
        _ => {
            if let Some(rest) = name.strip_prefix("field_") {
                Some(format!("fp_{rest}"))
            } else if let Some(rest) = name.strip_prefix("FIELD_") {
                Some(format!("FP_{rest}"))
            } else {
                name.strip_prefix("FieldX").map(|k| format!("FpX{k}"))
            }
        }
    })
}

/// The Fp2 layer over `base` (the base field's module already in the `fp` namespace), for the
/// non-residue β (u² = β) of the base field with modulus `p`, in the limb `form` of the base
/// field: when [`MulForm::batched`], `field_mul_xK` advances the base products of its K
/// products together (Karatsuba's 3K, or where [`MulForm::fuses_sums`] the schoolbook form's 2K
/// fused sums, as `field_mul` computes them); otherwise (hardware GPUs) it calls `field_mul` K
/// times, as the base field's does.
pub(super) fn extension_module(base: String, p: &BigUint, nonresidue: &BigUint, form: MulForm) -> String {
    let mut out = base;
    out += &mul_by_nonresidue(p, nonresidue);
    out += include_str!("../../shaders/fp2.wgsl");
    // Fp2's products add their operands' coordinates (Karatsuba), which must be reduced.
    out += super::mont::LAZY_AS_REDUCED;
    out += &match (form.batched(), form.fuses_sums()) {
        (false, _) => batches_as_calls(false),
        (true, false) => batches(),
        (true, true) => fused_batches(),
    };
    // Each Fp2 sum of products is one batch of three base sums already.
    out += &batches_as_calls(true);
    out
}

/// `SUMS_FUSED` over Fp2 (see [`super::compose::Define`]): whether the curve formulas form
/// their sums of two Fp2 products with `field_mul_sum`
/// (Karatsuba over three fused base sums: three reductions where two products take four) or
/// product by product (`point_finish_apart`). Fused where the base field fuses its sums, except
/// in hardware GPUs' form over base fields wider than 256 bits (the BLS12 G2 groups): there
/// Karatsuba's four operand sums, beside the six Fp2 values a point addition holds at its end,
/// take the additions past 256 registers on a real GPU compiler (85–139 spill on navi21), and
/// product by product they spill 0–23 for about 6% more instructions. On
/// BN254's 254-bit field the registers do not change, so it keeps the fused sums.
pub(super) fn sums_fused(p: &BigUint, form: MulForm) -> bool {
    form.fuses_sums() && (form.batched() || p.bits() <= 256)
}

/// The products by the non-residue β, as addition chains: β or −β must be a small integer (−1
/// on BN254 and BLS12-381, −5 on BLS12-377):
/// - `fp_mul_by_nonresidue(a)` = β·a;
/// - `fp_add_times_nonresidue(a, b)` = a + β·b and `fp_sub_times_nonresidue(a, b)` = a − β·b,
///   which fold β's sign into their last step: where β = −1, one subtraction or addition
///   instead of a negation and then an addition (each a carry chain and a reduction, the bulk
///   of an Fp2 product's code in the 13-bit form).
fn mul_by_nonresidue(p: &BigUint, nonresidue: &BigUint) -> String {
    let negated = p - nonresidue;
    let (k, negate) = if nonresidue.bits() <= 6 { (nonresidue, false) } else { (&negated, true) };
    assert!(k.bits() <= 6, "non-residue {nonresidue} is not a small integer or its negation");
    let k = k.iter_u32_digits().next().unwrap_or(0);
    assert!(k > 0, "the non-residue is not zero");
    // r = k·x by double-and-add from the top bit of k (nothing when k = 1).
    let chain = |x: &str| {
        let mut c = format!("    var r = {x};\n");
        for bit in (0..31 - k.leading_zeros()).rev() {
            c += "    r = fp_add(r, r);\n";
            if (k >> bit) & 1 == 1 {
                let _ = writeln!(c, "    r = fp_add(r, {x});");
            }
        }
        c
    };
    let sign = if negate { "−" } else { "" };
    let (add, sub) = if negate { ("fp_sub", "fp_add") } else { ("fp_add", "fp_sub") };
    let mut c = format!("// β·a for the non-residue β = {sign}{k}.\nfn fp_mul_by_nonresidue(a: Fp) -> Fp {{\n");
    c += &chain("a");
    c += if negate { "    return fp_sub(FP_ZERO, r);\n}\n" } else { "    return r;\n}\n" };
    let _ = write!(c, "// a + β·b.\nfn fp_add_times_nonresidue(a: Fp, b: Fp) -> Fp {{\n{}    return {add}(a, r);\n}}\n", chain("b"));
    let _ = write!(c, "// a − β·b.\nfn fp_sub_times_nonresidue(a: Fp, b: Fp) -> Fp {{\n{}    return {sub}(a, r);\n}}\n", chain("b"));
    c
}

/// `field_mul_xK` over Fp2 for K = 2..=MAX_BATCH: the 3K base products of K Karatsuba
/// multiplications in batches of at most `MAX_BATCH`, one loop per batch (software GPUs).
fn batches() -> String {
    let mut out = String::new();
    for k in 2..=MAX_BATCH {
        let params: Vec<String> = (0..k).map(|i| product_params(i, false)).collect();
        let _ = writeln!(out, "struct FieldX{k} {{ r: array<Field, {k}> }}");
        let _ = writeln!(out, "fn field_mul_x{k}({}) -> FieldX{k} {{", params.join(", "));
        let per_batch = MAX_BATCH / 3;
        let mut results = Vec::new();
        for (batch, first) in (0..k).step_by(per_batch).enumerate() {
            let products: Vec<usize> = (first..k.min(first + per_batch)).collect();
            let operands: Vec<String> = products
                .iter()
                .map(|i| {
                    format!("a{i}.c0, b{i}.c0, a{i}.c1, b{i}.c1, fp_add_lazy(a{i}.c0, a{i}.c1), fp_add_lazy(b{i}.c0, b{i}.c1)")
                })
                .collect();
            let _ = writeln!(out, "    let m{batch} = fp_mul_x{}({});", 3 * products.len(), operands.join(", "));
            for j in 0..products.len() {
                results.push(format!(
                    "fp2_from_products(m{batch}.r[{}], m{batch}.r[{}], m{batch}.r[{}])",
                    3 * j,
                    3 * j + 1,
                    3 * j + 2
                ));
            }
        }
        let _ = writeln!(out, "    return FieldX{k}(array<Field, {k}>({}));\n}}", results.join(", "));
    }
    out
}

/// `field_mul_xK` over Fp2 for K = 2..=MAX_BATCH when sums are fused: the schoolbook form of
/// `field_mul`, each product's two fused base sums, in batches of `MAX_SUM_BATCH` sums (one
/// loop per batch, software GPUs).
fn fused_batches() -> String {
    let mut out = String::new();
    for k in 2..=MAX_BATCH {
        let params: Vec<String> = (0..k).map(|i| product_params(i, false)).collect();
        let _ = writeln!(out, "struct FieldX{k} {{ r: array<Field, {k}> }}");
        let _ = writeln!(out, "fn field_mul_x{k}({}) -> FieldX{k} {{", params.join(", "));
        // Sum 2i is c0 of product i, sum 2i + 1 its c1.
        let sums: Vec<String> = (0..k)
            .flat_map(|i| {
                [
                    format!("a{i}.c0, b{i}.c0, fp_mul_by_nonresidue(a{i}.c1), b{i}.c1"),
                    format!("a{i}.c0, b{i}.c1, a{i}.c1, b{i}.c0"),
                ]
            })
            .collect();
        let mut results = Vec::new();
        for (batch, chunk) in sums.chunks(MAX_SUM_BATCH).enumerate() {
            let call = if chunk.len() == 1 { "fp_mul_sum".to_string() } else { format!("fp_mul_sum_x{}", chunk.len()) };
            let _ = writeln!(out, "    let m{batch} = {call}({});", chunk.join(", "));
            for j in 0..chunk.len() {
                results.push(if chunk.len() == 1 { format!("m{batch}") } else { format!("m{batch}.r[{j}]") });
            }
        }
        let products: Vec<String> = results.chunks(2).map(|pair| format!("Field({}, {})", pair[0], pair[1])).collect();
        let _ = writeln!(out, "    return FieldX{k}(array<Field, {k}>({}));\n}}", products.join(", "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::base_namespace;

    #[test]
    fn base_names_move_into_the_fp_namespace() {
        let code = "struct FieldX2 { r: array<Field, 2> }\nfn field_mul_x2(a: Field) -> FieldX2 {}\n\
                    const FIELD_ONE = Field(array<u32, 2>(1u, 0u));\nfn words_below_p(w: Words) -> bool {}\n\
                    fn f(p: PackedField) -> Field { return field_mul(p, R2_MOD_P) + ARK_TO_MONT + LIMBS; }";
        assert_eq!(
            base_namespace(code),
            "struct FpX2 { r: array<Fp, 2> }\nfn fp_mul_x2(a: Fp) -> FpX2 {}\n\
             const FP_ONE = Fp(array<u32, 2>(1u, 0u));\nfn fp_words_below_p(w: FpWords) -> bool {}\n\
             fn f(p: PackedFp) -> Fp { return fp_mul(p, FP_R2_MOD_P) + FP_ARK_TO_MONT + LIMBS; }"
        );
    }
}
