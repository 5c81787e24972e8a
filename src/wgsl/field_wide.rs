//! Straight-line WGSL for one Montgomery field in 32-bit limbs with 64-bit products
//! ([`MulForm::Wide`](super::MulForm::Wide)), for devices with wgpu's `SHADER_INT64`.
//!
//! The functions have the same names and meaning as the 13-bit ones of [`super::field_gen`], so
//! the curve formulas and stages run unchanged on either. Carries travel in the high half of
//! `u64` sums: a 32×32-bit product plus two 32-bit words never exceeds 2^64 − 1.

use num_bigint::BigUint;

use crate::curve::CurveSpec;
use crate::limbs::{join_limbs, Montgomery};

use super::mont::{field_literal, mul_frame, mul_functions, Code, MulFrame};
use super::storage::StorageWords;

/// Reduction, addition, subtraction, multiplication, storage packing and the conversion of
/// uploaded words, for the field `f` (32-bit limbs) of `spec`, its multiplication `rounds`
/// Montgomery rounds per loop iteration (a divisor of the limb count; the count itself for
/// straight-line code).
pub(super) fn arithmetic(spec: &CurveSpec, f: &Montgomery, rounds: usize, batched: bool) -> String {
    let p = f.limbs_of(&f.modulus);
    let top = *p.last().expect("at least one limb");
    // The "no-carry" Montgomery multiplication below needs the top limb of p below 2^31 − 1:
    // then the running sum of each round fits N limbs (true of every pairing-friendly field).
    assert!(top < 0x7fff_ffff, "{}: p's top limb too large for the no-carry multiplication", spec.name);
    let n = f.limbs;
    let mut out = String::new();
    out += &reduce_once(&p);
    out += &add(n, "field_add", "field_reduce_once");
    out += &sub(&p);
    // See `lazy` in field_gen.rs.
    if f.takes_lazy_sums() {
        out += &add(n, "field_add_lazy", "");
        out += &sub_lazy(&p);
    } else {
        out += super::mont::LAZY_AS_REDUCED;
    }
    out += &mul_functions(n, rounds, batched, false, |rounds, k| mul_products(&p, rounds, k, false));
    // Operands below 2p where lazy sums are taken, else below p: the running value of a fused
    // sum stays below (b + d + p)(1 + 2^−31), which must stay below R.
    let operands: u32 = if f.takes_lazy_sums() { 5 } else { 3 };
    assert!(
        BigUint::from(operands) * &f.modulus * ((1u64 << 31) + 1) < (&f.r << 31u32),
        "{}: R leaves no room for fused sums",
        spec.name
    );
    out += &mul_functions(n, rounds, batched, true, |rounds, k| mul_products(&p, rounds, k, true));
    // Storage holds the value's words: a 9-limb field below 2^256 stores 8, its top limb 0.
    let storage = StorageWords::packed_field(f.storage_words());
    let words: Vec<String> = (0..storage.len()).map(|j| format!("a.l[{j}]")).collect();
    out += &format!("fn field_pack(a: Field) -> PackedField {{\n    return {};\n}}\n", storage.construct(&words));
    // Stored and uploaded words alike are the limbs, zero above the words.
    let limbs = |words: &StorageWords, value: &str| {
        field_literal((0..n).map(|j| if j < words.len() { words.word(value, j) } else { "0u".into() }), n)
    };
    out += &format!("fn field_unpack(p: PackedField) -> Field {{\n    return {};\n}}\n", limbs(&storage, "p"));
    let uploaded = StorageWords::uploaded(spec.base_words());
    out += &format!("fn field_from_words(w: Words) -> Field {{\n    return {};\n}}\n", limbs(&uploaded, "w"));
    out
}

/// `a − p − borrow` of limb `j` as a wrapped u64: the borrow out is its top bit.
fn minus_p(j: usize, a: &str, p: &[u32], x: char) -> String {
    let borrow = if j == 0 { String::new() } else { format!(" - ({x}{} >> 63u)", j - 1) };
    format!("let {x}{j} = u64({a}) - u64({}u){borrow};", p[j])
}

/// `field_reduce_once(r)`: r mod p for r < 2p.
fn reduce_once(p: &[u32]) -> String {
    let n = p.len();
    let mut c = Code::default();
    c.line(0, "// r mod p for r < 2p.");
    c.line(0, "fn field_reduce_once(r: Field) -> Field {");
    for j in 0..n {
        c.line(1, minus_p(j, &format!("r.l[{j}]"), p, 'x'));
    }
    c.line(1, format!("if (u32(x{} >> 63u) == 1u) {{ return r; }}", n - 1));
    c.line(1, format!("return {};", field_literal((0..n).map(|j| format!("u32(x{j})")), n)));
    c.line(0, "}");
    c.0
}

