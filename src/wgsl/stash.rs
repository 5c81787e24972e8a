//! The stash: one field element per thread in workgroup memory, where a point addition parks a
//! value it needs again only later, for groups whose additions exceed a real GPU's registers.
//!
//! A full addition over BLS12's Fp2 holds six input coordinates and its first three products
//! (nine elements of 24 registers each with 32-bit limbs) while it forms the coordinate sums;
//! on navi21 that spills 5–23 registers to scratch memory per kernel. Parking
//! one product in workgroup memory across that stretch takes it out of the registers: an LDS
//! store and load instead of scratch traffic, and no spills.
//!
//! Every entry point that adds points calls `stash_enter(lane)` with its
//! `local_invocation_index` first; `stash_put(a)` parks `a` in the thread's slot and
//! `stash_take()` returns it. Where the stash is not needed the same functions hold the value in
//! a private variable, which compilers keep in registers, so the formulas are written once.

use std::fmt::Write;

use crate::curve::CurveSpec;

use super::MulForm;

/// The fewest `u32` words per field element (between operations) at which the hardware forms
/// park values in workgroup memory: the BLS12 G2 groups' 24 with 32-bit limbs and 30 with
/// packed 13-bit limbs, and bn254-g2's 20 with 13-bit limbs, whose additions spilled on navi21.
const STASH_FROM_WORDS: usize = 20;

/// Whether point additions park a value in workgroup memory for `spec` in `form`: only where
/// products run one after another (hardware GPUs; the batched forms of software GPUs keep all
/// their products' operands live anyway) and a field element is at least `STASH_FROM_WORDS`.
pub fn stashes(spec: &CurveSpec, form: MulForm) -> bool {
    !form.batched() && spec.register_words(form) >= STASH_FROM_WORDS
}

/// The `stash` WGSL module for `spec` in `form` (after `common` and `field`).
pub(super) fn stash_module(spec: &CurveSpec, form: MulForm) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// The stash (src/wgsl/stash.rs): a value a point addition needs again only later.\n\
         const STASH_IN_WORKGROUP: bool = {};",
        stashes(spec, form)
    );
    out += if stashes(spec, form) { IN_WORKGROUP } else { IN_REGISTERS };
    out
}

/// One slot per thread of a workgroup. `stash_take` indexes it with the lane masked to the
/// workgroup size, the same slot but not an index a compiler can prove equal to `stash_put`'s,
/// so it cannot forward the stored value and keep it in registers (Mesa's NIR does otherwise).
const IN_WORKGROUP: &str = "\
var<workgroup> stash: array<Field, WORKGROUP_SIZE>;
var<private> stash_lane: u32;

fn stash_enter(lane: u32) {
    stash_lane = lane;
}

fn stash_put(a: Field) {
    stash[stash_lane] = a;
}

fn stash_take() -> Field {
    return stash[stash_lane & (WORKGROUP_SIZE - 1u)];
}
";

/// The same calls without workgroup memory: the value stays in a private variable.
const IN_REGISTERS: &str = "\
var<private> stash_held: Field;

fn stash_enter(lane: u32) {
}

fn stash_put(a: Field) {
    stash_held = a;
}

fn stash_take() -> Field {
    return stash_held;
}
";
