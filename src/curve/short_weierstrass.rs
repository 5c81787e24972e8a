//! Short Weierstrass curves y² = x³ + b (a = 0): every G1 the crate serves but the Edwards one,
//! and the G2 groups, whose coordinates are in Fp2. One blanket [`GpuCurve`] implementation; a
//! curve joins with one impl of [`ShortWeierstrassA0`] naming its registry entry (and, if it has
//! a point of order 2, its twisted Edwards model).

use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::AffineRepr;
use ark_ff::{Field, Zero};

use super::{components_of, push_field_words, spec_of, write_limbs, xy_from_le};
use super::{sealed::Sealed, CurveId, CurveSpec, EdwardsMap, Equation, GpuCurve, MontgomeryLimbs, PointError};
use super::SubgroupTest;

/// The arkworks configuration of a short Weierstrass curve with a = 0 in the registry.
/// Unnameable outside the crate, so [`GpuCurve`] stays sealed.
pub trait ShortWeierstrassA0:
    SWCurveConfig<BaseField: Field<BasePrimeField: MontgomeryLimbs>, ScalarField: MontgomeryLimbs>
{
    /// The curve's registry entry.
    const ID: CurveId;

    /// The map to the curve's twisted Edwards model, for curves with a point of order 2.
    fn edwards_map() -> Option<&'static EdwardsMap<Self::BaseField>> {
        None
    }

    /// How kernels test membership of the prime-order group: by r unless the curve has a faster
    /// test.
    fn subgroup_test() -> SubgroupTest {
        SubgroupTest::Order
    }
}

#[cfg(feature = "bls12-377")]
impl ShortWeierstrassA0 for ark_bls12_377::g1::Config {
    const ID: CurveId = CurveId::Bls12_377;

    /// (−1, 0) has order 2 (b = 1).
    fn edwards_map() -> Option<&'static EdwardsMap<ark_bls12_377::Fq>> {
        static MAP: std::sync::OnceLock<Option<EdwardsMap<ark_bls12_377::Fq>>> = std::sync::OnceLock::new();
        MAP.get_or_init(|| EdwardsMap::new(-ark_bls12_377::Fq::ONE)).as_ref()
    }
}

#[cfg(feature = "bn254")]
impl ShortWeierstrassA0 for ark_bn254::g1::Config {
    const ID: CurveId = CurveId::Bn254;
}

#[cfg(feature = "bls12-381")]
impl ShortWeierstrassA0 for ark_bls12_381::g1::Config {
    const ID: CurveId = CurveId::Bls12_381;

    /// φ with arkworks' β (its own G1 membership test's).
    fn subgroup_test() -> SubgroupTest {
        use ark_ec::bls12::Bls12Config;
        let [x] = ark_bls12_381::Config::X else { unreachable!("BLS12-381's x is one limb") };
        SubgroupTest::BlsG1 { x: *x, beta: super::biguint_of(&ark_bls12_381::g1::BETA) }
    }
}

/// b = −17; p is bn254's r (254 bits), r its p.
#[cfg(feature = "grumpkin")]
impl ShortWeierstrassA0 for ark_grumpkin::GrumpkinConfig {
    const ID: CurveId = CurveId::Grumpkin;
}

/// b = 5; p = 2^254 + 45560315531419706090280762371685220353 (255 bits).
#[cfg(feature = "pallas")]
impl ShortWeierstrassA0 for ark_pallas::PallasConfig {
    const ID: CurveId = CurveId::Pallas;
}

/// b = 5; p is Pallas' r and r Pallas' p (255 bits each).
#[cfg(feature = "vesta")]
impl ShortWeierstrassA0 for ark_vesta::VestaConfig {
    const ID: CurveId = CurveId::Vesta;
}

/// b = 7; p = 2^256 − 2^32 − 977 (256 bits): nine 32-bit limbs, the top one 0.
#[cfg(feature = "secp256k1")]
impl ShortWeierstrassA0 for ark_secp256k1::Config {
    const ID: CurveId = CurveId::Secp256k1;
}

