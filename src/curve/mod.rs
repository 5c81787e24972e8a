//! The curves the GPU pipeline supports: what each curve is (its equation, fields, scalar field,
//! upload encoding and, for a Weierstrass curve with a point of order 2, the map to its twisted
//! Edwards model). How kernels store and add its points is [`crate::point_model`]'s; this module
//! imports none of the pipeline's.
//!
//! [`GpuCurve`] is sealed. Its implementations are blanket ones, one per curve family
//! ([`short_weierstrass`], [`twisted_edwards`]); a curve joins through one line in the
//! [`registry`] and one `impl` of its family's trait.

mod edwards_model;
pub(crate) mod registry;
mod short_weierstrass;
mod twisted_edwards;

use ark_ec::{AffineRepr, CurveConfig};
use ark_ff::{BigInt, BigInteger, Field, Fp, MontBackend, MontConfig, PrimeField};
use num_bigint::BigUint;

pub use edwards_model::{EdwardsConstants, EdwardsMap};
pub use registry::{CurveFn, CurveId};

use crate::limbs::{Montgomery, MulForm, WIDE_LIMB_BITS};

/// The curve's equation: its family, with the coefficients the formulas use.
#[derive(Clone, Debug)]
pub enum Equation {
    /// `y² = x³ + b`, over a prime field (G1) or its quadratic extension (G2, see
    /// [`CurveSpec::extension`]).
    ShortWeierstrassA0 {
        /// The coefficient `b`: its components over the base prime field (one, or c0 and c1).
        b: Vec<BigUint>,
    },
    /// `−x² + y² = 1 + d·x²·y²`.
    TwistedEdwardsAMinus1 {
        /// The coefficient `d`.
        d: BigUint,
    },
}

/// How `check_subgroup` ([`crate::MsmConfig::check_subgroup`]) tells a point of the curve in
/// the prime-order group from one outside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubgroupTest {
    /// [r]·P is the identity: double-and-add over r's bits (any curve).
    Order,
    /// BLS12 G1 (Scott, "A note on group membership tests for G1, G2 and GT on BLS
    /// pairing-friendly curves", eprint 2021/1130, §6, with the proof of eprint 2022/352): P is
    /// in G1 exactly when [x²]·P = −φ(P), where φ(x, y) = (β·x, y): a multiplication by the
    /// 128-bit x² instead of the 255-bit r.
    BlsG1 {
        /// |x|, the BLS parameter's magnitude.
        x: u64,
        /// β, the cube root of unity in Fp of the endomorphism this test holds for.
        beta: BigUint,
    },
    /// BLS12 G2 (the same paper, §4): P is in G2 exactly when ψ(P) = [x]·P, where ψ is the
    /// untwist-Frobenius-twist endomorphism ψ(x, y) = (x̄·ψx, ȳ·ψy) (x̄ the conjugate in Fp2): a
    /// multiplication by the 64-bit |x|, compared with ±ψ(P).
    BlsG2 {
        /// |x|.
        x: u64,
        /// The components over Fp of ψx = 1/ξ^((p−1)/3) and of ±ψy = ±1/ξ^((p−1)/2) (ξ the
        /// twist's non-residue), ψy negated where x < 0: then [|x|]·P = (x̄·ψx, ȳ·(−ψy)).
        psi: [Vec<BigUint>; 2],
    },
}

