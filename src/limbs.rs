//! Big integers as limbs, the representations the shaders use.
//!
//! A field element lives on the GPU in Montgomery form as `N` limbs, each in the low bits of a
//! `u32`, in one of two widths:
//! - 13-bit limbs ([`LIMB_BITS`], radix `R = 2^(13·N)`), the form every WebGPU device runs (WGSL
//!   in browsers has no 64-bit integers). In storage buffers two limbs share one `u32` (limb `2k`
//!   in the low half, limb `2k+1` in the high half), which halves memory and bandwidth.
//! - 32-bit limbs ([`WIDE_LIMB_BITS`], `R = 2^(32·N)`) multiplied with 64-bit products, for
//!   native devices with wgpu's `SHADER_INT64`; stored one limb per `u32`.
//!
//! This module holds the CPU side of both: conversions and the Montgomery constants the shader
//! generators emit.

use num_bigint::BigUint;

/// Bits per limb of the 13-bit form. A `u32` accumulator absorbs 64 limb products without
/// overflow, enough for a 30-limb Montgomery multiplication without intermediate carries.
pub const LIMB_BITS: u32 = 13;
/// `2^LIMB_BITS - 1`.
pub const LIMB_MASK: u32 = (1 << LIMB_BITS) - 1;
/// Bits per limb of the wide form (64-bit products).
pub const WIDE_LIMB_BITS: u32 = 32;

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
        /// Whether an Fp2 multiplication (the G2 groups) runs Karatsuba's three base products
        /// as the iterations of one loop rather than inline one after another. Only without
        /// `batched`: see [`MulForm::fp2_loop`].
        fp2_loop: bool,
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
    pub const ROLLED: MulForm = MulForm::Rolled { rounds: 5, batched: true, interleaved: true, fp2_loop: false };
    /// 32-bit limbs, up to 4 rounds per loop iteration (4 for 8 and 12 limbs), products batched.
    pub const WIDE: MulForm = MulForm::Wide { rounds: 4, batched: true };
    /// Straight-line 13-bit products, batched, each summed column by column (product
    /// scanning). Any `rounds` at least the field's limbs (at most 30) means straight-line
    /// code.
    pub const SCANNED: MulForm = MulForm::Rolled { rounds: 30, batched: true, interleaved: true, fp2_loop: false };

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

    /// Whether an Fp2 multiplication runs its three base products in one loop, one per
    /// iteration: a third of the code of three inlined products, which is what a real GPU
    /// compiler's time grows with, for a few percent more instructions run (see
    /// [`crate::DeviceProfile::loop_fp2_products`]). Only with products one after another: a
    /// batch advances its products together.
    pub fn fp2_loop(self) -> bool {
        matches!(self, MulForm::Rolled { batched: false, fp2_loop: true, .. })
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
            MulForm::Rolled { batched, interleaved, fp2_loop, .. } => {
                MulForm::Rolled { rounds, batched, interleaved, fp2_loop }
            }
            MulForm::Wide { batched, .. } => MulForm::Wide { rounds, batched },
        }
    }

    /// This form with products one after another.
    pub fn unbatched(self) -> MulForm {
        match self {
            MulForm::Rolled { rounds, fp2_loop, .. } => {
                MulForm::Rolled { rounds, batched: false, interleaved: false, fp2_loop }
            }
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

/// Splits `value` into `n` little-endian limbs of `bits` bits. Panics if it does not fit
/// (constants only).
pub fn split_limbs(value: &BigUint, n: usize, bits: u32) -> Vec<u32> {
    assert!(value.bits() <= (n as u64) * bits as u64, "value wider than {n} limbs of {bits} bits");
    let mask = BigUint::from(u32::MAX >> (32 - bits));
    (0..n).map(|i| ((value >> (i * bits as usize)) & &mask).iter_u32_digits().next().unwrap_or(0)).collect()
}

/// Joins little-endian limbs of `bits` bits (each may exceed them) into an integer.
pub fn join_limbs(limbs: &[u32], bits: u32) -> BigUint {
    limbs.iter().rev().fold(BigUint::default(), |acc, &l| (acc << bits) + l)
}

/// Splits `value` into `n` little-endian 13-bit limbs. Panics if it does not fit (constants only).
pub fn to_limbs(value: &BigUint, n: usize) -> Vec<u32> {
    split_limbs(value, n, LIMB_BITS)
}

/// Joins little-endian 13-bit limbs (each may exceed 13 bits) into an integer.
pub fn from_limbs(limbs: &[u32]) -> BigUint {
    join_limbs(limbs, LIMB_BITS)
}

/// Packs 13-bit limbs two per `u32`, the register layout of the form that keeps values packed.
pub fn pack_limbs(limbs: &[u32]) -> Vec<u32> {
    limbs.chunks(2).map(|p| p[0] | (p.get(1).copied().unwrap_or(0) << 16)).collect()
}

/// Little-endian `u32` words of `value`, zero-padded to `n` words.
pub fn to_words(value: &BigUint, n: usize) -> Vec<u32> {
    let mut words: Vec<u32> = value.iter_u32_digits().collect();
    assert!(words.len() <= n, "value wider than {n} words");
    words.resize(n, 0);
    words
}

/// 32-bit limbs of the prime `modulus`: the fewest that hold p whose top limb is below
/// 2^31 − 1 (the no-carry multiplication of `field_wide.rs`) and whose R exceeds
/// 3p·(1 + 2^−31), the bound of a fused sum a·b + c·d of reduced operands (`field_mul_sum`,
/// whose operands are below p where the field takes no lazy sums, i.e. 8p ≥ R; where it takes
/// them, 8p < R covers operands below 2p). Pallas and Vesta (p ≈ 2^254, R/p ≈ 4) fit 8 limbs
/// with no lazy sums, as bn254 does (R/p ≈ 5.3); secp256k1 (p ≈ 2^256) needs 9.
pub fn wide_limbs(modulus: &BigUint) -> usize {
    let fits = |n: usize| {
        let r = BigUint::from(1u32) << (32 * n);
        let top = (modulus >> (32 * (n - 1))).iter_u32_digits().next().unwrap_or(0);
        let lazy = BigUint::from(8u32) * modulus < r;
        let operands: u32 = if lazy { 5 } else { 3 };
        modulus < &r && top < 0x7fff_ffff && BigUint::from(operands) * modulus * ((1u64 << 31) + 1) < (r << 31u32)
    };
    let mut n = (modulus.bits() as usize).div_ceil(32);
    while !fits(n) {
        n += 1;
    }
    n
}

/// Montgomery parameters of a prime field for limbs of `limb_bits` bits.
#[derive(Clone, Debug)]
pub struct Montgomery {
    /// The field modulus `p`.
    pub modulus: BigUint,
    /// Bits per limb: [`LIMB_BITS`] or [`WIDE_LIMB_BITS`].
    pub limb_bits: u32,
    /// Number of limbs `N`: for 13-bit limbs the smallest with `4p < R` (room for lazy
    /// additions), rounded up to an even count (stored two per `u32`); for 32-bit limbs the
    /// smallest whose no-carry multiplication and fused sums hold ([`wide_limbs`]).
    pub limbs: usize,
    /// `R = 2^(limb_bits·N)`.
    pub r: BigUint,
    /// `R mod p`: one in Montgomery form.
    pub r_mod_p: BigUint,
    /// `R² mod p`: multiplying by it converts into Montgomery form.
    pub r2_mod_p: BigUint,
    /// `R⁻¹ mod p`: multiplying by it converts out of Montgomery form (CPU side).
    pub r_inv: BigUint,
    /// `−p⁻¹ mod 2^limb_bits`, the per-limb reduction factor.
    pub mu: u32,
}

impl Montgomery {
    /// Parameters for the prime `modulus` with 13-bit limbs.
    pub fn new(modulus: &BigUint) -> Self {
        Self::with_limb_bits(modulus, LIMB_BITS)
    }

    /// Parameters for the prime `modulus` with limbs of `limb_bits` bits.
    pub fn with_limb_bits(modulus: &BigUint, limb_bits: u32) -> Self {
        let bits = modulus.bits() as u32 + 2;
        // 13-bit limbs are held and multiplied in pairs (two per u32 where values are packed):
        // an even count.
        let limbs = match limb_bits {
            LIMB_BITS => (bits.div_ceil(limb_bits) as usize).next_multiple_of(2),
            WIDE_LIMB_BITS => wide_limbs(modulus),
            _ => bits.div_ceil(limb_bits) as usize,
        };
        let r = BigUint::from(1u32) << (limb_bits as usize * limbs);
        let r_mod_p = &r % modulus;
        let r2_mod_p = (&r_mod_p * &r_mod_p) % modulus;
        let r_inv = r_mod_p.modinv(modulus).expect("modulus is prime");
        let base = BigUint::from(1u64) << limb_bits;
        let p_inv = (modulus % &base).modinv(&base).expect("modulus is odd");
        let mu = to_words(&(&base - p_inv), 2)[0];
        Montgomery { modulus: modulus.clone(), limb_bits, limbs, r, r_mod_p, r2_mod_p, r_inv, mu }
    }

    /// Whether this field's `field_add_lazy` and `field_sub_lazy` skip the conditional subtraction
    /// of p (see `src/wgsl/field_gen.rs`): where 8p < R, a Montgomery product of operands below 2p
    /// (below 4p²/R + p) and a fused sum of two (below 8p²/R + p) stay below 2p. Every registered
    /// field in 13-bit limbs (`tests/shaders.rs` asserts it); in 32-bit limbs every registered one
    /// but bn254's (R/p ≈ 5.3).
    pub fn takes_lazy_sums(&self) -> bool {
        BigUint::from(8u32) * &self.modulus < self.r
    }

    /// `value` as `N` limbs (no conversion).
    pub fn limbs_of(&self, value: &BigUint) -> Vec<u32> {
        split_limbs(value, self.limbs, self.limb_bits)
    }

    /// Montgomery rounds per loop iteration of this field's multiplication when a form asks for
    /// at most `at_most` ([`MulForm`](crate::wgsl::MulForm)): the largest divisor of the limb
    /// count not above it, since a loop runs whole iterations (8 and 12 limbs take 4 for 4, a
    /// 9-limb field 3). `at_most` ≥ the limb count gives straight-line code.
    pub fn loop_rounds(&self, at_most: usize) -> usize {
        (1..=at_most.clamp(1, self.limbs)).rev().find(|r| self.limbs.is_multiple_of(*r)).expect("1 divides")
    }

    /// `u32` words of one field element in storage buffers (`PackedField` in WGSL): the
    /// little-endian words of its value, which every stored value keeps below p. 13-bit limbs
    /// lie end to end there (a 254-bit field's 20 limbs in 8 words, not 10 of two limbs each),
    /// and a 9-limb 32-bit field below 2^256 stores 8: storage holds the value's bits, registers
    /// its limbs.
    pub fn storage_words(&self) -> usize {
        (self.modulus.bits() as usize).div_ceil(32)
    }

    /// `u32` words of one field element between operations in registers: the 32-bit limbs, or
    /// the 13-bit limbs two per word as the form that keeps values packed holds them
    /// (`src/wgsl/field_packed.rs`).
    pub fn register_words(&self) -> usize {
        if self.limb_bits == LIMB_BITS {
            self.limbs.div_ceil(2)
        } else {
            self.limbs
        }
    }

    /// Storage words of `value` in Montgomery form, as the shaders keep it.
    pub fn to_storage(&self, value: &BigUint) -> Vec<u32> {
        to_words(&((value * &self.r_mod_p) % &self.modulus), self.storage_words())
    }

    /// Canonical value of a Montgomery-form element read from storage.
    pub fn from_storage(&self, words: &[u32]) -> BigUint {
        (BigUint::from_slice(words) * &self.r_inv) % &self.modulus
    }
}