#[cfg(feature = "bn254")]
impl ShortWeierstrassA0 for ark_bn254::g2::Config {
    const ID: CurveId = CurveId::Bn254G2;
}

#[cfg(feature = "bls12-381")]
impl ShortWeierstrassA0 for ark_bls12_381::g2::Config {
    const ID: CurveId = CurveId::Bls12_381G2;

    /// ψ for the twist by ξ = u + 1 (E': y² = x³ + 4ξ).
    fn subgroup_test() -> SubgroupTest {
        use ark_bls12_381::{Fq, Fq2};
        use ark_ec::bls12::Bls12Config;
        use ark_ff::{BigInteger, PrimeField};
        let [x] = ark_bls12_381::Config::X else { unreachable!("BLS12-381's x is one limb") };
        let xi = Fq2::new(Fq::ONE, Fq::ONE);
        let p_minus_1 = num_bigint::BigUint::from_bytes_le(&Fq::MODULUS.to_bytes_le()) - 1u32;
        let inverse_power = |k: u32| xi.pow((&p_minus_1 / k).to_u64_digits()).inverse().expect("ξ ≠ 0");
        let sign = if ark_bls12_381::Config::X_IS_NEGATIVE { -Fq2::ONE } else { Fq2::ONE };
        let psi = [inverse_power(3), sign * inverse_power(2)].map(|c| super::components_of(&c));
        SubgroupTest::BlsG2 { x: *x, psi }
    }
}

#[cfg(feature = "bls12-377")]
impl ShortWeierstrassA0 for ark_bls12_377::g2::Config {
    const ID: CurveId = CurveId::Bls12_377G2;
}

impl<C: ShortWeierstrassA0> Sealed for Affine<C> {}

impl<C: ShortWeierstrassA0> GpuCurve for Affine<C> {
    const ID: CurveId = C::ID;

    fn spec() -> &'static CurveSpec {
        spec_of::<C>(C::ID, || {
            assert!(C::COEFF_A.is_zero(), "{}: the formulas assume a = 0", C::ID);
            let edwards = C::edwards_map().map(EdwardsMap::constants);
            (Equation::ShortWeierstrassA0 { b: components_of(&C::COEFF_B) }, edwards, C::subgroup_test())
        })
    }

    fn push_words(&self, out: &mut Vec<u32>) {
        let words = Self::spec().coord_words;
        let (x, y) = self.xy().unwrap_or_default();
        push_field_words(&x, words, out);
        push_field_words(&y, words, out);
    }

    fn write_montgomery(points: &[Self], out: wgpu::WriteOnly<'_, [u8]>) {
        let bytes = 4 * Self::spec().base_words();
        write_limbs(points, bytes, out, |p| (!p.is_zero()).then_some([&p.x, &p.y]));
    }

    fn group_from_gpu(coords: &[C::BaseField]) -> Option<Projective<C>> {
        let (x, y, z) = match *coords {
            [x, y, z] => (x, y, z),
            [x, y, t, z] => from_edwards(C::edwards_map()?, x, y, t, z)?,
            _ => return None,
        };
        if z.is_zero() {
            return (x.is_zero() && !y.is_zero()).then(Projective::default);
        }
        // Homogeneous projective curve equation: Y²Z = X³ + bZ³.
        if y.square() * z != x.square() * x + C::COEFF_B * z.square() * z {
            return None;
        }
        // Projective (X : Y : Z) is Jacobian (XZ : YZ² : Z).
        Some(Projective::new_unchecked(x * z, y * z.square(), z))
    }

    fn lacks_edwards_image(&self) -> bool {
        C::edwards_map().is_some_and(|map| !self.is_zero() && map.to_edwards(self.x, self.y).is_none())
    }

    fn from_xy_bytes(x: &[u8], y: &[u8]) -> Result<Self, PointError> {
        let (x, y) = xy_from_le::<C::BaseField>(x, y)?;
        if x.is_zero() && y.is_zero() {
            return Ok(Self::identity());
        }
        let point = Self::new_unchecked(x, y);
        point.is_on_curve().then_some(point).ok_or(PointError::NotOnCurve)
    }
}

