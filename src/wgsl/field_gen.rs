//! Straight-line WGSL for one Montgomery field, generated from its parameters: the module
//! header, constants and helpers shared by both limb widths, and the 13-bit-limb arithmetic
//! (the 32-bit-limb arithmetic of [`MulForm::Wide`] is in [`super::field_wide`]).
//!
//! Limbs are never indexed at run time: WGSL loops over private arrays run 100–250× slower than
//! straight-line code on the software GPUs we test on, and spill on real GPUs too. Each
//! generator is a short Rust loop that prints one WGSL statement per limb; only the rolled
//! multiplication keeps a loop, whose body is straight-line and shifts its limb variables.

use std::fmt::Write;

use num_bigint::BigUint;

use crate::curve::{CurveModel, CurveSpec};
use crate::limbs::{Montgomery, LIMB_BITS, LIMB_MASK, WIDE_LIMB_BITS};

use super::storage::StorageWords;
use super::{field_packed, field_wide, fp2};

/// How `field_mul` is generated; both compute the same function. `rounds` is the most
/// Montgomery rounds one loop iteration runs: each field runs the largest divisor of its own
/// limb count not above it ([`Montgomery::loop_rounds`]), so one form serves fields of any size.
/// Which device runs which form is the device profile's business
/// ([`crate::DeviceProfile`]); this type only says how the arithmetic is generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MulForm {
    /// 13-bit limbs, one per u32 (two per u32 between operations where
    /// [`MulForm::packed_values`]): a loop of N/R iterations of R unrolled rounds, R = the
    /// field's rounds for `rounds`, or straight-line product scanning when `rounds` ≥ N. Needs
    /// nothing beyond WebGPU.
    Rolled {
        /// At most this many Montgomery rounds per loop iteration.
        rounds: usize,
        /// Whether the curve formulas multiply in batches of independent products
        /// (`field_mul_xK`, see [`MulForm::batched`]) rather than one product after another.
        batched: bool,
        /// Whether a batch's products share one loop (`field_mul_xK` advances them together)
        /// rather than each running its own (`field_mul_xK` calls `field_mul` K times). Only
        /// with `batched`: see [`MulForm::interleaved`].
        interleaved: bool,
    },
    /// 32-bit limbs multiplied into 64-bit products (the device needs wgpu's `SHADER_INT64`):
    /// 12 limbs for a 377-bit field instead of 30. A loop of N/R iterations as in `Rolled`, or
    /// straight-line code when `rounds` ≥ N.
    Wide {
        /// At most this many Montgomery rounds per loop iteration.
        rounds: usize,
        /// As for `Rolled`.
        batched: bool,
    },
}

impl MulForm {
    /// 13-bit limbs, up to 5 rounds per loop iteration (5 for the 20 and 30 limbs of 254- to
    /// 381-bit fields), products batched, each batch in one loop.
    pub const ROLLED: MulForm = MulForm::Rolled { rounds: 5, batched: true, interleaved: true };
    /// 32-bit limbs, up to 4 rounds per loop iteration (4 for 8 and 12 limbs), products batched.
    pub const WIDE: MulForm = MulForm::Wide { rounds: 4, batched: true };
    /// Straight-line 13-bit products, batched, each summed column by column (product
    /// scanning). Any `rounds` at least the field's limbs (at most 30) means straight-line
    /// code.
    pub const SCANNED: MulForm = MulForm::Rolled { rounds: 30, batched: true, interleaved: true };

    /// Whether `field_mul_xK` advances K independent products in one loop (K times fewer loop
    /// back-edges per product, and every product's operands and accumulators live at once) or
    /// calls `field_mul` K times.
    pub fn batched(self) -> bool {
        match self {
            MulForm::Rolled { batched, .. } | MulForm::Wide { batched, .. } => batched,
        }
    }

    /// Whether a batch's products share one loop, all K advancing round by round, rather than
    /// each running its own loop (a body K times smaller). Straight-line code (rounds ≥ limbs)
    /// is always interleaved: its product-scanned batches need it.
    pub fn interleaved(self) -> bool {
        match self {
            MulForm::Rolled { batched, interleaved, .. } => batched && interleaved,
            MulForm::Wide { batched, .. } => batched,
        }
    }

    /// Whether field values live packed between operations, two 13-bit limbs per u32 (see
    /// `src/wgsl/field_packed.rs`): the 13-bit form with products one after another, which
    /// holds half the registers per value where the curve formulas would otherwise exceed a
    /// GPU's register budget.
    pub fn packed_values(self) -> bool {
        matches!(self, MulForm::Rolled { batched: false, .. })
    }

    /// Whether `field_mul_sum` (a·b + c·d) fuses its two products into one Montgomery
    /// reduction: with 32-bit limbs (see `field_wide.rs`); the 13-bit accumulators have no room
    /// for a third product per round, so there the curve formulas keep their products apart.
    pub fn fuses_sums(self) -> bool {
        matches!(self, MulForm::Wide { .. })
    }

