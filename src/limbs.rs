//! Big integers as 13-bit limbs, the representation every shader uses.
//!
//! A field element lives on the GPU as `N` limbs of [`LIMB_BITS`] bits, each in the low bits of a
//! `u32`, in Montgomery form with radix `R = 2^(13·N)`. In storage buffers two limbs share one
//! `u32` (limb `2k` in the low half, limb `2k+1` in the high half), which halves memory and
//! bandwidth. This module holds the CPU side of that representation: conversions and the
//! Montgomery constants the shader generator emits.

use num_bigint::BigUint;

/// Bits per limb. With 13-bit limbs a `u32` accumulator absorbs 64 limb products without
/// overflow, enough for a 30-limb Montgomery multiplication without intermediate carries.
pub const LIMB_BITS: u32 = 13;
/// `2^LIMB_BITS - 1`.
pub const LIMB_MASK: u32 = (1 << LIMB_BITS) - 1;

/// Splits `value` into `n` little-endian 13-bit limbs. Panics if it does not fit (constants only).
pub fn to_limbs(value: &BigUint, n: usize) -> Vec<u32> {
    assert!(value.bits() <= (n as u64) * LIMB_BITS as u64, "value wider than {n} limbs");
    let mut limbs = Vec::with_capacity(n);
    let mut rest = value.clone();
    for _ in 0..n {
        let low = rest.iter_u32_digits().next().unwrap_or(0);
        limbs.push(low & LIMB_MASK);
        rest >>= LIMB_BITS;
    }
    limbs
}

/// Joins little-endian limbs (each may exceed 13 bits) into an integer.
pub fn from_limbs(limbs: &[u32]) -> BigUint {
    limbs.iter().rev().fold(BigUint::default(), |acc, &l| (acc << LIMB_BITS) + l)
}

/// Packs 13-bit limbs two per `u32`, the storage-buffer layout.
pub fn pack_limbs(limbs: &[u32]) -> Vec<u32> {
    limbs.chunks(2).map(|p| p[0] | (p.get(1).copied().unwrap_or(0) << 16)).collect()
}

/// Inverse of [`pack_limbs`].
pub fn unpack_limbs(words: &[u32]) -> Vec<u32> {
    words.iter().flat_map(|w| [w & 0xffff, w >> 16]).collect()
}

/// Little-endian `u32` words of `value`, zero-padded to `n` words.
pub fn to_words(value: &BigUint, n: usize) -> Vec<u32> {
    let mut words: Vec<u32> = value.iter_u32_digits().collect();
    assert!(words.len() <= n, "value wider than {n} words");
    words.resize(n, 0);
    words
}

/// Montgomery parameters of a prime field for 13-bit limbs.
#[derive(Clone, Debug)]
pub struct Montgomery {
    /// The field modulus `p`.
    pub modulus: BigUint,
    /// Number of limbs `N`, the smallest with `4p < R` (room for lazy additions).
    pub limbs: usize,
    /// `R = 2^(13·N)`.
    pub r: BigUint,
    /// `R mod p`: one in Montgomery form.
    pub r_mod_p: BigUint,
    /// `R² mod p`: multiplying by it converts into Montgomery form.
    pub r2_mod_p: BigUint,
    /// `R⁻¹ mod p`: multiplying by it converts out of Montgomery form (CPU side).
    pub r_inv: BigUint,
    /// `−p⁻¹ mod 2^13`, the per-limb reduction factor.
    pub mu: u32,
}

impl Montgomery {
    /// Parameters for the prime `modulus`.
    pub fn new(modulus: &BigUint) -> Self {
        let bits = modulus.bits() as u32 + 2;
        let limbs = bits.div_ceil(LIMB_BITS) as usize;
        let r = BigUint::from(1u32) << (LIMB_BITS as usize * limbs);
        let r_mod_p = &r % modulus;
        let r2_mod_p = (&r_mod_p * &r_mod_p) % modulus;
        let r_inv = r_mod_p.modinv(modulus).expect("modulus is prime");
        let base = BigUint::from(1u32) << LIMB_BITS;
        let p_inv = (modulus % &base).modinv(&base).expect("modulus is odd");
        let mu = to_words(&(&base - p_inv), 1)[0] & LIMB_MASK;
        Montgomery { modulus: modulus.clone(), limbs, r, r_mod_p, r2_mod_p, r_inv, mu }
    }

    /// `value · R mod p` as limbs (into Montgomery form).
    pub fn to_mont_limbs(&self, value: &BigUint) -> Vec<u32> {
        to_limbs(&((value * &self.r_mod_p) % &self.modulus), self.limbs)
    }

    /// Canonical value of Montgomery-form limbs (`limbs · R⁻¹ mod p`).
    pub fn from_mont_limbs(&self, limbs: &[u32]) -> BigUint {
        (from_limbs(limbs) * &self.r_inv) % &self.modulus
    }
}