/// `fn name(a, b)`: a + b, passed to `reduce` (a function name, or empty for none): `field_add`
/// (a + b mod p) and `field_add_lazy` (a + b < 2p < R: no carry out of the top limb).
fn add(n: usize, name: &str, reduce: &str) -> String {
    carry_chain(name, n, |j| format!("u64(a.l[{j}]) + u64(b.l[{j}])"), "", reduce)
}

/// `field_sub_lazy(a, b)` = a + p − b for b ≤ p, not reduced (below 2p): one carry chain over
/// a + p + (R − 1 − b) + 1, whose carry out of the top limb (R) is dropped; `~b` is R − 1 − b
/// limb by limb. Each limb's sum stays below 2^34.
fn sub_lazy(p: &[u32]) -> String {
    let terms = |j: usize| format!("u64(a.l[{j}]) + u64(~b.l[{j}]) + u64({}u)", p[j]);
    carry_chain("field_sub_lazy", p.len(), terms, " + u64(1u)", "")
}

/// `fn name(a, b)` summing `terms(j)` limb by limb into u64 words `s{j}`, each taking the carry
/// of the one below (`carry_in` into the lowest), its limbs passed to `reduce` (or to none).
fn carry_chain(name: &str, n: usize, terms: impl Fn(usize) -> String, carry_in: &str, reduce: &str) -> String {
    let mut c = Code::default();
    c.line(0, format!("fn {name}(a: Field, b: Field) -> Field {{"));
    for j in 0..n {
        let carry = if j == 0 { carry_in.to_string() } else { format!(" + (s{} >> 32u)", j - 1) };
        c.line(1, format!("let s{j} = {}{carry};", terms(j)));
    }
    c.line(1, format!("return {reduce}({});", field_literal((0..n).map(|j| format!("u32(s{j})")), n)));
    c.line(0, "}");
    c.0
}

/// `field_sub(a, b)` = a − b mod p.
fn sub(p: &[u32]) -> String {
    let n = p.len();
    let mut c = Code::default();
    c.line(0, "fn field_sub(a: Field, b: Field) -> Field {");
    for j in 0..n {
        let borrow = if j == 0 { String::new() } else { format!(" - (d{} >> 63u)", j - 1) };
        c.line(1, format!("let d{j} = u64(a.l[{j}]) - u64(b.l[{j}]){borrow};"));
    }
    c.line(1, format!("if (u32(d{} >> 63u) == 0u) {{", n - 1));
    c.line(2, format!("return {};", field_literal((0..n).map(|j| format!("u32(d{j})")), n)));
    c.line(1, "}");
    c.line(1, "// Borrowed: add p back.");
    for (j, p_j) in p.iter().enumerate() {
        let carry = if j == 0 { String::new() } else { format!(" + (s{} >> 32u)", j - 1) };
        c.line(1, format!("let s{j} = u64(u32(d{j})) + u64({p_j}u){carry};"));
    }
    c.line(1, format!("return {};", field_literal((0..n).map(|j| format!("u32(s{j})")), n)));
    c.line(0, "}");
    c.0
}

/// `u64(m) · p_j` as WGSL, skipping the product for the limbs 0 and 1 that moduli often have.
fn m_times(p_j: u32) -> Option<String> {
    match p_j {
        0 => None,
        1 => Some("u64(m)".into()),
        _ => Some(format!("u64(m) * u64({p_j}u)")),
    }
}