    /// Bits per limb of this form's field elements.
    pub fn limb_bits(self) -> u32 {
        match self {
            MulForm::Rolled { .. } => LIMB_BITS,
            MulForm::Wide { .. } => WIDE_LIMB_BITS,
        }
    }

    /// The most Montgomery rounds per loop iteration this form asks for.
    pub fn rounds(self) -> usize {
        match self {
            MulForm::Rolled { rounds, .. } | MulForm::Wide { rounds, .. } => rounds,
        }
    }

    /// This form with at most `rounds` Montgomery rounds per loop iteration.
    pub fn with_rounds(self, rounds: usize) -> MulForm {
        match self {
            MulForm::Rolled { batched, interleaved, .. } => MulForm::Rolled { rounds, batched, interleaved },
            MulForm::Wide { batched, .. } => MulForm::Wide { rounds, batched },
        }
    }

    /// This form with products one after another.
    pub fn unbatched(self) -> MulForm {
        match self {
            MulForm::Rolled { rounds, .. } => MulForm::Rolled { rounds, batched: false, interleaved: false },
            MulForm::Wide { rounds, .. } => MulForm::Wide { rounds, batched: false },
        }
    }

    /// Whether the shaders use 64-bit integers (the device needs `SHADER_INT64`).
    pub fn needs_int64(self) -> bool {
        matches!(self, MulForm::Wide { .. })
    }
}

impl Default for MulForm {
    /// [`MulForm::ROLLED`], which every WebGPU device can run. Contexts choose their form by
    /// calibration ([`crate::calibrate`]).
    fn default() -> Self {
        MulForm::ROLLED
    }
}

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

/// A base field value as a `Field` expression; packed (see [`field_packed`]) when `packed`.
fn field_value(value: &BigUint, f: &Montgomery, packed: bool) -> String {
    if packed {
        return field_packed::packed_value(value, f);
    }
    let limbs = f.limbs_of(value).into_iter().map(|l| format!("{l}u"));
    field_literal(limbs, f.limbs)
}

/// A base field `Field` constant.
fn field_const(name: &str, doc: &str, value: &BigUint, f: &Montgomery, packed: bool) -> String {
    format!("// {doc}\nconst {name} = {};\n", field_value(value, f, packed))
}

/// A constant of the coordinates' field, from its components over the base field: a base field
/// `Field` constant, or an Fp2 one (`Field(Fp(…), Fp(…))`, see [`fp2`]).
fn coordinate_const(name: &str, doc: &str, components: &[BigUint], f: &Montgomery, packed: bool) -> String {
    match components {
        [value] => field_const(name, doc, value, f, packed),
        _ => {
            let parts: Vec<String> =
                components.iter().map(|c| fp2::base_namespace(&field_value(c, f, packed))).collect();
            format!("// {doc}\nconst {name} = Field({});\n", parts.join(", "))
        }
    }
}

/// Field helpers of every coordinate field, written on the arithmetic.
const FIELD_HELPERS: &str = include_str!("../../shaders/field.wgsl");
/// Square and inverse of a prime field.
const PRIME_FIELD_HELPERS: &str = include_str!("../../shaders/field_prime.wgsl");

/// The generated "field" module of the curve's coordinates, with limbs of the width `form`
/// uses: its base prime field, or Fp2 over it ([`fp2`]), with the curve's constants.
pub fn field_module(spec: &CurveSpec, form: MulForm) -> String {
    let f = spec.field_for(form);
    let prime = prime_field(spec, form) + FIELD_HELPERS + PRIME_FIELD_HELPERS;
    let field = match &spec.extension {
        None => prime,
        Some(extension) => {
            fp2::extension_module(fp2::base_namespace(&prime), &f.modulus, &extension.nonresidue, form) + FIELD_HELPERS
        }
    };
    field + &curve_constants(spec, f, form.packed_values())
}

