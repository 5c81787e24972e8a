//! Fuzzes the bytes API behind the JS API: `MsmContext::msm_bytes`, whose host checks the
//! buffers' lengths and whose GPU checks the points (on the default adapter, lavapipe here).
//!
//! Input layout: byte 0 picks the curve (its value modulo the number of curves indexes
//! `CurveId::ALL`: 0 = bls12-377, 1 = ed-on-bls12-377, 2 = bn254, 3 = bls12-381, 4 = bn254-g2,
//! 5 = bls12-381-g2, 6 = bls12-377-g2, 7 = grumpkin, 8 = pallas, 9 = vesta, 10 = secp256k1);
//! bytes 1–2 are a little-endian u16, the length of the points buffer (clamped to what is left);
//! the rest is the points buffer followed by the scalars buffer. Shorter inputs are empty buffers
//! on the first curve.
//!
//! Checked: no panic; `msm_bytes` and `check_lengths` agree on length errors; an error is one of
//! the bytes API's named errors about the input, naming a point that exists; an Ok result is one
//! point in the points encoding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

use webgpu_msm::bytes::{point_bytes, SCALAR_BYTES};
use webgpu_msm::testing::check_lengths;
use webgpu_msm::{CurveFn, CurveId, GpuCurve, MsmConfig, MsmContext, MsmError};

fn context() -> &'static MsmContext {
    static CONTEXT: OnceLock<MsmContext> = OnceLock::new();
    CONTEXT.get_or_init(|| pollster::block_on(MsmContext::new()).expect("a WebGPU adapter"))
}

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

fn check<G: GpuCurve>(curve: CurveId, points: &[u8], scalars: &[u8]) {
    let lengths = check_lengths::<G>(points, scalars);
    let output = pollster::block_on(context().msm_bytes(curve, points, &[scalars], &MsmConfig::default()));
    let result = output.map(|mut output| output.results.pop().expect("one result for one set"));
    let size = point_bytes::<G>();
    match (&result, &lengths) {
        (Ok(point), Ok(_)) => assert_eq!(point.len(), size, "one point in the points encoding"),
        (Err(a), Err(b)) => assert_eq!(a, b, "length errors come from the host's checks"),
        (Err(e), Ok(n)) => match *e {
            MsmError::CoordinateOutOfRange { index } | MsmError::NotOnCurve { index } => {
                assert!(index < *n, "index {index} names one of {n} points");
                assert_eq!(*n * SCALAR_BYTES, scalars.len());
            }
            ref other => panic!("not an input error: {other:?}"),
        },
        (Ok(_), Err(e)) => panic!("accepted input with a length error: {e:?}"),
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
