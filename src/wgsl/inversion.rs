//! `field_inv(a)` = a⁻¹ = a^(p−2) (Fermat), for batch-affine bucket accumulation.
//!
//! A left-to-right sliding-window exponentiation with the odd powers a, a³, …, a^15. The
//! schedule (squarings, then which odd power to multiply by) is computed here from p and
//! emitted as constants that one short WGSL loop (`field_inv` in `shaders/field.wgsl`) walks:
//! few call sites of `field_mul`, so the shader stays small, and every thread runs the same
//! sequence (no divergence).

use num_bigint::BigUint;

use crate::limbs::Montgomery;

/// Window width of the sliding-window exponentiation (odd powers up to 2^WINDOW − 1).
const WINDOW: usize = 4;

/// One step of the schedule: square `squarings` times, then multiply by a^`power` (odd).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct InvStep {
    squarings: u32,
    power: u32,
}

/// The first odd power and the steps that raise a to `exponent`.
fn schedule(exponent: &BigUint) -> (u32, Vec<InvStep>) {
    let bits: Vec<bool> = (0..exponent.bits()).map(|i| exponent.bit(i)).collect();
    let mut i = bits.len() as i64 - 1;
    let mut first = None;
    let mut steps = Vec::new();
    let mut pending = 0u32;
    while i >= 0 {
        if !bits[i as usize] {
            pending += 1;
            i -= 1;
            continue;
        }
        // The longest window [i − l + 1, i] (l ≤ WINDOW) whose lowest bit is set.
        let mut l = (WINDOW as i64).min(i + 1);
        while !bits[(i - l + 1) as usize] {
            l -= 1;
        }
        let value = (0..l).fold(0u32, |v, k| (v << 1) | bits[(i - k) as usize] as u32);
        match first {
            None => first = Some(value),
            Some(_) => steps.push(InvStep { squarings: pending + l as u32, power: value }),
        }
        pending = 0;
        i -= l;
    }
    if pending > 0 {
        // Trailing zeros: squarings only.
        steps.push(InvStep { squarings: pending, power: 0 });
    }
    (first.expect("exponent is not zero"), steps)
}

/// Field multiplications of one `field_inv` (squarings included): the cost model's unit.
pub fn inversion_muls(field: &Montgomery) -> u64 {
    let (_, steps) = schedule(&(&field.modulus - 2u32));
    let precompute = 1 + (1 << (WINDOW - 1)) - 1; // a², then a³ … a^15
    let loop_muls: u64 = steps.iter().map(|s| s.squarings as u64 + (s.power != 0) as u64).sum();
    precompute as u64 + loop_muls
}

/// The constants `field_inv` in `shaders/field.wgsl` walks for the field `field`: the odd powers
/// to precompute, the first one, and the schedule (per step: squarings << 4 | odd power to
/// multiply by, 0 for none) for the exponent p − 2.
pub fn inversion_constants(field: &Montgomery) -> String {
    let (first, steps) = schedule(&(&field.modulus - 2u32));
    let table: Vec<String> = steps.iter().map(|s| format!("{}u", (s.squarings << 4) | s.power)).collect();
    format!(
        "// field_inv's schedule for a^(p − 2) (src/wgsl/inversion.rs).\n\
         const INV_ODD_POWERS: u32 = {}u;\n\
         const INV_FIRST_POWER: u32 = {first}u;\n\
         const INV_STEP_COUNT: u32 = {}u;\n\
         const INV_STEPS = array<u32, {}>({});\n",
        1u32 << (WINDOW - 1),
        steps.len(),
        steps.len(),
        table.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replays the schedule on integers: it must compute a^e for the exponent it came from.
    #[test]
    fn schedule_computes_the_exponent() {
        for e in [BigUint::from(1u32), BigUint::from(2u32), BigUint::from(0b1011_0000u32), BigUint::from(u64::MAX)]
            .into_iter()
            .chain([(BigUint::from(1u32) << 127u32) - 3u32])
        {
            let (first, steps) = schedule(&e);
            let mut exp = BigUint::from(first);
            for s in steps {
                exp <<= s.squarings as usize;
                exp += s.power;
            }
            assert_eq!(exp, e);
        }
    }
}