/// The base prime field's module: constants, types and straight-line arithmetic, with limbs of
/// the width `form` uses.
fn prime_field(spec: &CurveSpec, form: MulForm) -> String {
    let f = spec.field_for(form);
    let n = f.limbs;
    let bits = f.limb_bits;
    let packed = form.packed_values();
    let mut out = String::new();
    let _ = write!(
        out,
        "// Field arithmetic for the {}-bit base field of {}, generated by src/wgsl/field_gen.rs.\n\
         const LIMBS: u32 = {n}u;\n\
         // −p⁻¹ mod 2^{bits}\n\
         const MU: u32 = {}u;\n\
         // An element in Montgomery form, R = 2^({bits}·LIMBS), one {bits}-bit limb per u32.\n\
         {}\
         // Storage layout: {}.\n\
         {}\
         // A canonical coordinate as uploaded: little-endian u32 words.\n\
         {}",
        f.modulus.bits(),
        spec.name,
        f.mu,
        if packed { String::new() } else { format!("struct Field {{ l: array<u32, {n}> }}\n") },
        if form.needs_int64() { "one limb per u32" } else { "two limbs per u32 (even limb in the low half)" },
        StorageWords::packed_field(f.storage_words()).declaration(),
        StorageWords::uploaded(spec.base_words()).declaration(),
    );
    if packed {
        out += &field_packed::packed_operations(spec, f);
    }
    // The modulus is only used by the limb arithmetic.
    out += &field_packed::limb_level_if(packed, &field_const("P", "the modulus p", &f.modulus, f, false));
    out += &field_const("FIELD_ZERO", "0", &BigUint::default(), f, packed);
    out += &field_const("FIELD_ONE", "1 in Montgomery form: R mod p", &f.r_mod_p, f, packed);
    out += &field_const("R2_MOD_P", "R² mod p: field_mul by it enters Montgomery form", &f.r2_mod_p, f, packed);
    // arkworks keeps a·R_ark with R_ark = 2^(32·coord_words); one field_mul by R²/R_ark turns
    // that into a·R (R_ark = R for 32-bit limbs, so the product is then the input itself).
    let r_ark = BigUint::from(1u32) << (32 * spec.base_words());
    let ark_to_mont = (&f.r2_mod_p * r_ark.modinv(&f.modulus).expect("p is odd")) % &f.modulus;
    out += &field_const(
        "ARK_TO_MONT",
        "R²/R_ark mod p: field_mul by it turns arkworks' form into ours",
        &ark_to_mont,
        f,
        packed,
    );
    let rounds = f.loop_rounds(form.rounds());
    match form {
        MulForm::Wide { batched, .. } => out += &field_wide::arithmetic(spec, f, rounds, batched),
        MulForm::Rolled { .. } => {
            let _ = writeln!(out, "const LIMB_BITS: u32 = {LIMB_BITS}u;\nconst LIMB_MASK: u32 = {LIMB_MASK}u;");
            if packed {
                // a's words per loop iteration: about rounds / 2 (two limbs each), dividing them.
                let words = (1..=rounds.div_ceil(2)).rev().find(|w| (n / 2).is_multiple_of(*w)).expect("1 divides");
                let limbs: String = [
                    reduce_once(spec),
                    add(spec),
                    sub(spec),
                    lazy(spec),
                    field_packed::mul_packed_a(&f.limbs_of(&f.modulus), words),
                    pack(spec),
                    unpack(spec),
                    from_words(spec),
                ]
                .concat();
                out += &field_packed::limb_level(&limbs);
                out += &batches_as_calls(false);
                out += &sums_of_two_products();
            } else {
                for gen in [reduce_once, add, sub, lazy] {
                    out += &gen(spec);
                }
                out += &mul(spec, rounds, form.interleaved());
                out += &sums_of_two_products();
                for gen in [pack, unpack, from_words] {
                    out += &gen(spec);
                }
            }
        }
    }
    out += &words_below_p(spec);
    // Values are kept below p, so equal values have equal limbs, or equal words when packed.
    out += &if packed { field_eq("w", f.storage_words()) } else { field_eq("l", n) };
    out += &super::inversion::inversion_constants(f);
    out
}

/// Curve coefficients in Montgomery form, packed where field values are.
fn curve_constants(spec: &CurveSpec, f: &Montgomery, packed: bool) -> String {
    let mont = |v: &BigUint| (v * &f.r_mod_p) % &f.modulus;
    match &spec.model {
        CurveModel::ShortWeierstrassA0 { b } => {
            let b3: Vec<BigUint> = b.iter().map(|c| (c * 3u32) % &f.modulus).collect();
            let mont_all = |v: &[BigUint]| v.iter().map(mont).collect::<Vec<_>>();
            let mut out = coordinate_const("B", "b, Montgomery form", &mont_all(b), f, packed);
            out += &coordinate_const("B3", "3·b, Montgomery form", &mont_all(&b3), f, packed);
            out + &mul_by_constant("mul_by_b3", &b3, f, packed)
        }
        CurveModel::TwistedEdwardsAMinus1 { d } => {
            let d2 = (d * 2u32) % &f.modulus;
            field_const("D2", "2·d, Montgomery form", &mont(&d2), f, packed)
        }
        CurveModel::WeierstrassOnEdwards { b, map, affine_bases } => {
            let d2 = (&map.d * 2u32) % &f.modulus;
            let mut out = field_const("B", "b of the Weierstrass equation, Montgomery form", &mont(b), f, packed);
            out += &field_const("D2", "2·d of the Edwards model, Montgomery form", &mont(&d2), f, packed);
            out +=
                &field_const("EDWARDS_ALPHA", "α: (α, 0) has order 2, Montgomery form", &mont(&map.alpha), f, packed);
            out += &field_const("EDWARDS_T", "t = √(3α²), Montgomery form", &mont(&map.t), f, packed);
            out += &field_const("EDWARDS_KAPPA", "κ = √(−(3α + 2t)), Montgomery form", &mont(&map.kappa), f, packed);
            if *affine_bases {
                // d/2 = d·(p + 1)/2.
                let half = (&map.d * ((&f.modulus + 1u32) >> 1)) % &f.modulus;
                out += &field_const("D_HALF", "d/2 of the Edwards model, Montgomery form", &mont(&half), f, packed);
            }
            out
        }
    }
}

