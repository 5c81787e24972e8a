//! Property tests of the bytes API (`webgpu_msm::bytes`), on every curve of the build: no input
//! panics, and every input gets exactly the result of an independent reference written here from
//! arkworks (`from_bigint` for the canonical range, the curve equation from arkworks'
//! coefficients, arkworks' own encoding of valid points, arkworks' integer scalar
//! multiplication for the sum). Lengths are checked on the host (`check_lengths`); points are
//! checked by the GPU's first step, so each case runs `msm_bytes` over the points,
//! `prepare_bytes` and `msm_bytes` over the prepared bases on the shared GPU context (skipped without an adapter, except with
//! `CI=true`).
//!
//! The contract, as the reference states it:
//! 1. the points buffer's length is a multiple of the point size, else `BadLength`;
//! 2. the scalars buffer's length is a multiple of 32 bytes, else `BadLength`;
//! 3. both give the same count, else `LengthMismatch` (prepared bases take fewer scalars: the
//!    MSM over their first points);
//! 4. point by point, the first bad one names the error: `CoordinateOutOfRange` if x or y (or,
//!    in Fp2, either component of one) is not below the base field modulus, else `NotOnCurve` if (x, y) is not on the curve. Only the
//!    curve equation is checked (as `from_xy_bytes` does): points outside the prime-order
//!    subgroup are accepted. On short Weierstrass curves, x = y = 0 is the identity.
//!
//! 5. valid input gives Σ kᵢ·Pᵢ with every 32-byte scalar taken as an integer (on points outside
//!    the prime-order subgroup too), in the points encoding.
//!
//! Case counts are small so the file runs in under a minute on lavapipe; `PROPTEST_CASES=N` runs
//! N cases of every property instead.

use ark_ec::short_weierstrass::{self as sw, SWCurveConfig};
use ark_ec::twisted_edwards::{self as te, TECurveConfig};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{BigInteger, Field, Fp, FpConfig, One, PrimeField, QuadExtConfig, QuadExtField, Zero};
use num_bigint::BigUint;
use proptest::collection::vec;
use proptest::prelude::*;
use webgpu_msm::bytes::{point_bytes, SCALAR_BYTES};
use webgpu_msm::testing::{check_lengths, encode_point, shared_context};
use webgpu_msm::{CurveId, GpuCurve, MsmConfig, MsmError};

use crate::bytes_call::msm_bytes;

use crate::curve_names::DOCUMENTED_NAMES as NAMES;

/// A curve's cases by its test tier (src/curve/registry.rs): `every_plan` curves run `default`,
/// `kernels_only` ones a quarter (their encodings and checks are a representative's with other
/// constants), or `PROPTEST_CASES` if it is set.
fn tier_cases(tier: &str, default: u32) -> ProptestConfig {
    cases(if tier == "kernels_only" { default / 4 } else { default })
}

/// `default` cases, or `PROPTEST_CASES` if it is set.
fn cases(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(default);
    ProptestConfig::with_cases(cases)
}

/// A coordinate field in the documented encoding: a prime field element as whole 32-bit words of
/// its canonical little-endian integer; an Fp2 element as c0 then c1.
trait Coordinate: Field {
    /// Bytes of one coordinate.
    const BYTES: usize;
    /// The element, or `None` if a component is not below the modulus (arkworks' `from_bigint`
    /// decides).
    fn from_le(bytes: &[u8]) -> Option<Self>;
    /// The encoding.
    fn to_le(&self) -> Vec<u8>;
}

impl<P: FpConfig<N>, const N: usize> Coordinate for Fp<P, N> {
    const BYTES: usize = coord_bytes(Self::MODULUS_BIT_SIZE);

    fn from_le(bytes: &[u8]) -> Option<Self> {
        canonical(bytes)
    }

    fn to_le(&self) -> Vec<u8> {
        self.into_bigint().to_bytes_le()
    }
}

impl<P: QuadExtConfig<BaseField: Coordinate>> Coordinate for QuadExtField<P> {
    const BYTES: usize = 2 * P::BaseField::BYTES;