/// What a curve is, as the shader generator and the host code need it: its equation, fields,
/// scalar field and upload encoding. How kernels store and add its points is its point model's
/// business ([`crate::point_model`]).
#[derive(Clone, Debug)]
pub struct CurveSpec {
    /// Name used in labels, errors and the JS API.
    pub name: &'static str,
    /// Montgomery parameters of the base prime field in 13-bit limbs (every WebGPU device).
    pub field: Montgomery,
    /// Montgomery parameters of the base prime field in 32-bit limbs ([`MulForm::Wide`]).
    pub wide_field: Montgomery,
    /// The coordinates' field over the base prime field: `None` when they are in it (G1),
    /// else the quadratic extension Fp2 (G2).
    pub extension: Option<QuadraticExtension>,
    /// `u32` words per canonical coordinate in the upload format (both components of an Fp2
    /// coordinate).
    pub coord_words: usize,
    /// Bit length of the scalar field modulus (scalars are below it).
    pub scalar_bits: u32,
    /// The scalar field modulus r (the GPU turns arkworks' Montgomery-form scalars into
    /// integers with it).
    pub scalar_modulus: BigUint,
    /// Whether every point on the curve is in the prime-order group (cofactor 1): then
    /// [`crate::MsmConfig::check_subgroup`] has nothing to check.
    pub prime_order: bool,
    /// How the kernels test that a point is in the prime-order group.
    pub subgroup_test: SubgroupTest,
    /// Curve equation and coefficients.
    pub equation: Equation,
    /// The constants of the map to the curve's twisted Edwards model ([`EdwardsMap`]), for a
    /// short Weierstrass curve over a prime field with a point of order 2 whose model the
    /// kernels may add on.
    pub edwards: Option<EdwardsConstants>,
}

/// Fp2 = Fp[u]/(u² − β).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuadraticExtension {
    /// The non-residue β, an element of the base prime field.
    pub nonresidue: BigUint,
}

impl CurveSpec {
    /// Components of a coordinate over the base prime field: 1, or 2 over Fp2.
    pub fn degree(&self) -> usize {
        if self.extension.is_some() {
            2
        } else {
            1
        }
    }

    /// `u32` words of one base prime field element in the upload format.
    pub fn base_words(&self) -> usize {
        self.coord_words / self.degree()
    }

    /// Bytes of one uploaded point: x then y, `coord_words` words each.
    pub fn raw_point_bytes(&self) -> u64 {
        2 * 4 * self.coord_words as u64
    }

    /// Base field multiplications of one multiplication in the coordinates' field: 1, or 3 in
    /// Fp2 (Karatsuba).
    pub fn base_muls_per_mul(&self) -> u64 {
        if self.extension.is_some() {
            3
        } else {
            1
        }
    }

    /// The base field's Montgomery parameters in the limbs of `form`.
    pub fn field_for(&self, form: MulForm) -> &Montgomery {
        if form.needs_int64() {
            &self.wide_field
        } else {
            &self.field
        }
    }

    /// `u32` words of one coordinate in storage buffers: its components' values, the same in
    /// either limb width ([`Montgomery::storage_words`](crate::limbs::Montgomery::storage_words)).
    pub fn storage_words(&self) -> usize {
        self.field.storage_words() * self.degree()
    }

    /// `u32` words of one coordinate in registers between operations, in the limbs of `form`
    /// ([`Montgomery::register_words`](crate::limbs::Montgomery::register_words)).
    pub fn register_words(&self, form: MulForm) -> usize {
        self.field_for(form).register_words() * self.degree()
    }
}

pub(crate) mod sealed {
    /// Only the crate's curve families implement [`super::GpuCurve`].
    pub trait Sealed {}
}

