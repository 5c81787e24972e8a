//! The byte-level API behind the JS bindings: every malformed input gets its named error (lengths
//! from the host before any GPU work, bad points from the GPU's first step, in both field forms,
//! through `msm_bytes` and `prepare_bytes`), and valid bytes (with full 256-bit scalars) give the
//! arkworks result. (BLS12-377's points of order 2: tests/msm.rs.)

// A build of `kernels_only` curves only (scripts/test-single-curve.sh grumpkin) has no
// `host_plans` tests to call the host plans' checks.
#![cfg_attr(
    not(any(feature = "bls12-377", feature = "ed-on-bls12-377", feature = "bn254", feature = "bls12-381")),
    allow(dead_code, reason = "only `every_plan` curves' groups run the host plans' checks")
)]

use ark_ec::VariableBaseMSM;
use ark_ff::{BigInteger, Field, PrimeField, UniformRand};
use ark_std::rand::{rngs::StdRng, Rng, SeedableRng};
use num_bigint::BigUint;
use webgpu_msm::bytes::{point_bytes, PointForm, SCALAR_BYTES};
use webgpu_msm::curve::Equation;
use webgpu_msm::testing::{check_lengths, encode_point, shared_context, shared_narrow_context};
use webgpu_msm::{Bases, CurveId, GpuCurve, MsmConfig, MsmError, PreparedBytes};

use crate::bytes_call::msm_bytes;

fn random_bytes<G: GpuCurve>(n: usize, seed: u64) -> (Vec<u8>, Vec<u8>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut points = Vec::new();
    for _ in 0..n {
        points.extend(encode_point::<G>(&G::Group::rand(&mut rng)));
    }
    let scalars = (0..n * SCALAR_BYTES).map(|_| rng.gen()).collect();
    (points, scalars)
}

/// arkworks on the same bytes: integer scalars act on prime-order points through their residue.
fn reference<G: GpuCurve>(points: &[u8], scalars: &[u8]) -> Vec<u8> {
    let size = point_bytes::<G>();
    let points: Vec<G> =
        points.chunks(size).map(|c| G::from_xy_bytes(&c[..size / 2], &c[size / 2..]).expect("valid")).collect();
    let scalars: Vec<G::ScalarField> = scalars.chunks(32).map(G::ScalarField::from_le_bytes_mod_order).collect();
    encode_point::<G>(&G::Group::msm(&points, &scalars).expect("same lengths"))
}

fn malformed_inputs_get_named_errors<G: GpuCurve>() {
    let (points, scalars) = random_bytes::<G>(3, 1);
    let size = point_bytes::<G>();
    let length_error = |p: &[u8], s: &[u8]| check_lengths::<G>(p, s).err();
    assert_eq!(
        length_error(&points[..size + 1], &scalars),
        Some(MsmError::BadLength { what: "points", len: size + 1, element: size })
    );
    assert_eq!(
        length_error(&points, &scalars[..33]),
        Some(MsmError::BadLength { what: "scalars", len: 33, element: 32 })
    );
    assert_eq!(length_error(&points, &scalars[..64]), Some(MsmError::LengthMismatch { points: 3, scalars: 2 }));
    assert_eq!(length_error(&points, &scalars), None);
    let mut out_of_range = points.clone();
    out_of_range[size..size + size / 2].fill(0xff);
    let mut off_curve = points.clone();
    off_curve[2 * size] ^= 1;
    // Points 1 and 2 both bad: the lower index is named.
    let mut both = out_of_range.clone();
    both[2 * size] ^= 1;
    for ctx in [shared_context(), shared_narrow_context()].into_iter().flatten() {
        let err = |p: &[u8], s: &[u8]| msm_bytes(ctx, G::ID, p, s, &MsmConfig::default()).err();
        let prepare_err = |p: &[u8]| pollster::block_on(ctx.prepare_bytes(G::ID, p, &MsmConfig::default())).err();
        assert_eq!(err(&points[..size + 1], &scalars), length_error(&points[..size + 1], &scalars));
        assert_eq!(err(&points, &scalars[..64]), Some(MsmError::LengthMismatch { points: 3, scalars: 2 }));
        assert_eq!(err(&out_of_range, &scalars), Some(MsmError::CoordinateOutOfRange { index: 1 }));
        assert_eq!(prepare_err(&out_of_range), Some(MsmError::CoordinateOutOfRange { index: 1 }));
        assert_eq!(err(&off_curve, &scalars), Some(MsmError::NotOnCurve { index: 2 }));
        assert_eq!(prepare_err(&off_curve), Some(MsmError::NotOnCurve { index: 2 }));
        assert_eq!(err(&both, &scalars), Some(MsmError::CoordinateOutOfRange { index: 1 }));
        assert!(err(&points, &scalars).is_none());
        assert!(err(&[], &[]).is_none(), "empty input is valid (the result is the identity)");
    }
}