    fn from_le(bytes: &[u8]) -> Option<Self> {
        let (c0, c1) = bytes.split_at(P::BaseField::BYTES);
        Some(QuadExtField::new(P::BaseField::from_le(c0)?, P::BaseField::from_le(c1)?))
    }

    fn to_le(&self) -> Vec<u8> {
        [self.c0.to_le(), self.c1.to_le()].concat()
    }
}

/// What the tests need to know about a curve, written from arkworks and the documented encoding
/// rather than from the crate.
trait Reference: GpuCurve {
    /// The coordinates' field (the base field, or Fp2 on G2).
    type Fq: Coordinate;
    /// Bytes per coordinate in the documented encoding.
    const COORD_BYTES: usize = Self::Fq::BYTES;
    const POINT_BYTES: usize = 2 * Self::COORD_BYTES;

    /// Whether canonical coordinates (x, y) encode a point: the curve equation, or the
    /// identity encoding.
    fn is_point(x: Self::Fq, y: Self::Fq) -> bool;
    /// arkworks' own verdict on the affine point (x, y), `is_on_curve` on `new_unchecked`.
    fn arkworks_on_curve(x: Self::Fq, y: Self::Fq) -> bool;
    /// The point with coordinates (x, y) in the encoding's convention, unchecked.
    fn from_coords(x: Self::Fq, y: Self::Fq) -> Self;
    /// The coordinates of a point in the encoding's convention.
    fn coords(point: &Self) -> (Self::Fq, Self::Fq);
    /// A point on the curve, in the prime-order subgroup or not, from one coordinate.
    fn from_coordinate(c: Self::Fq, greatest: bool) -> Option<Self>;
    /// arkworks' subgroup check, for a point on the curve.
    fn in_prime_order_subgroup(&self) -> bool;
}

/// Bytes per coordinate in the documented encoding: whole 32-bit words of the base field.
const fn coord_bytes(modulus_bits: u32) -> usize {
    4 * modulus_bits.div_ceil(32) as usize
}

/// Short Weierstrass curves: y² = x³ + a·x + b with arkworks' coefficients; x = y = 0 is the
/// identity.
impl<P: SWCurveConfig> Reference for sw::Affine<P>
where
    Self: GpuCurve,
    P::BaseField: Coordinate,
{
    type Fq = P::BaseField;

    fn is_point(x: Self::Fq, y: Self::Fq) -> bool {
        (x.is_zero() && y.is_zero()) || y.square() == x.square() * x + P::COEFF_A * x + P::COEFF_B
    }

    fn arkworks_on_curve(x: Self::Fq, y: Self::Fq) -> bool {
        Self::new_unchecked(x, y).is_on_curve()
    }

    fn from_coords(x: Self::Fq, y: Self::Fq) -> Self {
        if x.is_zero() && y.is_zero() {
            Self::zero()
        } else {
            Self::new_unchecked(x, y)
        }
    }

    fn coords(point: &Self) -> (Self::Fq, Self::Fq) {
        if point.is_zero() {
            (Self::Fq::zero(), Self::Fq::zero())
        } else {
            (point.x, point.y)
        }
    }

    /// Points of order 2, (x, 0) with x³ = −b (BLS12-377's G1, whose cofactor is even, has
    /// them), are left out: the complete projective formulas assume odd order, and the crate
    /// answers them with `InvalidGpuResult` or the right sum, never a wrong one (tests/msm.rs,
    /// `bls12_377_point_of_order_two_is_never_a_wrong_answer`).
    fn from_coordinate(x: Self::Fq, greatest: bool) -> Option<Self> {
        Self::get_point_from_x_unchecked(x, greatest).filter(|p| !p.y.is_zero())
    }

    fn in_prime_order_subgroup(&self) -> bool {
        self.is_in_correct_subgroup_assuming_on_curve()
    }
}

