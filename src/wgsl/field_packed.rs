//! The 13-bit form of hardware GPUs keeps field values packed: a `Field` is two 13-bit limbs
//! per u32 (15 words for a 30-limb field instead of 30; storage buffers hold the value's bits,
//! 12 words, converted at each load and store). Reduced additions and subtractions run on the
//! packed words ([`sums_and_differences`]); the multiplication reads `a`'s packed words
//! directly, takes `b`'s limbs out once, and packs its product before reducing it
//! ([`mul_packed_a`]); lazy sums and the storage conversions unpack into `Limbs` and run
//! [`super::field_gen`]'s limb code ([`limb_level`], [`packed_operations`]). A projective point
//! of a 30-limb field then holds 45 registers instead of 90, which is what a real GPU compiler
//! needs to fit the curve formulas and one multiplication's working set into its register
//! budget (`../shared/tools/gpu-isa-stats`; BENCHMARKS.md, "Registers on a real GPU compiler").
//! Software GPUs keep unpacked values ([`super::MulForm::packed_values`]): there the packing is
//! only extra instructions.

use std::fmt::Write;

use num_bigint::BigUint;

use crate::curve::CurveSpec;
use crate::limbs::{pack_limbs, Montgomery, LIMB_BITS, LIMB_MASK};

use super::mont::{field_literal, mont_finish_limbs, mont_round, Code, LAZY_AS_REDUCED};
use super::identifiers::rename_identifiers;

/// Renames the limb-level arithmetic generated for `Field`: the type `Field` becomes `Limbs`,
/// `FieldXK` stays (the batches are written on packed values), and every `field_*` function
/// becomes `limbs_*`. Identifiers are matched whole, so `PackedField` is left alone.
pub(super) fn limb_level(code: &str) -> String {
    rename_identifiers(code, |name| match name {
        "Field" => Some("Limbs".into()),
        _ => name.strip_prefix("field_").map(|rest| format!("limbs_{rest}")),
    })
}

/// [`limb_level`] of `code` when values are `packed`, else `code`.
pub(super) fn limb_level_if(packed: bool, code: &str) -> String {
    if packed {
        limb_level(code)
    } else {
        code.to_string()
    }
}

/// `value`'s packed words as WGSL literals (already in the form it is used in).
fn packed_words(value: &BigUint, f: &Montgomery) -> Vec<String> {
    pack_limbs(&f.limbs_of(value)).into_iter().map(|w| format!("{w}u")).collect()
}

/// A packed `Field` value of `value` (already in the form it is used in).
pub(super) fn packed_value(value: &BigUint, f: &Montgomery) -> String {
    let words = packed_words(value, f);
    let count = words.len();
    field_literal(words, count)
}

/// The types, the conversions between words and limbs, and the packed operations (`field_eq`
/// is field_gen's, over the packed words).
pub(super) fn packed_operations(spec: &CurveSpec, f: &Montgomery) -> String {
    let (n, words) = (spec.field.limbs, f.register_words());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// A value between operations: two limbs per u32 (even limb in the low half).\n\
         struct Field {{ w: array<u32, {words}> }}\n\
         // A value inside an operation: one 13-bit limb per u32.\n\
         struct Limbs {{ l: array<u32, {n}> }}"
    );
    let halves: Vec<String> = (0..n).map(|j| format!("a.w[{}] {}", j / 2, ["& 0xffffu", ">> 16u"][j % 2])).collect();
    let pairs: Vec<String> = (0..words).map(|k| format!("a.l[{}] | (a.l[{}] << 16u)", 2 * k, 2 * k + 1)).collect();
    let _ = writeln!(
        out,
        "fn limbs_of(a: Field) -> Limbs {{\n    return Limbs(array<u32, {n}>({}));\n}}\n\
         fn field_of(a: Limbs) -> Field {{\n    return Field(array<u32, {words}>({}));\n}}",
        halves.join(", "),
        pairs.join(", ")
    );
    // The multiplication's b: every limb feeds N multiply-adds. Taken out as 16-bit halves
    // (`& 0xffff`, `>> 16`), AMD's compiler folds each half into the multiplications as an
    // operand select (SDWA), which a multiply-add cannot take: every product then costs a
    // multiplication and an addition. 13-bit field extracts are not word selects, so each
    // limb is extracted once and every product is one multiply-add.
    let limbs: Vec<String> = (0..n)
        .map(|j| {
            let w = j / 2;
            if j % 2 == 0 {
                format!("a.w[{w}] & LIMB_MASK")
            } else {
                format!("extractBits(a.w[{w}], 16u, LIMB_BITS)")
            }
        })
        .collect();
    let _ = writeln!(
        out,
        "fn limbs_of_multiplier(a: Field) -> Limbs {{\n    return Limbs(array<u32, {n}>({}));\n}}\n\
         fn field_mul(a: Field, b: Field) -> Field {{\n    return field_mul_packed(a.w, limbs_of_multiplier(b));\n}}",
        limbs.join(", ")
    );
    out += &sums_and_differences(f);
    // Lazy sums only feed products, whose multiplier's limbs are taken out anyway. On packed
    // words they cost fewer instructions, but AMD's compiler then holds about a quarter more
    // registers in the curve formulas (a wave fewer per SIMD on bn254): they stay on limbs.
    if f.takes_lazy_sums() {
        for op in ["add_lazy", "sub_lazy"] {
            let _ = writeln!(
                out,
                "fn field_{op}(a: Field, b: Field) -> Field {{\n    return field_of(limbs_{op}(limbs_of(a), limbs_of(b)));\n}}"
            );
        }
    } else {
        out += LAZY_AS_REDUCED;
    }
    // Storage holds the value's words (field_gen's pack and unpack, at the limb level).
    let _ = writeln!(
        out,
        "fn field_from_words(w: Words) -> Field {{\n    return field_of(limbs_from_words(w));\n}}\n\
         fn field_pack(a: Field) -> PackedField {{\n    return limbs_pack(limbs_of(a));\n}}\n\
         fn field_unpack(p: PackedField) -> Field {{\n    return field_of(limbs_unpack(p));\n}}"
    );
    out
}

