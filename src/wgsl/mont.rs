//! The pieces of generated Montgomery arithmetic that every field module shares: WGSL line
//! collection, `Field` literals, the frame of a generated multiplication (its signature, limb
//! variables, loop and batches) and one 13-bit Montgomery round. [`super::field_gen`] (13-bit
//! limbs), [`super::field_wide`] (32-bit limbs), [`super::field_packed`] (packed 13-bit values)
//! and [`super::fp2`] build on them; this module imports none of them, so each of those can be
//! read without the others.

use std::fmt::Write;

/// Collects WGSL lines.
#[derive(Default)]
pub(super) struct Code(pub(super) String);

impl Code {
    pub(super) fn line(&mut self, indent: usize, text: impl AsRef<str>) {
        let _ = writeln!(self.0, "{:width$}{}", "", text.as_ref(), width = indent * 4);
    }
}

/// `Field(array<u32, N>(a, b, …))` from limb expressions.
pub(super) fn field_literal(limbs: impl IntoIterator<Item = String>, n: usize) -> String {
    let parts: Vec<String> = limbs.into_iter().collect();
    format!("Field(array<u32, {n}>({}))", parts.join(", "))
}


/// `field_add_lazy` and `field_sub_lazy` where a field takes no unreduced operands
/// ([`crate::limbs::Montgomery::takes_lazy_sums`]) or an extension's products add their operands'
/// coordinates: `field_add` and `field_sub`.
pub(super) const LAZY_AS_REDUCED: &str = "\
fn field_add_lazy(a: Field, b: Field) -> Field {
    return field_add(a, b);
}

fn field_sub_lazy(a: Field, b: Field) -> Field {
    return field_sub(a, b);
}
";


/// `field_mul` and `field_mul_xK` (K ≤ [`MAX_BATCH`]) of either limb width, or with `sums`
/// `field_mul_sum` and `field_mul_sum_xK` (K ≤ [`MAX_SUM_BATCH`]); `generate(rounds, k)`
/// generates one of them. Rolled (`rounds < n`) and `batched`: each batch is its own function,
/// one loop advancing all its products. Otherwise: one function, and the batches call it K
/// times (drivers inline the calls; the WGSL stays small).
pub(super) fn mul_functions(
    n: usize,
    rounds: usize,
    batched: bool,
    sums: bool,
    generate: impl Fn(usize, usize) -> String,
) -> String {
    assert!(rounds > 0 && rounds <= n && n.is_multiple_of(rounds), "rounds must divide the {n} limbs");
    if rounds < n && batched {
        let most = if sums { MAX_SUM_BATCH } else { MAX_BATCH };
        return (1..=most).map(|k| generate(rounds, k)).collect();
    }
    generate(rounds, 1) + &batches_as_calls(sums)
}

/// The parameters of product `i` of a generated multiplication: `a{i}: Field, b{i}: Field`,
/// then `c{i}: Field, d{i}: Field` for a sum of two products.
pub(super) fn product_params(i: usize, sums: bool) -> String {
    let operands: &[char] = if sums { &['a', 'b', 'c', 'd'] } else { &['a', 'b'] };
    operands.iter().map(|x| format!("{x}{i}: Field")).collect::<Vec<_>>().join(", ")
}

/// `field_mul_xK` for K = 2..=MAX_BATCH as K calls of `field_mul` (with their `FieldXK` types),
/// or with `sums` `field_mul_sum_xK` for K = 2..=MAX_SUM_BATCH as K calls of `field_mul_sum`.
pub(super) fn batches_as_calls(sums: bool) -> String {
    let (name, most) = if sums { ("field_mul_sum", MAX_SUM_BATCH) } else { ("field_mul", MAX_BATCH) };
    let mut out = String::new();
    for k in 2..=most {
        let params: Vec<String> = (0..k).map(|i| product_params(i, sums)).collect();
        let calls: Vec<String> = (0..k)
            .map(|i| {
                let args = if sums { format!("a{i}, b{i}, c{i}, d{i}") } else { format!("a{i}, b{i}") };
                format!("{name}({args})")
            })
            .collect();
        if !sums {
            let _ = writeln!(out, "struct FieldX{k} {{ r: array<Field, {k}> }}");
        }
        out += &format!(
            "fn {name}_x{k}({}) -> FieldX{k} {{\n    return FieldX{k}(array<Field, {k}>({}));\n}}\n",
            params.join(", "),
            calls.join(", ")
        );
    }
    out
}

/// Largest number of sums of two products one `field_mul_sum_xK` call computes.
pub(super) const MAX_SUM_BATCH: usize = 3;

/// Largest number of independent products one `field_mul_xK` call computes.
pub(super) const MAX_BATCH: usize = 6;


/// One round of the 13-bit Montgomery multiplication of product `i` for the modulus limbs `p`:
/// adds `a·b` for the limb `a` (an expression) and `m·p`, and shifts the accumulators `t{i}_*`
/// down one limb. The modulus is spelled out ([`m_times_limb`]): BLS12-377's p has 5 zero limbs
/// of 30 and a limb 1, its scalar field (ed-on-bls12-377's base) 4 of 20 and a 1.
pub(super) fn mont_round(c: &mut Code, d: usize, a: &str, i: usize, p: &[u32]) {
    let n = p.len();
    c.line(d, format!("let x = t{i}_0 + {a} * b{i}.l[0];"));
    c.line(d, "let m = (x * MU) & LIMB_MASK;");
    let low = m_times_limb("m", p[0]).expect("p is odd");
    c.line(d, format!("let carry = (x + {low}) >> LIMB_BITS;"));
    for (j, &p_j) in p.iter().enumerate().skip(1) {
        let prev = if j < n - 1 { format!("t{i}_{j} + ") } else { String::new() };
        let mp = m_times_limb("m", p_j).map_or(String::new(), |mp| format!(" + {mp}"));
        let carry = if j == 1 { " + carry" } else { "" };
        c.line(d, format!("t{i}_{} = {prev}{a} * b{i}.l[{j}]{mp}{carry};", j - 1));
    }
}