/// Twisted Edwards curves: a·x² + y² = 1 + d·x²·y² with arkworks' coefficients.
impl<P: TECurveConfig> Reference for te::Affine<P>
where
    Self: GpuCurve,
    P::BaseField: Coordinate,
{
    type Fq = P::BaseField;

    fn is_point(x: Self::Fq, y: Self::Fq) -> bool {
        let (x2, y2) = (x.square(), y.square());
        P::COEFF_A * x2 + y2 == Self::Fq::one() + P::COEFF_D * x2 * y2
    }

    fn arkworks_on_curve(x: Self::Fq, y: Self::Fq) -> bool {
        Self::new_unchecked(x, y).is_on_curve()
    }

    fn from_coords(x: Self::Fq, y: Self::Fq) -> Self {
        Self::new_unchecked(x, y)
    }

    fn coords(point: &Self) -> (Self::Fq, Self::Fq) {
        (point.x, point.y)
    }

    fn from_coordinate(y: Self::Fq, greatest: bool) -> Option<Self> {
        Self::get_point_from_y_unchecked(y, greatest)
    }

    fn in_prime_order_subgroup(&self) -> bool {
        self.is_in_correct_subgroup_assuming_on_curve()
    }
}

/// A coordinate as a field element, or `None` if it is not below the modulus (arkworks'
/// `from_bigint` decides).
fn canonical<F: PrimeField>(bytes: &[u8]) -> Option<F> {
    let mut big = F::BigInt::default();
    assert_eq!(bytes.len(), 8 * big.as_ref().len(), "one coordinate is the field's limbs");
    for (limb, chunk) in big.as_mut().iter_mut().zip(bytes.chunks_exact(8)) {
        *limb = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
    }
    F::from_bigint(big)
}

/// The expected outcome of an MSM of `points` and `scalars` on curve `C` (see the module doc):
/// the result in the points encoding, or the error.
fn reference_msm<C: Reference>(points: &[u8], scalars: &[u8]) -> Result<Vec<u8>, MsmError> {
    let size = C::POINT_BYTES;
    if !points.len().is_multiple_of(size) {
        return Err(MsmError::BadLength { what: "points", len: points.len(), element: size });
    }
    if !scalars.len().is_multiple_of(32) {
        return Err(MsmError::BadLength { what: "scalars", len: scalars.len(), element: 32 });
    }
    if points.len() / size != scalars.len() / 32 {
        return Err(MsmError::LengthMismatch { points: points.len() / size, scalars: scalars.len() / 32 });
    }
    let points = reference_points::<C>(points)?;
    // Integer scalars: arkworks' double-and-add by the 256-bit integer, subgroup or not.
    let sum: C::Group = points
        .iter()
        .zip(scalars.chunks_exact(32))
        .map(|(p, k)| {
            let limbs: Vec<u64> =
                k.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes"))).collect();
            p.mul_bigint(&limbs)
        })
        .sum();
    Ok(encode_reference::<C>(&sum.into_affine()))
}

/// The points of a points buffer whose length is whole, or the first bad one's error.
fn reference_points<C: Reference>(points: &[u8]) -> Result<Vec<C>, MsmError> {
    let mut out = Vec::new();
    for (index, point) in points.chunks_exact(C::POINT_BYTES).enumerate() {
        let (x, y) = point.split_at(C::COORD_BYTES);
        let (Some(x), Some(y)) = (C::Fq::from_le(x), C::Fq::from_le(y)) else {
            return Err(MsmError::CoordinateOutOfRange { index });
        };
        if !C::is_point(x, y) {
            return Err(MsmError::NotOnCurve { index });
        }
        out.push(C::from_coords(x, y));
    }
    Ok(out)
}

/// A point in the documented encoding, from arkworks' canonical little-endian coordinates.
fn encode_reference<C: Reference>(point: &C) -> Vec<u8> {
    let (x, y) = C::coords(point);
    let out = [x.to_le(), y.to_le()].concat();
    assert_eq!(out.len(), C::POINT_BYTES);
    out
}