#[test]
fn unknown_curve_is_named() {
    assert_eq!("bn255".parse::<CurveId>(), Err(MsmError::UnknownCurve("bn255".into())));
    for curve in CurveId::ALL {
        assert_eq!(curve.name().parse::<CurveId>(), Ok(*curve));
    }
}

/// The documented encoding: x‖y of 32-byte (bn254, ed-on-bls12-377) or 48-byte (bls12-377,
/// bls12-381) coordinates, twice that on G2 (c0‖c1); the identity is x = y = 0 on short
/// Weierstrass curves and (0, 1) on the Edwards curve.
fn identity_encoding<G: GpuCurve>() {
    let coord = match G::ID.name() {
        "bn254" | "ed-on-bls12-377" | "grumpkin" | "pallas" | "vesta" | "secp256k1" => 32,
        "bls12-377" | "bls12-381" => 48,
        "bn254-g2" => 64,
        "bls12-377-g2" | "bls12-381-g2" => 96,
        other => panic!("no documented size for {other}"),
    };
    assert_eq!(point_bytes::<G>(), 2 * coord);
    let mut identity = vec![0u8; 2 * coord];
    if let Equation::TwistedEdwardsAMinus1 { .. } = G::spec().equation {
        identity[coord] = 1;
    }
    assert_eq!(encode_point::<G>(&G::zero().into_group()), identity);
}

/// `msm_bytes` and the prepared-bases bytes API against arkworks, with an identity point and a
/// scalar above the group order.
fn gpu_bytes_match_arkworks<G: GpuCurve>() {
    let Some(ctx) = shared_context() else { return };
    let curve = G::ID;
    for (n, seed) in [(0, 2), (5, 3), (200, 4)] {
        let (mut points, mut scalars) = random_bytes::<G>(n, seed);
        if n > 2 {
            scalars[..32].fill(0xff); // 2^256 − 1, above the group order
            let identity = encode_point::<G>(&G::zero().into_group());
            points[..identity.len()].copy_from_slice(&identity);
        }
        let expected = reference::<G>(&points, &scalars);
        let got = msm_bytes(ctx, curve, &points, &scalars, &MsmConfig::default()).expect("GPU msm");
        assert_eq!(got, expected, "{curve} n = {n}");
        let bases = pollster::block_on(ctx.prepare_bytes(curve, &points, &MsmConfig::default())).expect("prepare");
        assert_eq!(bases.len(), n);
        let got = msm_bytes(ctx, G::ID, &bases, &scalars, &MsmConfig::default()).expect("GPU msm, prepared");
        assert_eq!(got, expected, "{curve} n = {n}, prepared");
    }
}

