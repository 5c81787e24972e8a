//! Helpers for the demo page and the tests (cargo feature `demo`): random inputs in the bytes
//! encodings, and arkworks' MSM compiled into the same module as the reference.

use ark_ec::VariableBaseMSM;
use ark_ff::PrimeField;
use ark_std::rand::{rngs::StdRng, Rng, SeedableRng};
use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;

use super::js_error;
use crate::bytes::{check_lengths, encode_point, point_bytes, SCALAR_BYTES};
use crate::curve::registry::with_curve;
use crate::curve::{CurveId, GpuCurve, PointError};
use crate::MsmError;

fn random_inputs_on<G: GpuCurve>(n: usize, seed: u64) -> (Vec<u8>, Vec<u8>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut points = Vec::with_capacity(n * point_bytes::<G>());
    for p in crate::inputs::random_points::<G, _>(n, &mut rng) {
        points.extend(encode_point::<G>(&p.into_group()));
    }
    let scalars: Vec<u8> = (0..n * SCALAR_BYTES).map(|_| rng.gen()).collect();
    (points, scalars)
}

/// `[points, scalars]`: `n` random points and 256-bit scalars from `seed`, in the msm encodings.
#[wasm_bindgen(js_name = randomInputs, unchecked_return_type = "[Uint8Array, Uint8Array]")]
pub fn random_inputs(
    #[wasm_bindgen(unchecked_param_type = "Curve")] curve: &str,
    n: usize,
    seed: u64,
) -> Result<Array, JsValue> {
    let curve: CurveId = curve.parse().map_err(js_error)?;
    let (points, scalars) = with_curve!(curve, G => random_inputs_on::<G>(n, seed));
    Ok(Array::of2(&Uint8Array::from(points.as_slice()), &Uint8Array::from(scalars.as_slice())))
}

fn arkworks_msm_on<G: GpuCurve>(points: &[u8], scalars: &[u8]) -> Result<Vec<u8>, MsmError> {
    check_lengths::<G>(points, &[scalars])?;
    let size = point_bytes::<G>();
    // The same checks as the GPU's, on the host: arkworks needs its own points anyway.
    let points: Vec<G> = points
        .chunks_exact(size)
        .enumerate()
        .map(|(index, c)| G::from_xy_bytes(&c[..size / 2], &c[size / 2..]).map_err(|e| point_error(e, index)))
        .collect::<Result<_, _>>()?;
    // Integers below 2^256 act on prime-order points through their residue mod r.
    let scalars: Vec<G::ScalarField> =
        scalars.chunks_exact(SCALAR_BYTES).map(G::ScalarField::from_le_bytes_mod_order).collect();
    let result = G::Group::msm(&points, &scalars).expect("check_lengths checked the counts");
    Ok(encode_point::<G>(&result))
}

fn point_error(error: PointError, index: usize) -> MsmError {
    match error {
        PointError::CoordinateOutOfRange => MsmError::CoordinateOutOfRange { index },
        PointError::NotOnCurve => MsmError::NotOnCurve { index },
    }
}

/// The same MSM with arkworks on the CPU (WASM), as the reference for prime-order points.
#[wasm_bindgen(js_name = arkworksMsm)]
pub fn arkworks_msm(
    #[wasm_bindgen(unchecked_param_type = "Curve")] curve: &str,
    points: &[u8],
    scalars: &[u8],
) -> Result<Uint8Array, JsValue> {
    let curve: CurveId = curve.parse().map_err(js_error)?;
    let result = with_curve!(curve, G => arkworks_msm_on::<G>(points, scalars)).map_err(js_error)?;
    Ok(Uint8Array::from(result.as_slice()))
}