/// `field_mul_packed(a, b)`: the Montgomery multiplication of [`super::field_gen`] with `a`
/// kept packed, its words shifting down as the loop consumes two limbs from each (`words` per
/// iteration), so it holds half the registers `a`'s limbs would; `b` is unpacked
/// (`limbs_of_multiplier`). The product's limbs are packed before its reduction, which then runs
/// on words ([`sums_and_differences`]).
pub(super) fn mul_packed_a(p: &[u32], words: usize) -> String {
    let n = p.len();
    let all = n / 2;
    assert!(
        n.is_multiple_of(2) && words > 0 && all.is_multiple_of(words),
        "{words} words per iteration must divide {all}"
    );
    let mut c = Code::default();
    c.line(0, format!("fn field_mul_packed(a0: array<u32, {all}>, b0: Limbs) -> Field {{"));
    for k in 0..all {
        c.line(1, format!("var w{k}: u32 = a0[{k}];"));
    }
    for j in 0..n - 1 {
        c.line(1, format!("var t0_{j}: u32 = 0u;"));
    }
    // Break at the bottom, as in the unpacked form (the loop budget counts back-edges).
    c.line(1, "var k = 0u;");
    c.line(1, "loop {");
    for q in 0..words {
        for (half, limb) in [("& 0xffffu", "low"), (">> 16u", "high")] {
            c.line(2, format!("{{ // the {limb} limb of word {q}"));
            c.line(3, format!("let limb = w{q} {half};"));
            mont_round(&mut c, 3, "limb", 0, p);
            c.line(2, "}");
        }
    }
    c.line(2, format!("// Next {words} words of a."));
    for j in 0..all - words {
        c.line(2, format!("w{j} = w{};", j + words));
    }
    c.line(2, format!("k = k + {}u;", 2 * words));
    c.line(2, "if (k >= LIMBS) { break; }");
    c.line(1, "}");
    let limbs = mont_finish_limbs(&mut c, 0, n);
    let pairs = limbs.chunks(2).map(|l| format!("({}) | (({}) << 16u)", l[0], l[1]));
    c.line(1, format!("return field_reduce_once({});", field_literal(pairs, all)));
    c.line(0, "}");
    c.0
}

