//! `field_inv(a)` = a⁻¹ = a^(p−2) (Fermat), for batch-affine bucket accumulation.
//!
//! A left-to-right sliding-window exponentiation with the odd powers a, a³, …, a^15. The
//! schedule (squarings, then which odd power to multiply by) is computed here from p and
//! emitted as a constant table that one short WGSL loop walks: few call sites of `field_mul`,
//! so the shader stays small, and every thread runs the same sequence (no divergence).

use std::fmt::Write;

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

/// WGSL of `field_inv(a)` for the field `field` (needs `field_mul`; `field_inv(0)` is 0).
pub fn inversion(field: &Montgomery) -> String {
    let (first, steps) = schedule(&(&field.modulus - 2u32));
    let table: Vec<String> = steps.iter().map(|s| format!("{}u", (s.squarings << 4) | s.power)).collect();
    let odd = 1usize << (WINDOW - 1);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// field_inv's schedule (src/wgsl/inversion.rs): per step, squarings << 4 | odd power\n\
         // to multiply by (0: none), for the exponent p − 2.\n\
         const INV_STEPS = array<u32, {}>({});",
        steps.len(),
        table.join(", ")
    );
    let _ = writeln!(out, "fn field_inv(a: Field) -> Field {{");
    let _ = writeln!(out, "    let a2 = field_mul(a, a);");
    let _ = writeln!(out, "    var powers: array<Field, {odd}>;");
    let _ = writeln!(out, "    powers[0] = a;");
    let _ = writeln!(out, "    for (var k = 1u; k < {odd}u; k = k + 1u) {{");
    let _ = writeln!(out, "        powers[k] = field_mul(powers[k - 1u], a2);");
    let _ = writeln!(out, "    }}");
    let _ = writeln!(out, "    var r = powers[{}];", first / 2);
    let _ = writeln!(out, "    for (var i = 0u; i < {}u; i = i + 1u) {{", steps.len());
    let _ = writeln!(out, "        let step = INV_STEPS[i];");
    let _ = writeln!(out, "        for (var s = 0u; s < (step >> 4u); s = s + 1u) {{");
    let _ = writeln!(out, "            r = field_mul(r, r);");
    let _ = writeln!(out, "        }}");
    let _ = writeln!(out, "        let power = step & 15u;");
    let _ = writeln!(out, "        if (power != 0u) {{");
    let _ = writeln!(out, "            r = field_mul(r, powers[power / 2u]);");
    let _ = writeln!(out, "        }}");
    let _ = writeln!(out, "    }}");
    let _ = writeln!(out, "    return r;");
    let _ = writeln!(out, "}}");
    out
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
