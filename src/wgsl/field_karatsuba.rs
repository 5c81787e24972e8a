//! The 13-bit Montgomery multiplication of software GPUs on 20-limb fields (bn254,
//! ed-on-bls12-377): a one-level Karatsuba product, then the Montgomery reduction of
//! [`super::field_gen`]'s rounds without their `a_i·b` products.
//!
//! With h = N/2, a = a₀ + a₁·2^(13h) and b likewise, the product's coefficients (unnormalized:
//! sums of limb products, carries resolved only at the end) are
//!   z₀ = a₀·b₀, z₂ = a₁·b₁, z₁ = (a₀ + a₁)·(b₀ + b₁) − z₀ − z₂,
//!   c_q = z₀[q] + z₁[q − h] + z₂[q − 2h],
//! 3·h² limb products instead of N². Coefficient by coefficient, z₁ is the sum of the cross
//! products a₀ᵢ·b₁ⱼ + a₁ᵢ·b₀ⱼ, so the subtraction never goes below zero.
//!
//! Bounds (limbs below 2^13, N ≤ 30; `cpu_model::mont_mul_karatsuba_limbs` runs the same steps
//! with overflow checks): a sum of halves is below 2^14, so (a₀ + a₁)·(b₀ + b₁)'s coefficients
//! are below h·2^28 ≤ 15·2^28 < 2^32; each c_q is below N·2^26; the reduction then adds at most
//! N products m·p_j below 2^26 to each coefficient, as the schoolbook form does, so every
//! accumulator stays below 2N·2^26 + 2^19 < 2^32.
//!
//! The reduction consumes the product from a window of N − 1 accumulators (coefficients
//! i … i + N − 2 in round i) fed from the top by the coefficients c_{N−1} … c_{2N−2}, kept in
//! variables that shift down by `rounds` per loop iteration like `a`'s limbs in the schoolbook
//! form. Measured on SwiftShader and on a real GPU compiler (BENCHMARKS.md): it pays only
//! where registers are free and the field is small, see [`karatsuba_pays`].

use super::field_gen::{mont_finish, Code};

/// Whether `field_mul` uses this form: on software GPUs (products batched) for fields of at
/// most 20 limbs. Native SwiftShader at 2^14: bn254 and ed-on-bls12-377 warm calls −8 to −10%;
/// bls12-377 (30 limbs) no faster, its first compile 31% slower. On navi21 (ACO) it removes
/// 6–13% of a multiplication's instructions but keeps 2N − 1 coefficients live: bn254's
/// accumulation 144 → 208 VGPRs, the BLS kernels spill again; hardware GPUs keep the
/// schoolbook form.
pub(super) fn karatsuba_pays(limbs: usize, batched: bool) -> bool {
    batched && limbs <= 20
}

/// `field_mul` (k = 1) or `field_mul_xK` (k independent products, returned as `FieldXK`): each
/// product's Karatsuba coefficients in straight-line code, then the reduction, `rounds`
/// rounds per loop iteration with all k products advancing together (`rounds == n`: no loop).
pub(super) fn mul_products(n: usize, rounds: usize, k: usize) -> String {
    assert!(n.is_multiple_of(2) && n.is_multiple_of(rounds), "even limbs, rounds dividing them");
    let mut c = Code::default();
    let params: Vec<String> = (0..k).map(|i| format!("a{i}: Field, b{i}: Field")).collect();
    if k == 1 {
        c.line(0, format!("fn field_mul({}) -> Field {{", params.join(", ")));
    } else {
        c.line(0, format!("struct FieldX{k} {{ r: array<Field, {k}> }}"));
        c.line(0, format!("fn field_mul_x{k}({}) -> FieldX{k} {{", params.join(", ")));
    }
    for i in 0..k {
        product(&mut c, n, i);
    }
    let looped = rounds < n;
    let body = if looped { 2 } else { 1 };
    if looped {
        // Break at the bottom: llvmpipe counts every back-edge against a per-invocation budget.
        c.line(1, "var k = 0u;");
        c.line(1, "loop {");
    }
    for r in 0..rounds {
        for i in 0..k {
            c.line(body, "{");
            reduction_round(&mut c, body + 1, i, r, n);
            c.line(body, "}");
        }
    }
    if looped {
        c.line(2, format!("// Next {rounds} coefficients of each product."));
        for i in 0..k {
            for j in 0..n - rounds {
                c.line(2, format!("f{i}_{j} = f{i}_{};", j + rounds));
            }
        }
        c.line(2, format!("k = k + {rounds}u;"));
        c.line(2, "if (k >= LIMBS) { break; }");
        c.line(1, "}");
    }
    let results: Vec<String> = (0..k).map(|i| format!("field_reduce_once({})", mont_finish(&mut c, i, n))).collect();
    if k == 1 {
        c.line(1, format!("return {};", results[0]));
    } else {
        c.line(1, format!("return FieldX{k}(array<Field, {k}>({}));", results.join(", ")));
    }
    c.line(0, "}");
    c.0
}