/// `field_mul` (k = 1) or `field_mul_xK`: coarsely integrated operand scanning (CIOS) without
/// the extra top words ("no-carry", valid when p's top limb is below 2^31 − 1). Round i adds
/// a_i·b and m·p (m = t₀·MU, so the lowest word cancels) and shifts one word down; the result is
/// below 2p and reduced once. `rounds` rounds per loop iteration, as the 13-bit rolled form;
/// `rounds == n` is straight-line code.
///
/// With `sums`, `field_mul_sum` / `field_mul_sum_xK`: a·b + c·d with one reduction, round i
/// adding a_i·b + c_i·d + m·p through a second carry chain. Each word sum still fits 64 bits,
/// the running value stays below (b + d + p)(1 + 2^-31) < 4p (inputs below p), so it fits N
/// words when 4p ≤ R, and the result, (a·b + c·d + M·p)/R < p + 2p²/R, is below 2p.
fn mul_products(p: &[u32], rounds: usize, k: usize, sums: bool) -> String {
    let n = p.len();
    let round = |c: &mut Code, d: usize, r: usize, i: usize| {
        let ai = format!("u64(a{i}_{r})");
        let ci = format!("u64(c{i}_{r})");
        c.line(d, format!("var x = u64(t{i}_0) + {ai} * u64(b{i}.l[0]);"));
        c.line(d, "var hi = x >> 32u;");
        // The word m cancels: x's low word, plus c_i·d's when summing.
        let low = if sums {
            c.line(d, format!("var z = u64(u32(x)) + {ci} * u64(d{i}.l[0]);"));
            c.line(d, "var hz = z >> 32u;");
            "z"
        } else {
            "x"
        };
        c.line(d, format!("let m = u32({low}) * MU;"));
        let y0 = format!("u64(u32({low}))");
        c.line(d, format!("var y = {};", m_times(p[0]).map_or(y0.clone(), |mp| format!("{y0} + {mp}"))));
        for (j, &p_j) in p.iter().enumerate().skip(1) {
            c.line(d, format!("x = u64(t{i}_{j}) + {ai} * u64(b{i}.l[{j}]) + hi;"));
            c.line(d, "hi = x >> 32u;");
            if sums {
                c.line(d, format!("z = u64(u32(x)) + {ci} * u64(d{i}.l[{j}]) + hz;"));
                c.line(d, "hz = z >> 32u;");
            }
            let mp = m_times(p_j).map_or(String::new(), |mp| format!(" + {mp}"));
            c.line(d, format!("y = u64(u32({low})){mp} + (y >> 32u);"));
            c.line(d, format!("t{i}_{} = u32(y);", j - 1));
        }
        let carries = if sums { " + hi + hz" } else { " + hi" };
        c.line(d, format!("t{i}_{} = u32((y >> 32u){carries});", n - 1));
    };
    let finish = |_: &mut Code, i: usize| field_literal((0..n).map(|j| format!("t{i}_{j}")), n);
    mul_frame(MulFrame { n, rounds, k, accumulators: n, sums }, round, finish)
}

/// The product the generated multiplication computes, step for step on the CPU with every
/// 64-bit operation checked for overflow: the proof that its words fit. Inputs and output are
/// 32-bit Montgomery limbs below p.
pub fn mont_mul_wide(a: &[u32], b: &[u32], f: &Montgomery) -> Vec<u32> {
    cios_wide(a, b, None, f)
}

/// [`mont_mul_wide`] for the fused `field_mul_sum`: a·b + c·d, step for step as generated, every
/// 64-bit operation checked for overflow.
pub fn mont_mul_sum_wide(a: &[u32], b: &[u32], c: &[u32], d: &[u32], f: &Montgomery) -> Vec<u32> {
    cios_wide(a, b, Some((c, d)), f)
}

/// The steps of [`mul_products`]: a·b, plus c·d through the second carry chain when `sum` is
/// `Some((c, d))`.
fn cios_wide(a: &[u32], b: &[u32], sum: Option<(&[u32], &[u32])>, f: &Montgomery) -> Vec<u32> {
    let p = f.limbs_of(&f.modulus);
    let n = p.len();
    let add = |x: u64, y: u64| x.checked_add(y).expect("64-bit overflow");
    let mul = |x: u32, y: u32| x as u64 * y as u64;
    let mut t = vec![0u32; n];
    for i in 0..n {
        // Carries of the a_i·b chain, the c_i·d chain and the m·p chain (0 into word 0).
        let (mut hi, mut hz, mut y, mut m) = (0u64, 0u64, 0u64, 0u32);
        for j in 0..n {
            let x = add(add(t[j] as u64, mul(a[i], b[j])), hi);
            hi = x >> 32;
            let z = match sum {
                Some((c, d)) => {
                    let z = add(add(x as u32 as u64, mul(c[i], d[j])), hz);
                    hz = z >> 32;
                    z
                }
                None => x,
            };
            if j == 0 {
                m = (z as u32).wrapping_mul(f.mu);
                y = add(z as u32 as u64, mul(m, p[0]));
            } else {
                y = add(add(z as u32 as u64, mul(m, p[j])), y >> 32);
                t[j - 1] = y as u32;
            }
        }
        let top = add(add(y >> 32, hi), hz);
        assert!(top <= u32::MAX as u64, "top word overflow");
        t[n - 1] = top as u32;
    }
    let value = join_limbs(&t, 32);
    assert!(value < BigUint::from(2u32) * &f.modulus, "result below 2p");
    let reduced = if value >= f.modulus { value - &f.modulus } else { value };
    f.limbs_of(&reduced)
}