/// `STORED_READ_AT_USE` (see [`super::compose::Define`]): whether bucket accumulation
/// (`add_entry` in `shaders/chunks.wgsl`) reads each stored coordinate from storage at the one
/// product that takes it, which it does where stored points are in the Niels form of HWCD's
/// mixed addition (the twisted Edwards models: y − x, y + x, 2d·t, and 2z with extended points)
/// and `form` runs its products one after another (batched products take all their factors at
/// once).
pub(super) fn stored_read_at_use(spec: &CurveSpec, form: MulForm) -> bool {
    let niels =
        matches!(spec.model, CurveModel::TwistedEdwardsAMinus1 { .. } | CurveModel::WeierstrassOnEdwards { .. });
    niels && !form.batched()
}

/// The constant as a small positive integer, where it is one (an addition chain multiplies by it).
fn small_integer(k: &BigUint) -> Option<u32> {
    (k.bits() > 0 && k.bits() <= 6).then(|| k.iter_u32_digits().next().unwrap_or(0))
}

/// `fn name(a: T) -> T` = k·a for a small integer k, by double-and-add with `add`.
fn times_small(name: &str, ty: &str, add: &str, k: u32) -> String {
    let mut c = Code::default();
    c.line(0, format!("fn {name}(a: {ty}) -> {ty} {{"));
    c.line(1, "var r = a;");
    for bit in (0..31 - k.leading_zeros()).rev() {
        c.line(1, format!("r = {add}(r, r);"));
        if (k >> bit) & 1 == 1 {
            c.line(1, format!("r = {add}(r, a);"));
        }
    }
    c.line(1, "return r;");
    c.line(0, "}");
    c.0
}

/// Base field multiplications of `mul_by_b3` for the constant 3·b with components `k` (see
/// `mul_by_constant`).
pub fn constant_mul_cost(k: &[BigUint]) -> u64 {
    let general = |k: &BigUint| small_integer(k).is_none() && k.bits() > 0;
    match k {
        [k] => u64::from(general(k)),
        [k0, k1] if general(k0) && general(k1) => 3,
        _ => 2 * k.iter().filter(|k| general(k)).count() as u64,
    }
}

/// `fn name(a: Field) -> Field` multiplying by the constant `B3` (its components `k` over the
/// base field). Over a prime field: an addition chain when it is a small integer (b = 1 gives
/// 3·b = 3 on BLS12-377), else a multiplication. Over Fp2, (a0 + a1·u)·(k0 + k1·u) =
/// (k0·a0 + β·k1·a1) + (k1·a0 + k0·a1)·u, each k·a a chain, nothing (k = 0) or one base
/// multiplication, and a Karatsuba multiplication only when both components are large
/// (BLS12-381: 3b = 12 + 12u, additions only; BLS12-377: 3b = k1·u, two multiplications).
fn mul_by_constant(name: &str, k: &[BigUint], f: &Montgomery, packed: bool) -> String {
    match k {
        [k0] => match small_integer(k0) {
            Some(small) => times_small(name, "Field", "field_add", small),
            None => format!("fn {name}(a: Field) -> Field {{\n    return field_mul(a, B3);\n}}\n"),
        },
        [_, _] if constant_mul_cost(k) == 3 => {
            format!("fn {name}(a: Field) -> Field {{\n    return field_mul(a, B3);\n}}\n")
        }
        [k0, k1] => {
            let mut out = String::new();
            // k·x for one component: a chain, a product by a constant, or nothing.
            let mut term = |i: usize, k: &BigUint, x: &str| -> Option<String> {
                if k.bits() == 0 {
                    return None;
                }
                Some(match small_integer(k) {
                    Some(small) => {
                        let helper = format!("fp_times_{small}");
                        if !out.contains(&format!("fn {helper}(")) {
                            out += &times_small(&helper, "Fp", "fp_add", small);
                        }
                        format!("{helper}({x})")
                    }
                    None => {
                        let mont = (k * &f.r_mod_p) % &f.modulus;
                        let constant = format!("FP_B3_C{i}");
                        if !out.contains(&format!("const {constant} ")) {
                            out +=
                                &fp2::base_namespace(&field_const(&constant, "a component of 3·b", &mont, f, packed));
                        }
                        format!("fp_mul({x}, {constant})")
                    }
                })
            };
            let sum = |a: Option<String>, b: Option<String>| match (a, b) {
                (Some(a), Some(b)) => format!("fp_add({a}, {b})"),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => "FP_ZERO".into(),
            };
            let (c0, c1) = if k0 == k1 {
                // k·((a0 + β·a1) + (a0 + a1)·u).
                let t0 = term(0, k0, "fp_add(a.c0, fp_mul_by_nonresidue(a.c1))");
                let t1 = term(0, k0, "fp_add(a.c0, a.c1)");
                (sum(t0, None), sum(t1, None))
            } else {
                let k1a1 = term(1, k1, "a.c1").map(|t| format!("fp_mul_by_nonresidue({t})"));
                let c0 = sum(term(0, k0, "a.c0"), k1a1);
                let c1 = sum(term(1, k1, "a.c0"), term(0, k0, "a.c1"));
                (c0, c1)
            };
            out += &format!("fn {name}(a: Field) -> Field {{\n    return Field({c0}, {c1});\n}}\n");
            out
        }
        _ => panic!("a constant of degree {}", k.len()),
    }
}