/// Product `i`'s coefficients: the window `t{i}_0 … t{i}_{n−2}` (c_0 … c_{n−2}) and the feed
/// `f{i}_0 … f{i}_{n−1}` (c_{n−1} … c_{2n−2}).
fn product(c: &mut Code, n: usize, i: usize) {
    let h = n / 2;
    let a = |j: usize| format!("a{i}.l[{j}]");
    let b = |j: usize| format!("b{i}.l[{j}]");
    for j in 0..h {
        c.line(1, format!("let sa{i}_{j} = {} + {};", a(j), a(h + j)));
        c.line(1, format!("let sb{i}_{j} = {} + {};", b(j), b(h + j)));
    }
    // Coefficient q of the product of two h-limb operands: Σ x_u·y_(q−u).
    let convolution = |x: &dyn Fn(usize) -> String, y: &dyn Fn(usize) -> String, q: usize| {
        let terms: Vec<String> =
            (q.saturating_sub(h - 1)..=q.min(h - 1)).map(|u| format!("{} * {}", x(u), y(q - u))).collect();
        terms.join(" + ")
    };
    let sa = |j: usize| format!("sa{i}_{j}");
    let sb = |j: usize| format!("sb{i}_{j}");
    for q in 0..2 * h - 1 {
        c.line(1, format!("let z0_{i}_{q} = {};", convolution(&a, &b, q)));
        c.line(1, format!("let z2_{i}_{q} = {};", convolution(&|j| a(h + j), &|j| b(h + j), q)));
        c.line(1, format!("let z1_{i}_{q} = {} - z0_{i}_{q} - z2_{i}_{q};", convolution(&sa, &sb, q)));
    }
    let coefficient = |q: usize| {
        let parts: Vec<String> = [(0, "z0"), (h, "z1"), (2 * h, "z2")]
            .into_iter()
            .filter(|&(shift, _)| q >= shift && q - shift < 2 * h - 1)
            .map(|(shift, z)| format!("{z}_{i}_{}", q - shift))
            .collect();
        if parts.is_empty() {
            "0u".to_string()
        } else {
            parts.join(" + ")
        }
    };
    for j in 0..n - 1 {
        c.line(1, format!("var t{i}_{j}: u32 = {};", coefficient(j)));
    }
    for j in 0..n {
        c.line(1, format!("var f{i}_{j}: u32 = {};", coefficient(n - 1 + j)));
    }
}

/// Reduction round `r` of the loop body for product `i`: m makes the lowest coefficient
/// divisible by 2^13, m·p is added, the window shifts down one coefficient and takes the
/// next one from the feed.
fn reduction_round(c: &mut Code, d: usize, i: usize, r: usize, n: usize) {
    c.line(d, format!("let x = t{i}_0;"));
    c.line(d, "let m = (x * MU) & LIMB_MASK;");
    c.line(d, "let carry = (x + m * P.l[0]) >> LIMB_BITS;");
    for j in 1..n - 1 {
        let carry = if j == 1 { " + carry" } else { "" };
        c.line(d, format!("t{i}_{} = t{i}_{j} + m * P.l[{j}]{carry};", j - 1));
    }
    c.line(d, format!("t{i}_{} = f{i}_{r} + m * P.l[{}];", n - 2, n - 1));
}