/// Every entry point of the bytes API on the same input, checked against the reference: the
/// host's length checks, and on the GPU `msm_bytes` over the points, `prepare_bytes` and
/// `msm_bytes` over the prepared bases.
fn check_all<C: Reference>(points: &[u8], scalars: &[u8]) -> Result<(), TestCaseError> {
    prop_assert_eq!(point_bytes::<C>(), C::POINT_BYTES);
    let expected = reference_msm::<C>(points, scalars);
    let length_error = |e: &MsmError| matches!(e, MsmError::BadLength { .. } | MsmError::LengthMismatch { .. });
    match check_lengths::<C>(points, scalars) {
        Ok(n) => {
            prop_assert_eq!(n, points.len() / C::POINT_BYTES);
            prop_assert!(expected.as_ref().err().is_none_or(|e| !length_error(e)));
        }
        Err(e) => prop_assert_eq!(Err(e), expected.clone()),
    }
    let Some(ctx) = shared_context() else { return Ok(()) };
    let got = msm_bytes(ctx, C::ID, points, scalars, &MsmConfig::default());
    prop_assert_eq!(&got, &expected);

    let points_expected = if !points.len().is_multiple_of(C::POINT_BYTES) {
        Err(MsmError::BadLength { what: "points", len: points.len(), element: C::POINT_BYTES })
    } else {
        reference_points::<C>(points).map(drop)
    };
    match pollster::block_on(ctx.prepare_bytes(C::ID, points, &MsmConfig::default())) {
        Ok(bases) => {
            prop_assert_eq!(points_expected, Ok(()));
            prop_assert_eq!(bases.len(), points.len() / C::POINT_BYTES);
            let prepared = msm_bytes(ctx, C::ID, &bases, scalars, &MsmConfig::default());
            if scalars.len().is_multiple_of(32) {
                // Fewer scalars than bases: an MSM over the first bases; more: LengthMismatch.
                let (n, m) = (scalars.len() / 32, bases.len());
                let prepared_expected = match n > m {
                    true => Err(MsmError::LengthMismatch { points: m, scalars: n }),
                    false => reference_msm::<C>(&points[..n * C::POINT_BYTES], scalars),
                };
                prop_assert_eq!(prepared, prepared_expected);
            } else {
                let error = MsmError::BadLength { what: "scalars", len: scalars.len(), element: 32 };
                prop_assert_eq!(prepared, Err(error));
            }
        }
        Err(e) => prop_assert_eq!(Err(e), points_expected),
    }
    Ok(())
}

fn bytes(len: impl Into<proptest::collection::SizeRange>) -> impl Strategy<Value = Vec<u8>> {
    vec(any::<u8>(), len)
}

/// Field elements with the edges (0, 1, −1) over-represented; in Fp2, each component so drawn.
fn field<F: Field>() -> BoxedStrategy<F> {
    let component = prop_oneof![
        1 => Just(F::BasePrimeField::zero()),
        1 => Just(F::BasePrimeField::one()),
        1 => Just(-F::BasePrimeField::one()),
        6 => bytes(64).prop_map(|b| F::BasePrimeField::from_le_bytes_mod_order(&b)),
    ];
    vec(component, F::extension_degree() as usize)
        .prop_map(|components| F::from_base_prime_field_elems(components).expect("extension degree"))
        .boxed()
}

/// Valid points: the identity, prime-order points k·G, and points from a random coordinate
/// (almost always outside the prime-order subgroup).
fn valid_point<C: Reference>() -> BoxedStrategy<C> {
    prop_oneof![
        1 => Just(C::zero()),
        3 => bytes(32).prop_map(|k| (C::generator() * C::ScalarField::from_le_bytes_mod_order(&k)).into_affine()),
        2 => (field::<C::Fq>(), any::<bool>())
            .prop_filter_map("no point has this coordinate", |(c, greatest)| C::from_coordinate(c, greatest)),
    ]
    .boxed()
}