/// `field_reduce_once(r)`: r mod p for r < 2p.
///
/// Branch-free, like [`sub`]: drivers inline every call, and each early return left a merge
/// block with a φ per limb in the caller. One software GPU's compiler (fed wgpu's SPIR-V) grows
/// much faster than linearly with those blocks and φs: with them bls12-377's
/// `accumulate_chunks` (30 limbs) took 6 minutes and 1.2 GB to compile, ed-on-bls12-377's (20
/// limbs) 1.5 s; branch-free, 5 s and 0.3 GB (`examples/compile_entry.rs`). A software GPU runs
/// both sides of a divergent branch anyway, so the selects cost nothing extra there.
fn reduce_once(spec: &CurveSpec) -> String {
    let n = spec.field.limbs;
    let mut c = Code::default();
    c.line(0, "// r mod p for r < 2p (normalized limbs).");
    c.line(0, "fn field_reduce_once(r: Field) -> Field {");
    for j in 0..n {
        let borrow = if j == 0 { String::new() } else { format!(" - b{}", j - 1) };
        c.line(1, format!("let d{j} = r.l[{j}] - P.l[{j}]{borrow};"));
        c.line(1, format!("let b{j} = d{j} >> 31u;"));
    }
    c.line(1, "// r < p when r − p borrows: keep r.");
    c.line(1, format!("let below_p = b{} == 1u;", n - 1));
    let limbs = (0..n).map(|j| format!("select(d{j} & LIMB_MASK, r.l[{j}], below_p)"));
    c.line(1, format!("return {};", field_literal(limbs, n)));
    c.line(0, "}");
    c.0
}

/// `field_add(a, b)` = a + b mod p.
fn add(spec: &CurveSpec) -> String {
    sum(spec, "field_add", "field_reduce_once")
}

/// `field_add_lazy(a, b)` = a + b, not reduced: below 2p (see [`lazy`]).
fn add_lazy(spec: &CurveSpec) -> String {
    sum(spec, "field_add_lazy", "")
}

/// `fn name(a, b)`: a + b in one carry chain, passed to `reduce` (a function name, or empty for
/// none).
fn sum(spec: &CurveSpec, name: &str, reduce: &str) -> String {
    let n = spec.field.limbs;
    let mut c = Code::default();
    c.line(0, format!("fn {name}(a: Field, b: Field) -> Field {{"));
    for j in 0..n {
        let carry = if j == 0 { String::new() } else { format!(" + (s{} >> LIMB_BITS)", j - 1) };
        c.line(1, format!("let s{j} = a.l[{j}] + b.l[{j}]{carry};"));
    }
    let limbs = (0..n).map(|j| format!("s{j} & LIMB_MASK"));
    c.line(1, format!("return {reduce}({});", field_literal(limbs, n)));
    c.line(0, "}");
    c.0
}

/// `field_sub_lazy(a, b)` = a + p − b for b ≤ p, not reduced: below 2p (see [`lazy`]). One carry
/// chain with signed carries (each limb's sum lies in (−2^14, 2^14)), where `field_sub` takes
/// two and a mask.
fn sub_lazy(spec: &CurveSpec) -> String {
    let n = spec.field.limbs;
    let mut c = Code::default();
    c.line(0, "fn field_sub_lazy(a: Field, b: Field) -> Field {");
    for j in 0..n {
        let carry =
            if j == 0 { String::new() } else { format!(" + bitcast<u32>(bitcast<i32>(d{}) >> LIMB_BITS)", j - 1) };
        c.line(1, format!("let d{j} = a.l[{j}] + P.l[{j}] - b.l[{j}]{carry};"));
    }
    let limbs = (0..n).map(|j| format!("d{j} & LIMB_MASK"));
    c.line(1, format!("return {};", field_literal(limbs, n)));
    c.line(0, "}");
    c.0
}

