//! The host's share of the work: adding each window's partial sums and Horner's rule over the
//! windows (a few thousand point additions, regardless of n).

use ark_ec::CurveGroup;
use num_bigint::BigUint;

use crate::curve::GpuCurve;
use crate::plan::Plan;
use crate::wgsl::MulForm;
use crate::MsmError;

/// Decodes Montgomery-form GPU points (`point_coords` fields each, stored in the limbs of
/// `form`) into group elements.
pub(crate) fn points_from_gpu<G: GpuCurve>(words: &[u32], form: MulForm) -> Result<Vec<G::Group>, MsmError> {
    let spec = G::spec();
    let field = spec.field_for(form);
    let field_words = field.storage_words();
    words
        .chunks_exact(spec.point_coords() * field_words)
        .map(|point| {
            let coords: Vec<BigUint> = point.chunks_exact(field_words).map(|f| field.from_storage(f)).collect();
            G::group_from_gpu(&coords)
                .ok_or_else(|| MsmError::InvalidGpuResult(format!("{} point off the curve", spec.name)))
        })
        .collect()
}

/// Σ_w 2^(c·w) · (Σ_t partials[w·T + t]).
pub(crate) fn combine_windows<G: CurveGroup>(partials: &[G], plan: &Plan) -> G {
    let mut result = G::zero();
    for window in partials.chunks_exact(plan.segments as usize).rev() {
        for _ in 0..plan.window_bits {
            result.double_in_place();
        }
        result += window.iter().sum::<G>();
    }
    result
}
