//! Twisted Edwards curves −x² + y² = 1 + d·x²·y² (a = −1). One blanket [`GpuCurve`]
//! implementation; a curve joins with one impl of [`TwistedEdwardsAMinus1`] naming its registry
//! entry.

use ark_ec::twisted_edwards::{Affine, Projective, TECurveConfig};
use ark_ff::{Field, PrimeField, Zero};

use super::{biguint_of, push_field_words, spec_of, write_limbs, xy_from_le};
use super::{sealed::Sealed, CurveId, CurveSpec, Equation, GpuCurve, MontgomeryLimbs, PointError, SubgroupTest};

/// The arkworks configuration of a twisted Edwards curve with a = −1 in the registry.
/// Unnameable outside the crate, so [`GpuCurve`] stays sealed.
pub trait TwistedEdwardsAMinus1:
    TECurveConfig<BaseField: PrimeField + MontgomeryLimbs, ScalarField: MontgomeryLimbs>
{
    /// The curve's registry entry.
    const ID: CurveId;
}

#[cfg(feature = "ed-on-bls12-377")]
impl TwistedEdwardsAMinus1 for ark_ed_on_bls12_377::EdwardsConfig {
    const ID: CurveId = CurveId::EdOnBls12_377;
}

impl<C: TwistedEdwardsAMinus1> Sealed for Affine<C> {}

impl<C: TwistedEdwardsAMinus1> GpuCurve for Affine<C> {
    const ID: CurveId = C::ID;

    fn spec() -> &'static CurveSpec {
        spec_of::<C>(C::ID, || {
            assert!(C::COEFF_A == -C::BaseField::ONE, "{}: the formulas assume a = −1", C::ID);
            (Equation::TwistedEdwardsAMinus1 { d: biguint_of(&C::COEFF_D) }, None, SubgroupTest::Order)
        })
    }

    fn push_words(&self, out: &mut Vec<u32>) {
        let words = Self::spec().coord_words;
        push_field_words(&self.x, words, out);
        push_field_words(&self.y, words, out);
    }

    fn write_montgomery(points: &[Self], out: wgpu::WriteOnly<'_, [u8]>) {
        let bytes = 4 * Self::spec().base_words();
        write_limbs(points, bytes, out, |p| Some([&p.x, &p.y]));
    }

    fn group_from_gpu(coords: &[C::BaseField]) -> Option<Projective<C>> {
        let &[x, y, t, z] = coords else { return None };
        // Extended coordinates: a·X² + Y² = Z² + d·T² and X·Y = T·Z, with Z ≠ 0.
        let on_curve = C::COEFF_A * x.square() + y.square() == z.square() + C::COEFF_D * t.square()
            && x * y == t * z
            && !z.is_zero();
        on_curve.then(|| Projective::new_unchecked(x, y, t, z))
    }

    fn lacks_edwards_image(&self) -> bool {
        false
    }

    fn from_xy_bytes(x: &[u8], y: &[u8]) -> Result<Self, PointError> {
        let (x, y) = xy_from_le::<C::BaseField>(x, y)?;
        let point = Self::new_unchecked(x, y);
        point.is_on_curve().then_some(point).ok_or(PointError::NotOnCurve)
    }
}
