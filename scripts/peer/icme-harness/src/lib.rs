//! Inputs and conversions shared by the browser harness (tests/peer.rs). The inputs are those of
//! scripts/peer/ark-native (same generator, same seed), so the native and WASM arkworks times
//! and the peer's time are on identical points and scalars.
use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup};
use ark_ff::{BigInteger, PrimeField, UniformRand};
use group::ff::PrimeField as _;
use halo2curves::CurveAffine;

/// Uniform scalars from ark_std::test_rng(); points start + i*step (start, step random
/// multiples of the generator): cheap to make in WASM, and an MSM costs the same on them as on
/// independent points.
pub fn peer_inputs(n: usize) -> (Vec<G1Affine>, Vec<Fr>) {
    let mut rng = ark_std::test_rng();
    let start = G1Projective::generator() * Fr::rand(&mut rng);
    let step = G1Projective::generator() * Fr::rand(&mut rng);
    let mut acc = start;
    let mut proj = Vec::with_capacity(n);
    for _ in 0..n {
        proj.push(acc);
        acc += step;
    }
    let points = G1Projective::normalize_batch(&proj);
    let scalars = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    (points, scalars)
}

fn le32<F: PrimeField>(f: &F) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(&f.into_bigint().to_bytes_le());
    out
}

/// arkworks points and scalars as the peer's halo2curves types (both canonical little-endian).
pub fn to_halo2(
    points: &[G1Affine],
    scalars: &[Fr],
) -> (Vec<halo2curves::bn256::G1Affine>, Vec<halo2curves::bn256::Fr>) {
    let hp = points
        .iter()
        .map(|p| {
            let (x, y) = p.xy().expect("no identity in the inputs");
            let x = halo2curves::bn256::Fq::from_repr(le32(&x).into()).unwrap();
            let y = halo2curves::bn256::Fq::from_repr(le32(&y).into()).unwrap();
            halo2curves::bn256::G1Affine::from_xy(x, y).unwrap()
        })
        .collect();
    let hs = scalars.iter().map(|s| halo2curves::bn256::Fr::from_repr(le32(s).into()).unwrap()).collect();
    (hp, hs)
}

/// Whether the peer's result equals arkworks'.
pub fn same_point(peer: &halo2curves::bn256::G1, ark: &G1Projective) -> bool {
    use group::Curve;
    let a = ark.into_affine();
    let p = peer.to_affine();
    match (p.coordinates().into_option(), a.xy()) {
        (Some(c), Some((x, y))) => {
            c.x().to_repr().as_ref() == le32(&x).as_slice() && c.y().to_repr().as_ref() == le32(&y).as_slice()
        }
        (None, None) => true,
        _ => false,
    }
}