/// `field_add_lazy` and `field_sub_lazy` where a field takes no unreduced operands
/// ([`Montgomery::takes_lazy_sums`]) or an extension's products add their operands'
/// coordinates: `field_add` and `field_sub`.
pub(super) const LAZY_AS_REDUCED: &str = "\
fn field_add_lazy(a: Field, b: Field) -> Field {
    return field_add(a, b);
}

fn field_sub_lazy(a: Field, b: Field) -> Field {
    return field_sub(a, b);
}
";

/// Lazy addition and subtraction ([`add_lazy`], [`sub_lazy`]; `field_wide.rs` has the 32-bit
/// ones): of two reduced values (below p) they return a value below 2p that is congruent to the
/// sum or difference, in normalized limbs, and skip the conditional subtraction of p. Such a
/// value may only be an operand of a product (`field_mul`, `field_mul_xK`, `field_mul_sum`),
/// never of another addition, a comparison or storage: the product, below 2p where
/// [`Montgomery::takes_lazy_sums`], is reduced once as before (`cpu_model`'s models check the
/// accumulators with such operands). Where the field does not take them, [`LAZY_AS_REDUCED`].
fn lazy(spec: &CurveSpec) -> String {
    if spec.field.takes_lazy_sums() {
        add_lazy(spec) + &sub_lazy(spec)
    } else {
        LAZY_AS_REDUCED.to_string()
    }
}

/// `field_sub(a, b)` = a − b mod p, branch-free (see [`reduce_once`]): p is added back under a
/// mask that is all ones only when the subtraction borrowed.
fn sub(spec: &CurveSpec) -> String {
    let n = spec.field.limbs;
    let mut c = Code::default();
    c.line(0, "fn field_sub(a: Field, b: Field) -> Field {");
    for j in 0..n {
        let borrow = if j == 0 { String::new() } else { format!(" - (d{} >> 31u)", j - 1) };
        c.line(1, format!("let d{j} = a.l[{j}] - b.l[{j}]{borrow};"));
    }
    c.line(1, "// All ones when a < b (borrowed): add p back; else 0, which adds nothing.");
    c.line(1, format!("let p_mask = 0u - (d{} >> 31u);", n - 1));
    for j in 0..n {
        let carry = if j == 0 { String::new() } else { format!(" + (s{} >> LIMB_BITS)", j - 1) };
        c.line(1, format!("let s{j} = (d{j} & LIMB_MASK) + (P.l[{j}] & p_mask){carry};"));
    }
    let limbs = (0..n).map(|j| format!("s{j} & LIMB_MASK"));
    c.line(1, format!("return {};", field_literal(limbs, n)));
    c.line(0, "}");
    c.0
}

/// `field_mul(a, b)` = a·b·R⁻¹ mod p, operand-scanning Montgomery multiplication, or when
/// `rounds` covers every limb, straight-line product scanning ([`mul_scanned_products`]).
///
/// Each round adds `a_i·b` and `m·p` (m chosen so the lowest limb becomes 0) and shifts one limb
/// down. Limb products are below 2^26 and each accumulator receives at most two per round, so
/// with N ≤ 30 rounds the u32 accumulators never overflow and carries are resolved only once,
/// at the end. `cpu_model::mont_mul_limbs` runs the same sequence with overflow checks.
///
/// Drivers inline every call, so an unrolled multiplication's shader size, and compile time on
/// first use, grows with the call sites (uncached, one software GPU took ~40–200 s for bls12-377's
/// pipeline and the other's compiler crashed on it). The rolled form ([`MulForm::Rolled`]) compiles
/// several times faster. Its loops count against the loop budget
/// ([`crate::DeviceProfile::LOOP_BUDGET`]: back-edges per invocation, counted over all loops and
/// never reset; once spent, every loop silently exits after one iteration): N/rounds per product
/// batch, about 13 per point addition on bls12-377. Every kernel bounds the additions one thread
/// makes (`plan.rs` caps the chunks a bucket can span), so no thread comes near the budget.
///
/// Only the unpacked 13-bit form comes here, whose products are always batched (hardware GPUs'
/// unbatched 13-bit form keeps values packed: `field_packed::mul_packed_a`): a batch's products
/// share one loop where `interleaved`, else each runs its own ([`MulForm::interleaved`]).
fn mul(spec: &CurveSpec, rounds: usize, interleaved: bool) -> String {
    let f = &spec.field;
    let n = f.limbs;
    if rounds < n {
        let p = f.limbs_of(&f.modulus);
        return mul_functions(n, rounds, interleaved, false, |rounds, k| mul_products(&p, rounds, k));
    }
    // Straight-line: each batch its own function advancing its products together.
    (1..=MAX_BATCH).map(|k| mul_scanned_products(f, k)).collect()
}

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

