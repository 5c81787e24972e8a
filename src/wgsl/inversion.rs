//! `field_inv(a)` = a⁻¹ = a^(p−2) (Fermat): bases normalized after conversion, precomputed
//! multiples.
//!
//! Left to right over the exponent's 2-bit digits: two squarings per digit, then a product by a, a²
//! or a³ for a digit that is not zero. The exponent's 32-bit words are generated here from p as one
//! WGSL function (`inv_exponent_word`, a `switch` of literals), which one short loop in
//! `shaders/field_prime.wgsl` walks: few call sites of `field_mul`, no array indexed at run time (a
//! table of odd powers and a constant schedule indexed by the loop costs a software GPU 1–1.5 s
//! of compilation per kernel and real GPUs scratch memory), and every thread runs the
//! same sequence (no divergence).

use crate::limbs::Montgomery;

/// Bits per digit of the exponentiation (the powers a … a^(2^DIGIT_BITS − 1) are kept).
const DIGIT_BITS: u32 = 2;

/// The exponent p − 2 in 32-bit words, least significant first.
fn exponent_words(field: &Montgomery) -> Vec<u32> {
    (&field.modulus - 2u32).to_u32_digits()
}

/// Field multiplications of one `field_inv` (squarings included): the cost model's unit.
pub fn inversion_muls(field: &Montgomery) -> u64 {
    let words = exponent_words(field);
    let digits = words.len() as u64 * (32 / DIGIT_BITS) as u64;
    let nonzero = words
        .iter()
        .flat_map(|&w| (0..32 / DIGIT_BITS).map(move |k| (w >> (k * DIGIT_BITS)) & ((1 << DIGIT_BITS) - 1)))
        .filter(|&digit| digit != 0)
        .count() as u64;
    2 + digits * DIGIT_BITS as u64 + nonzero
}

/// What `field_inv` in `shaders/field_prime.wgsl` walks for the field `field`: the number of
/// 32-bit words of p − 2, and each word by index.
pub fn inversion_constants(field: &Montgomery) -> String {
    let words = exponent_words(field);
    let cases: String =
        words.iter().enumerate().map(|(i, w)| format!("        case {i}u: {{ return 0x{w:08x}u; }}\n")).collect();
    format!(
        "// field_inv's exponent p − 2, in 32-bit words (src/wgsl/inversion.rs).\n\
         const INV_EXPONENT_WORDS: u32 = {}u;\n\
         fn inv_exponent_word(i: u32) -> u32 {{\n    switch i {{\n{cases}        default: {{ return 0u; }}\n    }}\n}}\n",
        words.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::registry::CurveId;
    use num_bigint::BigUint;

    /// Replays `field_inv`'s loop on integers: it must raise a to p − 2, for every field.
    #[test]
    fn the_digits_rebuild_the_exponent() {
        for curve in CurveId::ALL {
            let field = &curve.spec().field;
            let words = exponent_words(field);
            let mut exponent = BigUint::from(0u32);
            for &word in words.iter().rev() {
                for shift in (0..32 / DIGIT_BITS).rev() {
                    exponent <<= DIGIT_BITS as usize;
                    exponent += (word >> (shift * DIGIT_BITS)) & ((1 << DIGIT_BITS) - 1);
                }
            }
            assert_eq!(exponent, &field.modulus - 2u32, "{curve:?}");
            let code = inversion_constants(field);
            assert!(code.contains(&format!("const INV_EXPONENT_WORDS: u32 = {}u;", words.len())), "{code}");
        }
    }
}