/// An affine point type whose multi-scalar multiplications can run on the GPU.
///
/// Sealed; implemented for the affine types of [`CurveId`]'s curves (those of this build's
/// cargo features).
pub trait GpuCurve:
    AffineRepr<BaseField: Field<BasePrimeField: MontgomeryLimbs>, ScalarField: MontgomeryLimbs> + sealed::Sealed
{
    /// The curve's registry entry.
    const ID: CurveId;

    /// Curve constants and shader parameters.
    #[doc(hidden)]
    fn spec() -> &'static CurveSpec;

    /// Appends the canonical little-endian words of x then y (`2 · coord_words` words; an Fp2
    /// coordinate as c0 then c1). The identity is written as x = y = 0 on short Weierstrass curves, (0, 1) on Edwards.
    #[doc(hidden)]
    fn push_words(&self, out: &mut Vec<u32>);

    /// Copies arkworks' own Montgomery-form limbs of x then y into `out`
    /// (`2 · coord_words · 4` bytes per point, an Fp2 coordinate as c0 then c1, the short
    /// Weierstrass identity as x = y = 0):
    /// the Rust API's point upload, a copy with no arithmetic.
    #[doc(hidden)]
    fn write_montgomery(points: &[Self], out: wgpu::WriteOnly<'_, [u8]>);

    /// The group element of a GPU point given as its coordinates (projective X, Y, Z or
    /// extended X, Y, T, Z), or `None` if they do not satisfy the curve equation.
    #[doc(hidden)]
    fn group_from_gpu(coords: &[Self::BaseField]) -> Option<Self::Group>;

    /// Whether the point has no image on the curve's twisted Edwards model, where the curve is
    /// computed on it (see [`EdwardsMap`]): the GPU leaves such points out and the host adds
    /// their multiples. Only points outside the prime-order subgroup.
    #[doc(hidden)]
    fn lacks_edwards_image(&self) -> bool;

    /// The point with canonical little-endian coordinates `x` and `y` (the bytes API's
    /// encoding, where x = y = 0 is the short Weierstrass identity), checked to be on the curve.
    #[doc(hidden)]
    fn from_xy_bytes(x: &[u8], y: &[u8]) -> Result<Self, PointError>;
}

/// A prime-field element stored the way arkworks' Montgomery backend stores it: little-endian
/// 64-bit limbs of `a·2^(64·N) mod p`. Uploading these limbs as they are is what keeps the
/// Rust API's host work a copy; the GPU's first steps take them out of arkworks' form.
pub trait MontgomeryLimbs: Sized {
    /// The limbs, in memory order.
    fn montgomery_limbs(&self) -> &[u64];
    /// The element whose Montgomery-form limbs are `limbs` (any further limbs zero), or `None`
    /// if they are not below the modulus.
    fn from_montgomery_limbs(limbs: &[u64]) -> Option<Self>;
}

impl<T: MontConfig<N>, const N: usize> MontgomeryLimbs for Fp<MontBackend<T, N>, N> {
    fn montgomery_limbs(&self) -> &[u64] {
        &self.0 .0
    }

    fn from_montgomery_limbs(limbs: &[u64]) -> Option<Self> {
        let (low, high) = limbs.split_at(limbs.len().min(N));
        let mut value = BigInt::<N>([0; N]);
        value.0[..low.len()].copy_from_slice(low);
        (high.iter().all(|&l| l == 0) && value < T::MODULUS).then(|| Fp::new_unchecked(value))
    }
}

// Limbs are uploaded as their bytes in memory, which are the shaders' little-endian u32 words
// only on little-endian hosts (every target wgpu runs on).
const _: () = assert!(cfg!(target_endian = "little"), "uploads assume a little-endian host");

/// Copies the Montgomery limbs of each item's coordinates (`fields(item)`, every base prime
/// field component `bytes_per_field` bytes; `None` writes zeros) into consecutive slots of
/// `out`.
pub(crate) fn write_limbs<T, F: Field<BasePrimeField: MontgomeryLimbs>, const K: usize>(
    items: &[T],
    bytes_per_field: usize,
    mut out: wgpu::WriteOnly<'_, [u8]>,
    fields: impl Fn(&T) -> Option<[&F; K]>,
) {
    let degree = F::extension_degree() as usize;
    for item in items {
        match fields(item) {
            Some(fields) => {
                for component in fields.into_iter().flat_map(|field| field.to_base_prime_field_elements()) {
                    let (mut head, tail) = out.split_at(bytes_per_field);
                    head.copy_from_slice(bytemuck::cast_slice(component.montgomery_limbs()));
                    out = tail;
                }
            }
            None => {
                let (mut head, tail) = out.split_at(K * degree * bytes_per_field);
                head.fill(0);
                out = tail;
            }
        }
    }
}

/// Why bytes do not encode a curve point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointError {
    /// A coordinate is not below the base field modulus.
    CoordinateOutOfRange,
    /// The coordinates do not satisfy the curve equation.
    NotOnCurve,
}