/// Encoded valid points, concatenated.
fn valid_points<C: Reference>(count: std::ops::Range<usize>) -> impl Strategy<Value = Vec<u8>> {
    vec(valid_point::<C>(), count).prop_map(|points| points.iter().flat_map(encode_reference::<C>).collect())
}

/// A coordinate not below the modulus: in a prime field, one of [`out_of_range_component`]; in
/// Fp2, such a component beside one in range or arbitrary bytes, either way round.
fn out_of_range<C: Reference>() -> BoxedStrategy<Vec<u8>> {
    type Prime<C> = <<C as Reference>::Fq as Field>::BasePrimeField;
    if C::Fq::extension_degree() == 1 {
        return out_of_range_component::<Prime<C>>();
    }
    let width = C::COORD_BYTES / 2;
    let other = prop_oneof![field::<Prime<C>>().prop_map(|c| c.into_bigint().to_bytes_le()), bytes(width)];
    (out_of_range_component::<Prime<C>>(), other, any::<bool>())
        .prop_map(|(bad, other, first)| if first { [bad, other].concat() } else { [other, bad].concat() })
        .boxed()
}

/// A prime field element not below the modulus p, in the documented width: p + small, p + k
/// with k < 2^(8·width − 1), or anything with the top bit set, where p < 2^(8·width − 1) (every
/// curve but secp256k1); where p fills the width (secp256k1: 2^256 − 2^32 − 977) p + small and
/// p + k with k reduced below 2^(8·width) − p, the only values out of range.
fn out_of_range_component<F: PrimeField>() -> BoxedStrategy<Vec<u8>> {
    let width = coord_bytes(F::MODULUS_BIT_SIZE);
    let top_bit_free = (F::MODULUS_BIT_SIZE as usize) < 8 * width;
    let plus = move |k: &[u8]| {
        let mut k = k.to_vec();
        if !top_bit_free {
            let modulus: BigUint = F::MODULUS.into();
            let headroom = (BigUint::from(1u8) << (8 * width)) - modulus;
            k = (BigUint::from_bytes_le(&k) % headroom).to_bytes_le();
            k.resize(width, 0);
        }
        let mut value = F::MODULUS;
        let mut addend = F::BigInt::default();
        for (limb, chunk) in addend.as_mut().iter_mut().zip(k.chunks_exact(8)) {
            *limb = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        }
        assert!(!value.add_with_carry(&addend), "p + k fits the width");
        value.to_bytes_le()
    };
    let small = move |k: u64| {
        let mut bytes = vec![0; width];
        bytes[..8].copy_from_slice(&k.to_le_bytes());
        plus(&bytes)
    };
    prop_oneof![
        1 => Just(small(0)),
        1 => Just(small(1)),
        1 => Just(vec![0xff; width]),
        2 => (0u64..256).prop_map(small),
        3 => bytes(width).prop_map(move |mut k| {
            k[width - 1] &= 0x7f;
            plus(&k)
        }),
        2 => bytes(width).prop_map(move |mut v| {
            if !top_bit_free {
                return plus(&v);
            }
            v[width - 1] |= 0x80;
            v
        }),
    ]
    .boxed()
}

/// In-range coordinates (x, y) off the curve (and not the identity encoding).
fn off_curve<C: Reference>() -> BoxedStrategy<(C::Fq, C::Fq)> {
    prop_oneof![
        (field::<C::Fq>(), field::<C::Fq>()),
        // A valid point with one coordinate nudged.
        (valid_point::<C>(), any::<bool>(), 1u64..4).prop_map(|(p, nudge_x, delta)| {
            let (x, y) = C::coords(&p);
            let delta = C::Fq::from(delta);
            if nudge_x {
                (x + delta, y)
            } else {
                (x, y + delta)
            }
        }),
    ]
    .prop_filter("on the curve", |&(x, y)| !C::is_point(x, y))
    .boxed()
}