/// `msm_bytes` with several scalar sets (one result each, over points and prepared bases), a
/// precompute factor for a call over points, a profile, and bases of another curve.
fn bytes_batches_and_options<G: GpuCurve>() {
    let Some(ctx) = shared_context() else { return };
    let curve = G::ID;
    let (points, scalars) = random_bytes::<G>(40, 31);
    let (_, other) = random_bytes::<G>(40, 32);
    let expected = vec![reference::<G>(&points, &scalars), reference::<G>(&points, &other)];
    let plain = MsmConfig::default();
    let batch = |bases: Bases<'_, u8, PreparedBytes>, config: &MsmConfig| {
        pollster::block_on(ctx.msm_bytes(curve, bases, &[&scalars, &other], config)).map(|output| output.results)
    };
    assert_eq!(batch(Bases::Points(&points), &plain), Ok(expected.clone()), "{curve}: over points");
    let folded = MsmConfig { precompute_factor: 3, ..MsmConfig::default() };
    assert_eq!(batch(Bases::Points(&points), &folded), Ok(expected.clone()), "{curve}: points with multiples");
    let bases = pollster::block_on(ctx.prepare_bytes(curve, &points, &plain)).expect("prepare");
    assert_eq!(batch(Bases::Prepared(&bases), &plain), Ok(expected.clone()), "{curve}: over prepared bases");
    let none = pollster::block_on(ctx.msm_bytes(curve, &bases, &[], &plain)).map(|output| output.results);
    assert_eq!(none, Ok(vec![]), "no sets, no results");
    let short: &[u8] = &other[..32];
    let mismatch = pollster::block_on(ctx.msm_bytes(curve, &points, &[&scalars, short], &plain));
    assert_eq!(mismatch.err(), Some(MsmError::SetLengthMismatch { set: 1, points: 40, scalars: 1 }));
    let wrong = if curve == CurveId::ALL[0] { CurveId::ALL[1] } else { CurveId::ALL[0] };
    let error = msm_bytes(ctx, wrong, &bases, &scalars, &plain).err();
    assert_eq!(error, Some(MsmError::WrongCurve { curve: wrong, bases: curve }));
    // A profiled call: the same result, with the steps' times.
    let profiled = MsmConfig { profile: true, ..MsmConfig::default() };
    for bases in [Bases::Points(&points), Bases::Prepared(&bases)] {
        let output = pollster::block_on(ctx.msm_bytes(curve, bases, &[&scalars], &profiled)).expect("profiled");
        assert_eq!(output.results, expected[..1], "{curve}: profiled");
        assert!(!output.profile.expect("a profile").steps.is_empty());
    }
    let batch_profiled = batch(Bases::Points(&points), &profiled);
    assert!(matches!(batch_profiled, Err(MsmError::Unsupported(_))), "{batch_profiled:?}");
}

/// Uploaded points lie in two GPU buffers, the first 2^19 in one: points past it are read,
/// checked and named by their index in the input, per call and when prepared. 2^19 identity
/// points (which the GPU gives no digits) come before four random ones, so the call is cheap and
/// arkworks checks the four.
fn points_past_the_first_raw_buffer<G: GpuCurve>() {
    let Some(ctx) = shared_context() else { return };
    let curve = G::ID;
    let low = 1 << 19;
    let (tail, tail_scalars) = random_bytes::<G>(4, 6);
    let mut points = encode_point::<G>(&G::zero().into_group()).repeat(low);
    points.extend_from_slice(&tail);
    let mut scalars = vec![0x5a; low * SCALAR_BYTES];
    scalars.extend_from_slice(&tail_scalars);
    let expected = reference::<G>(&tail, &tail_scalars);
    assert_eq!(msm_bytes(ctx, curve, &points, &scalars, &MsmConfig::default()), Ok(expected.clone()), "{curve}");
    let bases = pollster::block_on(ctx.prepare_bytes(curve, &points, &MsmConfig::default())).expect("prepare");
    let got = msm_bytes(ctx, G::ID, &bases, &scalars, &MsmConfig::default());
    assert_eq!(got, Ok(expected), "{curve}, prepared");
    let size = point_bytes::<G>();
    points[(low + 2) * size] ^= 1;
    let not_on_curve = Some(MsmError::NotOnCurve { index: low + 2 });
    assert_eq!(msm_bytes(ctx, curve, &points, &scalars, &MsmConfig::default()).err(), not_on_curve, "{curve}");
    assert_eq!(
        pollster::block_on(ctx.prepare_bytes(curve, &points, &MsmConfig::default())).err(),
        not_on_curve,
        "{curve}, prepared"
    );
}

/// Canonical point bytes in Montgomery form, computed here with integers (a·R mod p, R = 2^(8·
/// the component's bytes)), independently of the crate's conversion.
fn to_montgomery<G: GpuCurve>(points: &[u8]) -> Vec<u8> {
    type Prime<G> = <<G as ark_ec::AffineRepr>::BaseField as Field>::BasePrimeField;
    let modulus = BigUint::from_bytes_le(&Prime::<G>::MODULUS.to_bytes_le());
    let component = point_bytes::<G>() / 2 / <G as ark_ec::AffineRepr>::BaseField::extension_degree() as usize;
    let r = BigUint::from(1u8) << (8 * component);
    let mut out = Vec::with_capacity(points.len());
    for chunk in points.chunks(component) {
        let mut bytes = (BigUint::from_bytes_le(chunk) * &r % &modulus).to_bytes_le();
        bytes.resize(component, 0);
        out.extend(bytes);
    }
    out
}