/// `field_mul_sum(a, b, c, d)` = a·b + c·d and its batches as two products each, summed: the
/// limb forms without a fused sum (13-bit limbs, whose lazy accumulators have no room for a
/// third product per round).
fn sums_of_two_products() -> String {
    let mut out = String::from(
        "// a·b + c·d as two products, summed.\n\
         fn field_mul_sum(a: Field, b: Field, c: Field, d: Field) -> Field {\n    \
         let m = field_mul_x2(a, b, c, d);\n    return field_add(m.r[0], m.r[1]);\n}\n",
    );
    for k in 2..=MAX_SUM_BATCH {
        let params: Vec<String> = (0..k).map(|i| product_params(i, true)).collect();
        let operands: Vec<String> = (0..k).map(|i| format!("a{i}, b{i}, c{i}, d{i}")).collect();
        let sums: Vec<String> = (0..k).map(|i| format!("field_add(m.r[{}], m.r[{}])", 2 * i, 2 * i + 1)).collect();
        out += &format!(
            "fn field_mul_sum_x{k}({}) -> FieldX{k} {{\n    let m = field_mul_x{}({});\n    return FieldX{k}(array<Field, {k}>({}));\n}}\n",
            params.join(", "),
            2 * k,
            operands.join(", "),
            sums.join(", ")
        );
    }
    out
}

/// The straight-line `field_mul` (k = 1) or `field_mul_xK`: product scanning. Column c of
/// the double-width product, Σ a_s·b_(c−s) + Σ m_s·p_(c−s), is summed into one accumulator
/// that then carries into column c + 1; the first N columns each give their m (the lowest limb
/// cancels), the last N − 1 the result's limbs. The k products advance column by column.
///
/// A column receives at most 2N products below 2^26 and one carry below 2^19, so N ≤ 30 limbs
/// never overflow a u32 (`cpu_model::mont_mul_scanned` runs the same sums with overflow checks).
/// One accumulator per product is live instead of operand scanning's N − 1, and the k products'
/// chains of additions are independent: on a software GPU whose compiler keeps most of a
/// product's values in memory (x86 has 16 vector registers), ed-on-bls12-377's accumulation
/// (batches of 3 and 4 products over 20 limbs) runs 12–15% faster than with the loop of 10
/// rounds, where one product at a time, or 30 limbs, gains nothing. The
/// modulus is spelled out: products by its zero limbs are left out, by its limbs equal to 1 are
/// m itself.
fn mul_scanned_products(f: &Montgomery, k: usize) -> String {
    let n = f.limbs;
    let p = f.limbs_of(&f.modulus);
    let m_times = |m: String, j: usize| m_times_limb(&m, p[j]);
    let mut c = Code::default();
    open_mul(&mut c, k, false);
    for i in 0..k {
        c.line(1, format!("var c{i}: u32 = 0u;"));
    }
    for col in 0..2 * n - 1 {
        // Limb s of a (and of m) meets limb col − s of b (and of p).
        let first = col.saturating_sub(n - 1);
        for i in 0..k {
            let mut terms: Vec<String> =
                (first..=col.min(n - 1)).map(|s| format!("a{i}.l[{s}] * b{i}.l[{}]", col - s)).collect();
            terms.extend((first..col.min(n)).filter_map(|s| m_times(format!("m{i}_{s}"), col - s)));
            c.line(1, format!("c{i} = c{i} + {};", terms.join(" + ")));
            if col < n {
                c.line(1, format!("let m{i}_{col} = (c{i} * MU) & LIMB_MASK;"));
                let low = m_times(format!("m{i}_{col}"), 0).expect("p is odd");
                c.line(1, format!("c{i} = (c{i} + {low}) >> LIMB_BITS;"));
            } else {
                c.line(1, format!("let r{i}_{} = c{i} & LIMB_MASK;", col - n));
                c.line(1, format!("c{i} = c{i} >> LIMB_BITS;"));
            }
        }
    }
    let results: Vec<String> = (0..k)
        .map(|i| {
            let limbs = (0..n - 1).map(|j| format!("r{i}_{j}")).chain([format!("c{i}")]);
            format!("field_reduce_once({})", field_literal(limbs, n))
        })
        .collect();
    close_mul(&mut c, &results);
    c.0
}

/// Largest number of sums of two products one `field_mul_sum_xK` call computes.
pub(super) const MAX_SUM_BATCH: usize = 3;

/// Largest number of independent products one `field_mul_xK` call computes.
pub(super) const MAX_BATCH: usize = 6;