/// A point whose x, y or both are out of range; the other coordinate is in range or arbitrary
/// bytes.
fn bad_range_point<C: Reference>() -> BoxedStrategy<Vec<u8>> {
    let other = prop_oneof![field::<C::Fq>().prop_map(|c| c.to_le()), bytes(C::COORD_BYTES)];
    (out_of_range::<C>(), out_of_range::<C>(), other, 0..3u8)
        .prop_map(|(bad, bad2, other, which)| match which {
            0 => [bad, other].concat(),
            1 => [other, bad].concat(),
            _ => [bad, bad2].concat(),
        })
        .boxed()
}

/// One element of a mixed points buffer.
fn any_point<C: Reference>() -> BoxedStrategy<Vec<u8>> {
    prop_oneof![
        4 => valid_point::<C>().prop_map(|p| encode_reference::<C>(&p)),
        1 => bad_range_point::<C>(),
        1 => off_curve::<C>().prop_map(|(x, y)| [x.to_le(), y.to_le()].concat()),
        1 => bytes(C::POINT_BYTES),
    ]
    .boxed()
}

/// (a) Arbitrary bytes never panic and get a result or the reference's named error.
fn arbitrary_bytes<C: Reference>(points: &[u8], scalars: &[u8]) -> Result<(), TestCaseError> {
    check_all::<C>(points, scalars)
}

/// Mixed buffers: valid and bad points in any order, counts equal or off by one, optional
/// trailing bytes.
fn mixed<C: Reference>(
    points: &[Vec<u8>],
    scalar_delta: i8,
    scalar_bytes: &[u8],
    junk: &[u8],
    junk_on_points: bool,
) -> Result<(), TestCaseError> {
    let mut points = points.concat();
    let n = (points.len() / C::POINT_BYTES).saturating_add_signed(scalar_delta as isize);
    let mut scalars = scalar_bytes[..n * SCALAR_BYTES].to_vec();
    if junk_on_points {
        points.extend_from_slice(junk);
    } else {
        scalars.extend_from_slice(junk);
    }
    check_all::<C>(&points, &scalars)
}

/// (b) A length that is not a multiple of the element size: exactly `BadLength`, from the host.
fn bad_length<C: Reference>(bad_points: &[u8], good_points: &[u8], scalars: &[u8]) -> Result<(), TestCaseError> {
    let points_error = MsmError::BadLength { what: "points", len: bad_points.len(), element: C::POINT_BYTES };
    prop_assert_eq!(check_lengths::<C>(bad_points, scalars).err(), Some(points_error));
    if !scalars.len().is_multiple_of(SCALAR_BYTES) {
        let scalars_error = MsmError::BadLength { what: "scalars", len: scalars.len(), element: SCALAR_BYTES };
        prop_assert_eq!(check_lengths::<C>(good_points, scalars).err(), Some(scalars_error));
    }
    check_all::<C>(bad_points, scalars)?;
    check_all::<C>(good_points, scalars)
}

/// (c) Unequal counts: `LengthMismatch`, whatever the points' contents.
fn mismatch<C: Reference>(points: &[u8], scalars: &[u8]) -> Result<(), TestCaseError> {
    let (n, m) = (points.len() / C::POINT_BYTES, scalars.len() / SCALAR_BYTES);
    prop_assume!(n != m);
    let expected = Some(MsmError::LengthMismatch { points: n, scalars: m });
    prop_assert_eq!(check_lengths::<C>(points, scalars).err(), expected);
    check_all::<C>(points, scalars)
}

/// (d), (e) Valid points, then a bad one at `prefix.len()`, then anything: that index's error,
/// from the GPU.
fn first_bad_point<C: Reference>(
    prefix: &[u8],
    bad: &[u8],
    suffix: &[Vec<u8>],
    scalar_bytes: &[u8],
    expected: MsmError,
) -> Result<(), TestCaseError> {
    let points = [prefix, bad, &suffix.concat()].concat();
    let scalars = &scalar_bytes[..points.len() / C::POINT_BYTES * SCALAR_BYTES];
    prop_assert_eq!(reference_msm::<C>(&points, scalars).err(), Some(expected), "generator");
    check_all::<C>(&points, scalars)
}