/// A canonical little-endian field element, or `None` if it is not below the modulus.
fn field_from_le<F: PrimeField>(bytes: &[u8]) -> Option<F> {
    let value = BigUint::from_bytes_le(bytes);
    let modulus = BigUint::from_bytes_le(&F::MODULUS.to_bytes_le());
    (value < modulus).then(|| field_of(&value))
}

/// A coordinate from its canonical little-endian bytes (an Fp2 one as c0 then c1, each half
/// of the bytes), or `None` if a component is not below the modulus.
fn coordinate_from_le<F: Field>(bytes: &[u8]) -> Option<F> {
    let degree = F::extension_degree() as usize;
    let components: Option<Vec<F::BasePrimeField>> =
        bytes.chunks(bytes.len() / degree).map(field_from_le::<F::BasePrimeField>).collect();
    F::from_base_prime_field_elems(components?)
}

pub(crate) fn xy_from_le<F: Field>(x: &[u8], y: &[u8]) -> Result<(F, F), PointError> {
    match (coordinate_from_le(x), coordinate_from_le(y)) {
        (Some(x), Some(y)) => Ok((x, y)),
        _ => Err(PointError::CoordinateOutOfRange),
    }
}

/// An encoded point's bytes (x‖y, each coordinate's base prime field components of equal
/// size one after another) with every component taken from canonical form into Montgomery form
/// (`to_montgomery`) or back, or `None` if a component is not below the modulus. The bytes
/// API's point forms ([`crate::bytes::PointForm`]); only a result or a point the host must add
/// goes through it, never a whole input.
pub(crate) fn convert_point_form<F: Field<BasePrimeField: MontgomeryLimbs>>(
    bytes: &[u8],
    to_montgomery: bool,
) -> Option<Vec<u8>> {
    let component_bytes = bytes.len() / (2 * F::extension_degree() as usize);
    let mut out = Vec::with_capacity(bytes.len());
    for component in bytes.chunks(component_bytes) {
        let converted = if to_montgomery {
            let value = field_from_le::<F::BasePrimeField>(component)?;
            value.montgomery_limbs().iter().flat_map(|limb| limb.to_le_bytes()).collect()
        } else {
            let limbs: Vec<u64> = component
                .chunks(8)
                .map(|chunk| {
                    let mut le = [0u8; 8];
                    le[..chunk.len()].copy_from_slice(chunk);
                    u64::from_le_bytes(le)
                })
                .collect();
            F::BasePrimeField::from_montgomery_limbs(&limbs)?.into_bigint().to_bytes_le()
        };
        // Both forms are below the modulus, so limbs past the component's bytes are zero.
        let start = out.len();
        out.extend_from_slice(&converted[..converted.len().min(component_bytes)]);
        out.resize(start + component_bytes, 0);
    }
    Some(out)
}

/// Appends the canonical little-endian `u32` words of a coordinate (`words` in all; an Fp2
/// one as c0 then c1, each half of them).
pub(crate) fn push_field_words<F: Field>(value: &F, words: usize, out: &mut Vec<u32>) {
    let per_component = words / F::extension_degree() as usize;
    for component in value.to_base_prime_field_elements() {
        let start = out.len();
        for limb in component.into_bigint().as_ref() {
            out.push(*limb as u32);
            out.push((*limb >> 32) as u32);
        }
        out.resize(start + per_component, 0);
    }
}

/// Appends the 8 little-endian `u32` words of a scalar (below 2^256).
pub(crate) fn push_scalar_words<F: PrimeField>(value: &F, out: &mut Vec<u32>) {
    push_field_words(value, SCALAR_WORDS, out);
}