/// `m · p_j` for a modulus limb `p_j` as WGSL: none for 0, `m` for 1, else the product by the
/// literal.
pub(super) fn m_times_limb(m: &str, p_j: u32) -> Option<String> {
    match p_j {
        0 => None,
        1 => Some(m.to_string()),
        _ => Some(format!("{m} * {p_j}u")),
    }
}

/// After the last round: resolves the accumulators' carries; returns product `i` as a literal
/// (below 2p).
pub(super) fn mont_finish(c: &mut Code, i: usize, n: usize) -> String {
    let limbs = mont_finish_limbs(c, i, n);
    field_literal(limbs, n)
}

/// [`mont_finish`]'s carries, returning the product's `n` normalized limbs as expressions.
pub(super) fn mont_finish_limbs(c: &mut Code, i: usize, n: usize) -> Vec<String> {
    for j in 0..n - 1 {
        let carry = if j == 0 { String::new() } else { format!(" + (u{i}_{} >> LIMB_BITS)", j - 1) };
        c.line(1, format!("let u{i}_{j} = t{i}_{j}{carry};"));
    }
    let mut limbs: Vec<String> = (0..n - 1).map(|j| format!("u{i}_{j} & LIMB_MASK")).collect();
    limbs.push(format!("u{i}_{} >> LIMB_BITS", n - 2));
    limbs
}

/// Opens `field_mul` (k = 1) or `field_mul_xK` with its `FieldXK` type, or with `sums`
/// `field_mul_sum` / `field_mul_sum_xK` (whose types the plain batches declare).
pub(super) fn open_mul(c: &mut Code, k: usize, sums: bool) {
    let params: Vec<String> = (0..k).map(|i| product_params(i, sums)).collect();
    let name = if sums { "field_mul_sum" } else { "field_mul" };
    if k == 1 {
        c.line(0, format!("fn {name}({}) -> Field {{", params.join(", ")));
    } else {
        if !sums {
            c.line(0, format!("struct FieldX{k} {{ r: array<Field, {k}> }}"));
        }
        c.line(0, format!("fn {name}_x{k}({}) -> FieldX{k} {{", params.join(", ")));
    }
}

/// Returns the products' `results` (one `Field`, or a `FieldXK`) and closes the function.
pub(super) fn close_mul(c: &mut Code, results: &[String]) {
    match results {
        [one] => c.line(1, format!("return {one};")),
        _ => c.line(1, format!("return FieldX{k}(array<Field, {k}>({}));", results.join(", "), k = results.len())),
    }
    c.line(0, "}");
}

/// The shape of a generated multiplication: limbs, rounds per loop iteration, products,
/// accumulator words per product, and whether each "product" is a fused sum a·b + c·d.
pub(super) struct MulFrame {
    pub(super) n: usize,
    pub(super) rounds: usize,
    pub(super) k: usize,
    pub(super) accumulators: usize,
    pub(super) sums: bool,
}

/// The frame both limb widths' `field_mul` / `field_mul_xK` share (and the wide form's
/// `field_mul_sum` / `field_mul_sum_xK` when `sums`: a{i}·b{i} + c{i}·d{i}): the signature,
/// each a's (and c's) limbs as variables and zeroed accumulators `t{i}_{j}`, then rounds:
/// `round(code, indent, r, i)` emits round r of product i inside its own block; with
/// `rounds < n` they sit in a loop that shifts the limb variables down by `rounds` per
/// iteration (no runtime-indexed arrays). Last, `finish(code, i)` emits product i's final
/// statements and returns its value (below 2p), which is reduced once.
pub(super) fn mul_frame(
    frame: MulFrame,
    round: impl Fn(&mut Code, usize, usize, usize),
    finish: impl Fn(&mut Code, usize) -> String,
) -> String {
    let MulFrame { n, rounds, k, accumulators, sums } = frame;
    let scanned: &[char] = if sums { &['a', 'c'] } else { &['a'] };
    let mut c = Code::default();
    open_mul(&mut c, k, sums);
    for i in 0..k {
        for x in scanned {
            for j in 0..n {
                c.line(1, format!("var {x}{i}_{j}: u32 = {x}{i}.l[{j}];"));
            }
        }
        for j in 0..accumulators {
            c.line(1, format!("var t{i}_{j}: u32 = 0u;"));
        }
    }
    let looped = rounds < n;
    let body = if looped { 2 } else { 1 };
    if looped {
        // Break at the bottom: every back-edge counts against the loop budget.
        c.line(1, "var k = 0u;");
        c.line(1, "loop {");
    }
    for r in 0..rounds {
        for i in 0..k {
            c.line(body, "{");
            round(&mut c, body + 1, r, i);
            c.line(body, "}");
        }
    }
    if looped {
        let limbs = if sums { "a and c" } else { "a" };
        c.line(2, format!("// Next {rounds} limbs of each {limbs}."));
        for i in 0..k {
            for x in scanned {
                for j in 0..n - rounds {
                    c.line(2, format!("{x}{i}_{j} = {x}{i}_{};", j + rounds));
                }
            }
        }
        c.line(2, format!("k = k + {rounds}u;"));
        c.line(2, "if (k >= LIMBS) { break; }");
        c.line(1, "}");
    }
    let results: Vec<String> = (0..k).map(|i| format!("field_reduce_once({})", finish(&mut c, i))).collect();
    close_mul(&mut c, &results);
    c.0
}