fn off_curve_point<C: Reference>(
    prefix: &[u8],
    (x, y): (C::Fq, C::Fq),
    suffix: &[Vec<u8>],
    scalar_bytes: &[u8],
) -> Result<(), TestCaseError> {
    // arkworks' `is_on_curve` and the reference's equation agree.
    prop_assert!(!C::arkworks_on_curve(x, y));
    let bad = [x.to_le(), y.to_le()].concat();
    let index = prefix.len() / C::POINT_BYTES;
    first_bad_point::<C>(prefix, &bad, suffix, scalar_bytes, MsmError::NotOnCurve { index })
}

/// (f) Valid points from arkworks and any scalars give the reference's sum, and the crate
/// encodes arkworks' points as arkworks' canonical bytes.
fn round_trip<C: Reference>(points: &[C], scalar_bytes: &[u8]) -> Result<(), TestCaseError> {
    let encoded: Vec<u8> = points.iter().flat_map(encode_reference::<C>).collect();
    let scalars = &scalar_bytes[..points.len() * SCALAR_BYTES];
    prop_assert!(reference_msm::<C>(&encoded, scalars).is_ok(), "valid input");
    for (point, bytes) in points.iter().zip(encoded.chunks_exact(C::POINT_BYTES)) {
        let (x, y) = C::coords(point);
        prop_assert!(C::is_point(x, y), "the reference takes arkworks' point");
        prop_assert!(point.is_zero() || C::arkworks_on_curve(x, y));
        prop_assert_eq!(encode_point::<C>(&point.into_group()), bytes.to_vec());
    }
    check_all::<C>(&encoded, scalars)
}

macro_rules! curve_properties {
    ($module:ident, $curve:ty, $tier:ident) => {
        mod $module {
            use super::*;
            type C = $curve;
            const P: usize = <C as Reference>::POINT_BYTES;
            const COORD: usize = <C as Reference>::COORD_BYTES;

            proptest! {
                #![proptest_config(tier_cases(stringify!($tier), 256))]

                #[test]
                fn arbitrary_bytes_get_ok_or_a_named_error(
                    points in prop_oneof![bytes(0..4 * P + 3), (0..4usize).prop_flat_map(|n| bytes(n * P))],
                    scalars in prop_oneof![bytes(0..4 * 32 + 3), (0..4usize).prop_flat_map(|n| bytes(n * 32))],
                ) {
                    arbitrary_bytes::<C>(&points, &scalars)?;
                }

                #[test]
                fn bad_lengths_get_bad_length(
                    bad_points in (0..4usize, 1..P).prop_flat_map(|(n, r)| bytes(n * P + r)),
                    good_points in (0..4usize).prop_flat_map(|n| bytes(n * P)),
                    scalars in bytes(0..5 * 32),
                ) {
                    bad_length::<C>(&bad_points, &good_points, &scalars)?;
                }

                #[test]
                fn unequal_counts_get_length_mismatch(
                    points in (0..5usize).prop_flat_map(|n| bytes(n * P)),
                    scalars in (0..5usize).prop_flat_map(|n| bytes(n * 32)),
                ) {
                    mismatch::<C>(&points, &scalars)?;
                }
            }

            proptest! {
                #![proptest_config(tier_cases(stringify!($tier), 96))]

                #[test]
                fn mixed_buffers_match_the_reference(
                    points in vec(any_point::<C>(), 0..6),
                    scalar_delta in prop_oneof![4 => Just(0i8), 1 => Just(-1i8), 1 => Just(1i8)],
                    scalar_bytes in bytes(7 * 32),
                    junk in prop_oneof![4 => bytes(0..1), 1 => bytes(1..P)],
                    junk_on_points in any::<bool>(),
                ) {
                    mixed::<C>(&points, scalar_delta, &scalar_bytes, &junk, junk_on_points)?;
                }

                #[test]
                fn first_out_of_range_coordinate_is_named(
                    prefix in valid_points::<C>(0..4),
                    bad in bad_range_point::<C>(),
                    suffix in vec(prop_oneof![bytes(P), any_point::<C>()], 0..3),
                    scalar_bytes in bytes(8 * 32),
                ) {
                    prop_assert_eq!(bad.len(), 2 * COORD);
                    let index = prefix.len() / P;
                    first_bad_point::<C>(&prefix, &bad, &suffix, &scalar_bytes,
                        MsmError::CoordinateOutOfRange { index })?;
                }

                #[test]
                fn first_off_curve_point_is_named(
                    prefix in valid_points::<C>(0..4),
                    bad in off_curve::<C>(),
                    suffix in vec(prop_oneof![bytes(P), any_point::<C>()], 0..3),
                    scalar_bytes in bytes(8 * 32),
                ) {
                    off_curve_point::<C>(&prefix, bad, &suffix, &scalar_bytes)?;
                }

                #[test]
                fn points_outside_the_subgroup_are_accepted(
                    point in (field::<<C as Reference>::Fq>(), any::<bool>())
                        .prop_filter_map("no point", |(c, greatest)| C::from_coordinate(c, greatest)),
                    scalar in bytes(32),
                ) {
                    // Random points of a curve with a cofactor are almost never in the subgroup;
                    // BN254's G1 has cofactor 1, so it has no others to test.
                    if point.in_prime_order_subgroup() {
                        return Ok(());
                    }
                    // The GPU checks the curve equation only, as the bytes module documents.
                    round_trip::<C>(&[point], &scalar)?;
                }

                #[test]
                fn valid_points_and_scalars_round_trip(
                    points in vec(valid_point::<C>(), 0..6),
                    scalar_bytes in bytes(6 * 32),
                ) {
                    round_trip::<C>(&points, &scalar_bytes)?;
                }
            }
        }
    };
}