/// `field_mul` (k = 1) or `field_mul_xK` (k independent products a_i·b_i, returned as
/// `FieldXK`), `rounds` Montgomery rounds per loop iteration with all k products advancing
/// together; `rounds == n` emits no loop at all (straight-line code).
fn mul_products(p: &[u32], rounds: usize, k: usize) -> String {
    let n = p.len();
    let round = |c: &mut Code, d: usize, r: usize, i: usize| mont_round(c, d, &format!("a{i}_{r}"), i, p);
    // Carries are resolved once, after the last round (the accumulators never overflow).
    mul_frame(MulFrame { n, rounds, k, accumulators: n - 1, sums: false }, round, |c, i| mont_finish(c, i, n))
}

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
    for j in 0..n - 1 {
        let carry = if j == 0 { String::new() } else { format!(" + (u{i}_{} >> LIMB_BITS)", j - 1) };
        c.line(1, format!("let u{i}_{j} = t{i}_{j}{carry};"));
    }
    let mut limbs: Vec<String> = (0..n - 1).map(|j| format!("u{i}_{j} & LIMB_MASK")).collect();
    limbs.push(format!("u{i}_{} >> LIMB_BITS", n - 2));
    field_literal(limbs, n)
}

/// Opens `field_mul` (k = 1) or `field_mul_xK` with its `FieldXK` type, or with `sums`
/// `field_mul_sum` / `field_mul_sum_xK` (whose types the plain batches declare).
fn open_mul(c: &mut Code, k: usize, sums: bool) {
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
fn close_mul(c: &mut Code, results: &[String]) {
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

fn pack(spec: &CurveSpec) -> String {
    let n = spec.field.limbs;
    let words: Vec<String> = (0..n / 2).map(|k| format!("a.l[{}] | (a.l[{}] << 16u)", 2 * k, 2 * k + 1)).collect();
    format!(
        "fn field_pack(a: Field) -> PackedField {{\n    return {};\n}}\n",
        StorageWords::packed_field(n / 2).construct(&words)
    )
}

fn unpack(spec: &CurveSpec) -> String {
    let n = spec.field.limbs;
    let storage = StorageWords::packed_field(n / 2);
    let limbs = (0..n).map(|j| {
        let word = storage.word("p", j / 2);
        if j % 2 == 0 {
            format!("{word} & 0xffffu")
        } else {
            format!("{word} >> 16u")
        }
    });
    format!("fn field_unpack(p: PackedField) -> Field {{\n    return {};\n}}\n", field_literal(limbs, n))
}

/// `field_from_words(w)`: canonical 32-bit words to 13-bit limbs (not yet Montgomery form).
fn from_words(spec: &CurveSpec) -> String {
    let n = spec.field.limbs;
    let words = spec.base_words();
    let uploaded = StorageWords::uploaded(words);
    let limbs = (0..n).map(|j| {
        let bit = j * LIMB_BITS as usize;
        let (k, sh) = (bit / 32, bit % 32);
        if k >= words {
            return "0u".to_string();
        }
        let mut e = format!("({} >> {sh}u)", uploaded.word("w", k));
        if sh + LIMB_BITS as usize > 32 && k + 1 < words {
            e = format!("({e} | ({} << {}u))", uploaded.word("w", k + 1), 32 - sh);
        }
        format!("{e} & LIMB_MASK")
    });
    format!("fn field_from_words(w: Words) -> Field {{\n    return {};\n}}\n", field_literal(limbs, n))
}

/// `field_eq(a, b)`: equality of two elements, compared over the `n` entries of their `member`
/// array (every form keeps elements below p, so equal values have equal limbs).
fn field_eq(member: &str, n: usize) -> String {
    let diffs: Vec<String> = (0..n).map(|j| format!("(a.{member}[{j}] ^ b.{member}[{j}])")).collect();
    format!("fn field_eq(a: Field, b: Field) -> bool {{\n    return ({}) == 0u;\n}}\n", diffs.join(" | "))
}

/// `words_below_p(w)`: whether an uploaded coordinate (little-endian u32 words) is below p, by
/// a straight-line borrow chain over its words from the lowest: `b{k}` is 1 when words 0..=k
/// of w are below those of p.
fn words_below_p(spec: &CurveSpec) -> String {
    let p = crate::limbs::to_words(&spec.field.modulus, spec.base_words());
    let w = StorageWords::uploaded(p.len());
    let mut c = Code::default();
    c.line(0, "fn words_below_p(w: Words) -> bool {");
    c.line(1, format!("let b0 = {} < {}u;", w.word("w", 0), p[0]));
    for (k, p_k) in p.iter().enumerate().skip(1) {
        let w_k = w.word("w", k);
        c.line(1, format!("let b{k} = {w_k} < {p_k}u || ({w_k} == {p_k}u && b{});", k - 1));
    }
    c.line(1, format!("return b{};", p.len() - 1));
    c.line(0, "}");
    c.0
}