/// The homogeneous Weierstrass coordinates of the extended Edwards point (X : Y : T : Z), or
/// `None` if it is not on the Edwards curve.
fn from_edwards<F: Field>(map: &EdwardsMap<F>, x: F, y: F, t: F, z: F) -> Option<(F, F, F)> {
    // −X² + Y² = Z² + d·T² and X·Y = T·Z, with Z ≠ 0.
    let on_curve = y.square() - x.square() == z.square() + map.d * t.square() && x * y == t * z && !z.is_zero();
    on_curve.then(|| map.from_extended(x, y, z))
}

#[cfg(all(test, feature = "bls12-381"))]
mod tests {
    use ark_bls12_381::{Fq, Fq2, G1Affine, G1Projective, G2Affine, G2Projective};
    use ark_ec::{AffineRepr, CurveGroup, PrimeGroup};
    use ark_ff::UniformRand;
    use ark_std::rand::{rngs::StdRng, SeedableRng};

    use crate::curve::{field_of, GpuCurve, SubgroupTest};

    /// The endomorphism tests, with the constants the kernels get, hold on points of the group
    /// (φ(P) = −[x²]·P, ψ(P) = [x]·P) and fail on points of the curve off it.
    #[test]
    fn bls12_381_endomorphism_tests_hold_exactly_on_the_group() {
        let mut rng = StdRng::seed_from_u64(3);
        let SubgroupTest::BlsG1 { x, beta } = &G1Affine::spec().subgroup_test else { panic!("G1's test") };
        let beta: Fq = field_of(beta);
        let g1_holds = |p: G1Affine| {
            let times_x = |q: G1Projective| q.mul_bigint([*x]);
            G1Affine::new_unchecked(beta * p.x, p.y) == (-times_x(times_x(p.into_group()))).into_affine()
        };
        let SubgroupTest::BlsG2 { x, psi } = &G2Affine::spec().subgroup_test else { panic!("G2's test") };
        let [psi_x, psi_y] = psi.clone().map(|c| Fq2::new(field_of(&c[0]), field_of(&c[1])));
        // As the kernel compares: [|x|]·P with (x̄·ψx, ȳ·ψy), ψy carrying x's sign.
        let g2_holds = |p: G2Affine| {
            let conjugate = |a: Fq2| Fq2::new(a.c0, -a.c1);
            G2Affine::new_unchecked(conjugate(p.x) * psi_x, conjugate(p.y) * psi_y)
                == p.into_group().mul_bigint([*x]).into_affine()
        };
        for _ in 0..8 {
            assert!(g1_holds(G1Projective::rand(&mut rng).into_affine()));
            assert!(g2_holds(G2Projective::rand(&mut rng).into_affine()));
            let g1_off = std::iter::repeat_with(|| G1Affine::get_point_from_x_unchecked(Fq::rand(&mut rng), false));
            let g1_off = g1_off.flatten().next().expect("half of all x");
            assert!(!g1_off.is_in_correct_subgroup_assuming_on_curve() && !g1_holds(g1_off));
            let g2_off = std::iter::repeat_with(|| G2Affine::get_point_from_x_unchecked(Fq2::rand(&mut rng), false));
            let g2_off = g2_off.flatten().next().expect("half of all x");
            assert!(!g2_off.is_in_correct_subgroup_assuming_on_curve() && !g2_holds(g2_off));
        }
        assert!(g1_holds(G1Affine::generator()) && g2_holds(G2Affine::generator()));
        // (0, 2) has order 3, and φ fixes it.
        assert!(!g1_holds(G1Affine::new_unchecked(Fq::from(0u8), Fq::from(2u8))));
    }
}