webgpu_msm::for_each_curve!(curve_properties);

/// Near misses of a curve name: case, padding, one character dropped, inserted or replaced.
fn near_miss(name: &'static str) -> impl Strategy<Value = String> {
    let len = name.len();
    prop_oneof![
        Just(name.to_uppercase()),
        "[ \t\n\r]{1,2}".prop_map(move |pad| format!("{pad}{name}")),
        "[ \t\n\r\\x00]{1,2}".prop_map(move |pad| format!("{name}{pad}")),
        (0..len).prop_map(move |i| format!("{}{}", &name[..i], &name[i + 1..])),
        (0..=len, any::<char>()).prop_map(move |(i, c)| format!("{}{c}{}", &name[..i], &name[i..])),
        (0..len, any::<char>()).prop_map(move |(i, c)| format!("{}{c}{}", &name[..i], &name[i + 1..])),
    ]
}

proptest! {
    #![proptest_config(cases(256))]

    /// (g) Every name but the curves' gets `UnknownCurve` with the name, whose message lists
    /// the build's curves.
    #[test]
    fn unknown_curve_names_get_unknown_curve(
        name in prop_oneof![any::<String>(), (0..NAMES.len()).prop_flat_map(|i| near_miss(NAMES[i]))],
    ) {
        match name.parse::<CurveId>() {
            Ok(curve) => prop_assert_eq!(curve.name(), name.as_str()),
            Err(e) => {
                prop_assert!(!NAMES.contains(&name.as_str()), "{name:?} is a curve");
                prop_assert_eq!(&e, &MsmError::UnknownCurve(name.clone()));
                let message = e.to_string();
                prop_assert!(NAMES.iter().all(|known| message.contains(&format!("{known:?}"))), "{message}");
            }
        }
    }
}

#[test]
fn known_curve_names_parse() {
    let parsed: Vec<&str> = NAMES.iter().map(|name| name.parse::<CurveId>().expect(name).name()).collect();
    assert_eq!(parsed, NAMES);
    assert_eq!(CurveId::ALL.len(), NAMES.len(), "one CurveId per curve feature");
}
