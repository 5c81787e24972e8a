//! The twisted Edwards model of a short Weierstrass curve y² = x³ + b that has a point of order
//! 2, (α, 0) (BLS12-377's G1 curve: b = 1, α = −1). Its buckets add there with the extended
//! formulas of `shaders/curve_te.wgsl` (8 multiplications per mixed addition against 11), the way
//! Yrrid's ZPrize 2023 MSM accumulated BLS12-377.
//!
//! With w = x − α and t = √(3α²), the curve is birational (through the Montgomery curve
//! u = (x − α)/t) to −u² + v² = 1 + d·u²·v² by
//!
//! ```text
//! u = κ·w / y,   v = (w − t) / (w + t),   κ = √(−(3α + 2t)),   d = −(3α − 2t) / (3α + 2t),
//! ```
//!
//! whose inverse is w = t·(1 + v)/(1 − v), y = κ·w/u. Two kinds of points lie outside it:
//! those with y = 0 (the points of order 2) and those with w = −t. And because d is a square
//! here, the Edwards addition law is not complete: it fails for P + Q exactly when
//! d·u₁u₂v₁v₂ = ±1, where its denominators vanish. Neither happens in the odd-order subgroup
//! (G1, and every sum of its points): only points of even order lack an image or make the sum
//! of two others exceptional. The pipeline therefore runs the Edwards kernels first and detects
//! both cases on the GPU (a point with no image is stored as the all-zero point, an exceptional
//! addition returns it, and it absorbs every later addition), then reruns the pass with the
//! Weierstrass kernels where a result came back all zero (`crate::context`).

use ark_ff::Field;
use num_bigint::BigUint;

use super::components_of;

/// The constants of the map, in arkworks field elements (the host's side of the map).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdwardsMap<F> {
    /// x of the point of order 2: a root of x³ + b.
    pub alpha: F,
    /// √(3α²), the sign for which −(3α + 2t) is a square.
    pub t: F,
    /// √(−(3α + 2t)), which scales the Edwards curve to a = −1.
    pub kappa: F,
    /// The Edwards coefficient d.
    pub d: F,
}

/// The map's constants as integers, for the shader generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdwardsConstants {
    /// The Edwards coefficient d.
    pub d: BigUint,
    /// α, the x of the point of order 2.
    pub alpha: BigUint,
    /// t = √(3α²).
    pub t: BigUint,
    /// κ = √(−(3α + 2t)).
    pub kappa: BigUint,
}

impl<F: Field> EdwardsMap<F> {
    /// The map of the curve whose point of order 2 has x = `alpha`; `None` if the needed square
    /// roots do not exist in the field.
    pub fn new(alpha: F) -> Option<Self> {
        let root = (alpha.square() * F::from(3u8)).sqrt()?;
        let three_alpha = alpha * F::from(3u8);
        for t in [root, -root] {
            let a = three_alpha + t.double();
            if let Some(kappa) = (-a).sqrt() {
                let d = -(three_alpha - t.double()) * a.inverse()?;
                return Some(EdwardsMap { alpha, t, kappa, d });
            }
        }
        None
    }

    /// The constants as integers (the map is over a prime field).
    pub fn constants(&self) -> EdwardsConstants {
        let integer = |value: &F| match components_of(value).as_slice() {
            [value] => value.clone(),
            _ => panic!("an Edwards model over an extension field"),
        };
        EdwardsConstants {
            d: integer(&self.d),
            alpha: integer(&self.alpha),
            t: integer(&self.t),
            kappa: integer(&self.kappa),
        }
    }

    /// The Edwards image (u, v) of the affine Weierstrass point (x, y), or `None` for the points
    /// that have none (y = 0 or x − α = −t).
    pub fn to_edwards(&self, x: F, y: F) -> Option<(F, F)> {
        let w = x - self.alpha;
        let denominator = (y * (w + self.t)).inverse()?;
        Some((self.kappa * w * (w + self.t) * denominator, (w - self.t) * y * denominator))
    }

    /// Whether (u, v) is on the Edwards curve −u² + v² = 1 + d·u²·v².
    pub fn on_edwards(&self, u: F, v: F) -> bool {
        let (uu, vv) = (u.square(), v.square());
        vv - uu == F::ONE + self.d * uu * vv
    }