/// Upload words of `scalars` (`SCALAR_WORDS` per scalar).
pub(crate) fn scalar_words<F: PrimeField>(scalars: &[F]) -> Vec<u32> {
    let mut words = Vec::with_capacity(scalars.len() * SCALAR_WORDS);
    scalars.iter().for_each(|s| push_scalar_words(s, &mut words));
    words
}

/// `u32` words per scalar in the upload format.
pub(crate) const SCALAR_WORDS: usize = 8;
/// Widest scalar the pipeline takes (the bytes API accepts any 256-bit integer).
pub(crate) const MAX_SCALAR_BITS: u32 = 32 * SCALAR_WORDS as u32;

pub(crate) fn biguint_of<F: PrimeField>(value: &F) -> BigUint {
    BigUint::from_bytes_le(&value.into_bigint().to_bytes_le())
}

/// The components of a coordinate-field element over its base prime field, as integers.
pub(crate) fn components_of<F: Field>(value: &F) -> Vec<BigUint> {
    value.to_base_prime_field_elements().map(|c| biguint_of(&c)).collect()
}

pub(crate) fn field_of<F: PrimeField>(value: &BigUint) -> F {
    F::from_le_bytes_mod_order(&value.to_bytes_le())
}

/// The spec of registry entry `id`, whose arkworks configuration is `C` and equation
/// `equation()` (with its Edwards map's constants, where it has one), computed on first use (what
/// every family's [`GpuCurve::spec`] returns).
pub(crate) fn spec_of<
    C: CurveConfig<BaseField: Field<BasePrimeField: MontgomeryLimbs>, ScalarField: MontgomeryLimbs>,
>(
    id: CurveId,
    equation: impl FnOnce() -> (Equation, Option<EdwardsConstants>, SubgroupTest),
) -> &'static CurveSpec {
    type Prime<C> = <<C as CurveConfig>::BaseField as Field>::BasePrimeField;
    id.spec_cell().get_or_init(|| {
        let modulus = BigUint::from_bytes_le(&Prime::<C>::MODULUS.to_bytes_le());
        let base_words = (modulus.bits() as usize).div_ceil(32);
        // Uploads copy arkworks' 64-bit limbs as they are: they must fill whole coordinates.
        assert_eq!(2 * Prime::<C>::MODULUS.as_ref().len(), base_words, "{id}: base field limbs");
        let extension = match C::BaseField::extension_degree() {
            1 => None,
            2 => {
                // u² = β for u = (0, 1).
                let u = C::BaseField::from_base_prime_field_elems([Prime::<C>::from(0u8), Prime::<C>::from(1u8)])
                    .expect("two components");
                let square = components_of(&u.square());
                assert_eq!(square[1], BigUint::default(), "{id}: u² is in the base field");
                Some(QuadraticExtension { nonresidue: square[0].clone() })
            }
            degree => panic!("{id}: coordinates of extension degree {degree}"),
        };
        let coord_words = base_words * C::BaseField::extension_degree() as usize;
        assert_eq!(2 * C::ScalarField::MODULUS.as_ref().len(), SCALAR_WORDS, "{id}: scalar field limbs");
        let (equation, edwards, subgroup_test) = equation();
        CurveSpec {
            name: id.name(),
            extension,
            coord_words,
            field: Montgomery::new(&modulus),
            wide_field: Montgomery::with_limb_bits(&modulus, WIDE_LIMB_BITS),
            scalar_bits: C::ScalarField::MODULUS_BIT_SIZE,
            scalar_modulus: BigUint::from_bytes_le(&C::ScalarField::MODULUS.to_bytes_le()),
            prime_order: C::COFACTOR.iter().enumerate().all(|(k, &limb)| limb == u64::from(k == 0)),
            subgroup_test,
            equation,
            edwards,
        }
    })
}
