//! Fuzzes the bytes decoder behind the JS API and `MsmContext::msm_bytes`.
//!
//! Input layout: byte 0 picks the curve (its value modulo the number of curves indexes
//! `CurveId::ALL`: 0 = bls12-377, 1 = ed-on-bls12-377, 2 = bn254, 3 = bls12-381); bytes 1–2 are
//! a little-endian u16, the length of the points buffer (clamped to what is left); the rest is
//! the points buffer followed by the scalars buffer. Shorter inputs are empty buffers on the
//! first curve.
//!
//! Checked: no panic; `DecodedInputs::decode` and `decode_inputs` agree; an error is one of the
//! decoder's named errors; an Ok result has one scalar per point and its upload words are the
//! input bytes (the encodings are canonical, so decoding changes nothing).
#![no_main]

use libfuzzer_sys::fuzz_target;
use webgpu_msm::bytes::{decode_inputs, point_bytes, DecodedInputs, SCALAR_BYTES};
use webgpu_msm::{CurveFn, CurveId, GpuCurve, MsmError};

fn split(data: &[u8]) -> (CurveId, &[u8], &[u8]) {
    let (head, rest) = data.split_at(data.len().min(3));
    let curve = CurveId::ALL[usize::from(head.first().copied().unwrap_or(0)) % CurveId::ALL.len()];
    let points_len = match head {
        [_, lo, hi] => usize::from(u16::from_le_bytes([*lo, *hi])).min(rest.len()),
        _ => 0,
    };
    let (points, scalars) = rest.split_at(points_len);
    (curve, points, scalars)
}

fn le_words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect()
}

fn check<G: GpuCurve>(curve: CurveId, points: &[u8], scalars: &[u8]) {
    let decoded = DecodedInputs::decode(curve, points, scalars);
    let words = decode_inputs::<G>(points, scalars);
    match (&decoded, &words) {
        (Ok(_), Ok((point_words, scalar_words))) => {
            let n = points.len() / point_bytes::<G>();
            assert_eq!(points.len(), n * point_bytes::<G>(), "whole points");
            assert_eq!(scalars.len(), n * SCALAR_BYTES, "one scalar per point");
            assert_eq!(point_words.len() * 4, points.len());
            assert_eq!(scalar_words.len() * 4, scalars.len());
            assert_eq!(*point_words, le_words(points), "canonical points decode to their own bytes");
            assert_eq!(*scalar_words, le_words(scalars), "scalars are taken as they are");
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "both entry points name the same error");
            let size = point_bytes::<G>();
            match *a {
                MsmError::BadLength { what: "points", len, element } => {
                    assert_eq!((len, element), (points.len(), size));
                    assert_ne!(len % size, 0);
                }
                MsmError::BadLength { what: "scalars", len, element } => {
                    assert_eq!((len, element), (scalars.len(), SCALAR_BYTES));
                    assert_ne!(len % SCALAR_BYTES, 0);
                }
                MsmError::LengthMismatch { points: n, scalars: m } => {
                    assert_eq!((n * size, m * SCALAR_BYTES), (points.len(), scalars.len()));
                    assert_ne!(n, m);
                }
                MsmError::CoordinateOutOfRange { index } | MsmError::NotOnCurve { index } => {
                    assert!(index < points.len() / size, "index {index} names a point");
                    assert_eq!(points.len() / size, scalars.len() / SCALAR_BYTES);
                }
                ref other => panic!("not a decoder error: {other:?}"),
            }
        }
        _ => panic!("entry points disagree: {:?} vs {:?}", decoded.as_ref().err(), words.as_ref().err()),
    }
}

/// One input on the curve it picked.
struct Check<'a> {
    curve: CurveId,
    points: &'a [u8],
    scalars: &'a [u8],
}

impl CurveFn for Check<'_> {
    type Output = ();
    fn call<G: GpuCurve>(self) {
        check::<G>(self.curve, self.points, self.scalars)
    }
}

fuzz_target!(|data: &[u8]| {
    let (curve, points, scalars) = split(data);
    curve.call(Check { curve, points, scalars });
});
