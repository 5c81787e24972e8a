//! The host's share of the work: Horner's rule over the window sums (c doublings and one
//! addition per window, regardless of n).

use ark_ec::CurveGroup;
use num_bigint::BigUint;

use ark_ff::{Field, PrimeField, Zero};

use crate::curve::{GpuCurve, MontgomeryLimbs};
use crate::limbs::Montgomery;
use crate::plan::Plan;
use crate::point_model::RunningCurve;
use crate::upload::{Points, Scalars};
use crate::wgsl::MulForm;
use crate::MsmError;

/// Decodes Montgomery-form GPU points of kernels on `curve` (its point model's `point_coords`
/// fields each, stored in the limbs of `form`; extended Edwards points on a Weierstrass curve's
/// Edwards image) into group elements, checking each is on the curve.
pub(crate) fn points_from_gpu<G: GpuCurve>(
    words: &[u32],
    curve: RunningCurve,
    form: MulForm,
) -> Result<Vec<G::Group>, MsmError> {
    let (spec, point_coords) = (curve.spec, curve.model.point_coords());
    let decoder = FieldDecoder::<<G::BaseField as Field>::BasePrimeField>::new(spec.field_for(form));
    let field_words = spec.field_for(form).storage_words();
    let invalid = || MsmError::InvalidGpuResult(format!("{} point off the curve", spec.name));
    let mut coords = Vec::with_capacity(point_coords);
    words
        .chunks_exact(point_coords * spec.storage_words())
        .map(|point| {
            coords.clear();
            // A coordinate's components over the base field, c0 first.
            for coordinate in point.chunks_exact(spec.storage_words()) {
                let components = coordinate.chunks_exact(field_words).map(|field| decoder.decode(field));
                let components: Option<Vec<_>> = components.collect();
                let coordinate = G::BaseField::from_base_prime_field_elems(components.ok_or_else(invalid)?);
                coords.push(coordinate.ok_or_else(invalid)?);
            }
            G::group_from_gpu(&coords).ok_or_else(invalid)
        })
        .collect()
}

/// Turns GPU storage words of base-field elements into arkworks elements with no big-integer
/// arithmetic: the words (the Montgomery-form value, in either limb width) are paired into
/// 64-bit words, read as arkworks' Montgomery form, and, where the GPU's R differs from
/// arkworks' (13-bit limbs), multiplied once by R_ark/R.
struct FieldDecoder<F> {
    /// R_ark/R mod p, or `None` where they are equal (32-bit limbs).
    to_arkworks: Option<F>,
}

/// Most 64-bit words of a stored element (a 381-bit field: 6).
const MAX_STORED_WORDS: usize = 6;

impl<F: PrimeField + MontgomeryLimbs> FieldDecoder<F> {
    fn new(field: &Montgomery) -> Self {
        let r_ark = BigUint::from(1u32) << (64 * F::MODULUS.as_ref().len());
        let factor = (r_ark % &field.modulus * &field.r_inv) % &field.modulus;
        let to_arkworks = (factor != BigUint::from(1u32)).then(|| F::from_le_bytes_mod_order(&factor.to_bytes_le()));
        FieldDecoder { to_arkworks }
    }

    /// The element stored in `words`, or `None` if it is not below p.
    fn decode(&self, words: &[u32]) -> Option<F> {
        let mut value = [0u64; MAX_STORED_WORDS];
        for (i, pair) in words.chunks(2).enumerate() {
            value[i] = u64::from(pair[0]) | u64::from(pair.get(1).copied().unwrap_or(0)) << 32;
        }
        let element = F::from_montgomery_limbs(&value)?;
        Some(self.to_arkworks.map_or(element, |factor| element * factor))
    }
}

/// Σ_w 2^(c·w) · window_sums\[w\].
pub(crate) fn combine_windows<G: CurveGroup>(window_sums: &[G], plan: &Plan) -> G {
    let mut result = G::zero();
    for window in window_sums.iter().rev() {
        for _ in 0..plan.window_bits {
            result.double_in_place();
        }
        result += window;
    }
    result
}

/// k·p for the little-endian integer `k`, by double-and-add with arkworks' additions (exact on
/// every point of the curve, unlike endomorphism-based multiplications, which assume the
/// prime-order subgroup).
pub(crate) fn times<G: CurveGroup>(p: G, k: &[u8]) -> G {
    let mut result = G::zero();
    for byte in k.iter().rev() {
        for bit in (0..8).rev() {
            result.double_in_place();
            if (byte >> bit) & 1 == 1 {
                result += p;
            }
        }
    }
    result
}

/// Σ scalars\[i\]·points\[i\] over the points of a pass that the GPU left out for having no
/// Edwards image (only points outside G1 have none), from the lowest one it reported:
/// per-element host work only on such inputs.
pub(crate) fn sum_without_image<G: GpuCurve>(
    points: &Points<'_, G>,
    scalars: &Scalars<'_, G>,
    from: usize,
) -> Result<G::Group, MsmError> {
    let mut sum = G::Group::zero();
    for i in from..points.len() {
        let point =
            points.get(i).ok_or_else(|| MsmError::InvalidGpuResult("a reported point is not on the curve".into()))?;
        if point.lacks_edwards_image() {
            sum += times(point.into_group(), &scalars.le_bytes(i));
        }
    }
    Ok(sum)
}