/// Points in Montgomery form (snarkjs' proving keys): the arkworks result, in Montgomery form,
/// from `msm_bytes` with `MsmConfig::point_form` and from prepared bases (whole and a prefix), in both field forms; a
/// coordinate not below p and a point off the curve get the same named errors as canonical ones.
fn montgomery_form_matches_arkworks<G: GpuCurve>() {
    let (mut points, scalars) = random_bytes::<G>(6, 21);
    let size = point_bytes::<G>();
    if !matches!(G::spec().equation, Equation::TwistedEdwardsAMinus1 { .. }) {
        points[2 * size..3 * size].fill(0); // the identity: zeros in both forms
    }
    let montgomery = to_montgomery::<G>(&points);
    let expected = to_montgomery::<G>(&reference::<G>(&points, &scalars));
    let expected_prefix = to_montgomery::<G>(&reference::<G>(&points[..4 * size], &scalars[..4 * 32]));
    let mut out_of_range = montgomery.clone();
    type Prime<G> = <<G as ark_ec::AffineRepr>::BaseField as Field>::BasePrimeField;
    let modulus = Prime::<G>::MODULUS.to_bytes_le();
    out_of_range[size..size + modulus.len()].copy_from_slice(&modulus); // x = p exactly
    let mut off_curve = montgomery.clone();
    off_curve[3 * size] ^= 1;
    let form = PointForm::Montgomery;
    let options = MsmConfig { point_form: form, ..MsmConfig::default() };
    for ctx in [shared_context(), shared_narrow_context()].into_iter().flatten() {
        let msm =
            |p: &[u8]| msm_bytes(ctx, G::ID, p, &scalars, &MsmConfig { point_form: form, ..MsmConfig::default() });
        assert_eq!(msm(&montgomery), Ok(expected.clone()));
        assert_eq!(msm(&out_of_range), Err(MsmError::CoordinateOutOfRange { index: 1 }));
        assert_eq!(msm(&off_curve), Err(MsmError::NotOnCurve { index: 3 }));
        let bases = pollster::block_on(ctx.prepare_bytes(G::ID, &montgomery, &options)).expect("prepare");
        assert_eq!(msm_bytes(ctx, G::ID, &bases, &scalars, &MsmConfig::default()), Ok(expected.clone()));
        let prefix = msm_bytes(ctx, G::ID, &bases, &scalars[..4 * 32], &MsmConfig::default());
        assert_eq!(prefix, Ok(expected_prefix.clone()), "a prefix of 4 points");
        assert!(bases.gpu_bytes() >= 6 * size as u64, "{} GPU bytes for 6 points", bases.gpu_bytes());
        let prepare_err = pollster::block_on(ctx.prepare_bytes(G::ID, &off_curve, &options)).err();
        assert_eq!(prepare_err, Some(MsmError::NotOnCurve { index: 3 }));
    }
}

macro_rules! curve_tests {
    ($module:ident, $affine:ty, $tier:ident) => {
        mod $module {
            use super::*;
            type G = $affine;

            #[test]
            fn malformed_bytes_get_named_errors() {
                malformed_inputs_get_named_errors::<G>();
            }

            #[test]
            fn identity_encoding() {
                super::identity_encoding::<G>();
            }

            #[test]
            fn bytes_on_gpu_match_arkworks() {
                gpu_bytes_match_arkworks::<G>();
            }

            #[test]
            fn montgomery_form_matches_arkworks() {
                super::montgomery_form_matches_arkworks::<G>();
            }

            // Batches, options and the second raw-points buffer: host code that reads only the
            // point's size, in `every_plan` groups only (as in tests/msm.rs).
            every_plan_only! { $tier,
                mod host_plans {
                    use super::*;

                    #[test]
                    fn bytes_batches_and_options() {
                        super::super::bytes_batches_and_options::<G>();
                    }

                    #[test]
                    fn points_past_the_first_raw_buffer() {
                        super::super::points_past_the_first_raw_buffer::<G>();
                    }
                }
            }
        }
    };
}

webgpu_msm::for_each_curve!(curve_tests);