    /// The Weierstrass point, in homogeneous projective coordinates (X : Y : Z) with Z = 0 for
    /// the identity, of the Edwards point in extended coordinates (X : Y : T : Z) (assumed on
    /// the curve, Z ≠ 0). No inversion: the coordinates share the denominator (Z − Y)·X.
    pub fn from_extended(&self, x: F, y: F, z: F) -> (F, F, F) {
        if x.is_zero() {
            // (0, 1) is the identity; (0, −1) is the image of the point of order 2.
            return if y == z { (F::ZERO, F::ONE, F::ZERO) } else { (self.alpha, F::ZERO, F::ONE) };
        }
        let (sum, difference) = (z + y, z - y);
        ((self.t * sum + self.alpha * difference) * x, self.kappa * self.t * sum * z, difference * x)
    }
}

#[cfg(all(test, feature = "bls12-377"))]
mod tests {
    use ark_bls12_377::{Fq, G1Affine, G1Projective};
    use ark_ec::{AffineRepr, CurveGroup};
    use ark_ff::{Field, One, UniformRand, Zero};
    use ark_std::rand::{rngs::StdRng, SeedableRng};

    use super::EdwardsMap;

    fn map() -> EdwardsMap<Fq> {
        EdwardsMap::new(-Fq::one()).expect("BLS12-377 has an Edwards model")
    }

    /// The affine point of homogeneous (X : Y : Z).
    fn affine(p: (Fq, Fq, Fq)) -> G1Affine {
        if p.2.is_zero() {
            return G1Affine::zero();
        }
        let inverse = p.2.inverse().unwrap();
        G1Affine::new_unchecked(p.0 * inverse, p.1 * inverse)
    }

    /// (u, v) ↦ Weierstrass, through extended coordinates with a random Z.
    fn back(map: &EdwardsMap<Fq>, (u, v): (Fq, Fq), z: Fq) -> G1Affine {
        affine(map.from_extended(u * z, v * z, z))
    }

    /// Edwards addition −u² + v² = 1 + d·u²·v² (affine, a = −1).
    fn add(map: &EdwardsMap<Fq>, (u1, v1): (Fq, Fq), (u2, v2): (Fq, Fq)) -> (Fq, Fq) {
        let k = map.d * u1 * u2 * v1 * v2;
        (
            (u1 * v2 + v1 * u2) * (Fq::one() + k).inverse().unwrap(),
            (v1 * v2 + u1 * u2) * (Fq::one() - k).inverse().unwrap(),
        )
    }

    #[test]
    fn g1_points_map_to_the_edwards_curve_and_back() {
        let map = map();
        let mut rng = StdRng::seed_from_u64(1);
        for _ in 0..20 {
            let p = G1Projective::rand(&mut rng).into_affine();
            let q = G1Projective::rand(&mut rng).into_affine();
            let (ep, eq) = (map.to_edwards(p.x, p.y).unwrap(), map.to_edwards(q.x, q.y).unwrap());
            assert!(map.on_edwards(ep.0, ep.1) && map.on_edwards(eq.0, eq.1));
            assert_eq!(back(&map, ep, Fq::rand(&mut rng)), p, "round trip");
            // The map is a group homomorphism.
            assert_eq!(back(&map, add(&map, ep, eq), Fq::rand(&mut rng)), (p + q).into_affine());
            assert_eq!(back(&map, add(&map, ep, ep), Fq::one()), (p + p).into_affine());
        }
        assert_eq!(back(&map, (Fq::zero(), Fq::one()), Fq::from(5u8)), G1Affine::zero(), "identity");
    }

    #[test]
    fn the_points_of_order_two_have_no_image() {
        let map = map();
        assert!(map.to_edwards(-Fq::one(), Fq::zero()).is_none());
        // Its Edwards counterpart (0, −1) maps back to it.
        assert_eq!(back(&map, (Fq::zero(), -Fq::one()), Fq::one()), G1Affine::new_unchecked(-Fq::one(), Fq::zero()));
        // d is a square: the Edwards addition law is incomplete on E(Fq), which is why the
        // pipeline detects exceptional additions.
        assert!(map.d.sqrt().is_some());
    }
}