/// The reduced additions and subtractions on packed words, never unpacked: `field_reduce_once`,
/// `field_add` and `field_sub`.
///
/// A word holds limbs 2k and 2k + 1 in its two 16-bit halves. Adding two words of normalized
/// limbs (below 2^13) and a carry leaves each half below 2^15, so one word carries both its
/// limbs: the low limb's carry (bits 13–15) is added into the high half, whose own carry (bits
/// 29–31) goes to the next word, and one mask clears both halves' carries. Subtraction adds the
/// complement (each limb 2^13 − 1 − b, with 1 carried in), and comparing with p adds 2^N − p:
/// the carry out of the top word tells the sign. Each word then costs about five instructions
/// per chain where an unpacked limb costs three (and unpacking and packing the words are gone).
pub(super) fn sums_and_differences(f: &Montgomery) -> String {
    let n = f.limbs;
    let words = n / 2;
    assert!(n.is_multiple_of(2), "packed values pair their limbs");
    let p = packed_words(&f.modulus, f);
    // 2^N − p: r + (2^N − p) carries out of the top word exactly when r ≥ p.
    let complement = packed_words(&((BigUint::from(1u32) << (n * LIMB_BITS as usize)) - &f.modulus), f);
    let literal = |v: &str| field_literal((0..words).map(|k| format!("{v}{k} & LIMB_PAIR_MASK")), words);
    let carry_out = |v: &str| format!("({v}{} >> HIGH_LIMB_CARRY)", words - 1);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Both limbs' masks in a packed word, and where its high limb's carry starts.
         const LIMB_PAIR_MASK: u32 = {:#x}u;
         const HIGH_LIMB_CARRY: u32 = {}u;",
        (LIMB_MASK << 16) | LIMB_MASK,
        16 + LIMB_BITS
    );
    let mut c = Code::default();
    c.line(0, "// r mod p for r < 2p.");
    c.line(0, "fn field_reduce_once(r: Field) -> Field {");
    carry_chain(&mut c, "s", words, |k| format!("r.w[{k}] + {}", complement[k]), "");
    c.line(1, format!("let at_least_p = {} == 1u;", carry_out("s")));
    let kept = (0..words).map(|k| format!("select(r.w[{k}], s{k} & LIMB_PAIR_MASK, at_least_p)"));
    c.line(1, format!("return {};", field_literal(kept, words)));
    c.line(0, "}");

    c.line(0, "fn field_add(a: Field, b: Field) -> Field {");
    carry_chain(&mut c, "s", words, |k| format!("a.w[{k}] + b.w[{k}]"), "");
    c.line(1, format!("return field_reduce_once({});", literal("s")));
    c.line(0, "}");

    c.line(0, "fn field_sub(a: Field, b: Field) -> Field {");
    carry_chain(&mut c, "d", words, |k| format!("a.w[{k}] + (b.w[{k}] ^ LIMB_PAIR_MASK)"), " + 1u");
    c.line(1, "// All ones when a < b (no carry out): add p back; else 0, which adds nothing.");
    c.line(1, format!("let p_mask = {} - 1u;", carry_out("d")));
    carry_chain(&mut c, "s", words, |k| format!("(d{k} & LIMB_PAIR_MASK) + ({} & p_mask)", p[k]), "");
    c.line(1, format!("return {};", literal("s")));
    c.line(0, "}");
    out += &c.0;
    out
}

/// One carry chain over packed words: `{v}{k}` is word k's sum `word(k)` plus the carry from
/// word k − 1 (`first_carry` for word 0), its low limb's carry moved into the high half; its
/// limbs are `{v}{k} & LIMB_PAIR_MASK`, its carry out `{v}{k} >> HIGH_LIMB_CARRY`. Each half of
/// a sum must stay below 2^16 − 2^13 (three normalized limbs and a carry of 2 do).
fn carry_chain(c: &mut Code, v: &str, words: usize, word: impl Fn(usize) -> String, first_carry: &str) {
    for k in 0..words {
        let carry = if k == 0 { first_carry.to_string() } else { format!(" + ({v}{} >> HIGH_LIMB_CARRY)", k - 1) };
        c.line(1, format!("let {v}{k}_sum = {}{carry};", word(k)));
        c.line(1, format!("let {v}{k} = {v}{k}_sum + (extractBits({v}{k}_sum, LIMB_BITS, 3u) << 16u);"));
    }
}

#[cfg(test)]
mod tests {
    use super::limb_level;

    /// Whole identifiers are renamed: `Field` and `field_*`, not `PackedField`, `FieldX2` or a
    /// name that merely contains them.
    #[test]
    fn limb_level_renames_whole_identifiers() {
        let code = "fn field_add(a: Field, b: Field) -> Field { return field_reduce_once(Field(x)); }\n\
                    fn f(p: PackedField, q: FieldX2, my_field_x: u32) -> Field {}";
        assert_eq!(
            limb_level(code),
            "fn limbs_add(a: Limbs, b: Limbs) -> Limbs { return limbs_reduce_once(Limbs(x)); }\n\
             fn f(p: PackedField, q: FieldX2, my_field_x: u32) -> Limbs {}"
        );
    }
}
