//! The byte-level API shared by the JS bindings: the encodings of the ZPrize 2023 WebGPU MSM
//! harness, validated before anything reaches the GPU.
//!
//! - points: x‖y per point, each coordinate a little-endian canonical integer of as many whole
//!   `u32` words as the base field needs: 32 bytes (ed-on-bls12-377, bn254) or 48 bytes
//!   (bls12-377, bls12-381); the short Weierstrass identity is x = y = 0;
//! - scalars: 32 little-endian bytes each; every value below 2^256 is accepted and used as an
//!   integer (not reduced modulo the group order);
//! - the result: one point in the points encoding.

use ark_ec::CurveGroup;

use crate::curve::registry::{with_curve, with_prepared};
use crate::curve::{CurveId, GpuCurve, PointError, MAX_SCALAR_BITS, SCALAR_WORDS};
use crate::{MsmContext, MsmError, PreparedBases};

pub use crate::curve::registry::PreparedBytes;

/// Bytes per scalar.
pub const SCALAR_BYTES: usize = 4 * SCALAR_WORDS;

/// Bytes per point of curve `G` (x‖y).
pub fn point_bytes<G: GpuCurve>() -> usize {
    2 * 4 * G::spec().coord_words
}

/// Validated upload words of a points buffer.
pub fn decode_points<G: GpuCurve>(bytes: &[u8]) -> Result<Vec<u32>, MsmError> {
    let size = point_bytes::<G>();
    if !bytes.len().is_multiple_of(size) {
        return Err(MsmError::BadLength { what: "points", len: bytes.len(), element: size });
    }
    let mut words = Vec::with_capacity(bytes.len() / 4);
    for (index, chunk) in bytes.chunks_exact(size).enumerate() {
        let (x, y) = chunk.split_at(size / 2);
        let point = G::from_xy_bytes(x, y).map_err(|e| match e {
            PointError::CoordinateOutOfRange => MsmError::CoordinateOutOfRange { index },
            PointError::NotOnCurve => MsmError::NotOnCurve { index },
        })?;
        point.push_words(&mut words);
    }
    Ok(words)
}

/// Upload words of a scalars buffer.
pub fn decode_scalars(bytes: &[u8]) -> Result<Vec<u32>, MsmError> {
    if !bytes.len().is_multiple_of(SCALAR_BYTES) {
        return Err(MsmError::BadLength { what: "scalars", len: bytes.len(), element: SCALAR_BYTES });
    }
    Ok(bytes.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect())
}

/// A point in the points encoding.
pub fn encode_point<G: GpuCurve>(point: &G::Group) -> Vec<u8> {
    let mut words = Vec::new();
    point.into_affine().push_words(&mut words);
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Checks both buffers and their counts; returns the upload words.
pub fn decode_inputs<G: GpuCurve>(points: &[u8], scalars: &[u8]) -> Result<(Vec<u32>, Vec<u32>), MsmError> {
    let size = point_bytes::<G>();
    if !points.len().is_multiple_of(size) {
        return Err(MsmError::BadLength { what: "points", len: points.len(), element: size });
    }
    let raw_scalars = decode_scalars(scalars)?;
    let (n_points, n_scalars) = (points.len() / size, scalars.len() / SCALAR_BYTES);
    if n_points != n_scalars {
        return Err(MsmError::LengthMismatch { points: n_points, scalars: n_scalars });
    }
    Ok((decode_points::<G>(points)?, raw_scalars))
}

/// Validated inputs of one curve in the upload format, ready for the GPU.
pub struct DecodedInputs {
    curve: CurveId,
    raw_points: Vec<u32>,
    raw_scalars: Vec<u32>,
}

impl DecodedInputs {
    /// Checks both byte buffers for `curve` (every error of this module) without any GPU work.
    pub fn decode(curve: CurveId, points: &[u8], scalars: &[u8]) -> Result<Self, MsmError> {
        let (raw_points, raw_scalars) = with_curve!(curve, G => decode_inputs::<G>(points, scalars)?);
        Ok(DecodedInputs { curve, raw_points, raw_scalars })
    }
}

impl MsmContext {
    /// Σ kᵢ·Pᵢ over byte buffers in the encodings of this module; the result in the points
    /// encoding. Bad input gets its error before any GPU work.
    pub async fn msm_bytes(&self, curve: CurveId, points: &[u8], scalars: &[u8]) -> Result<Vec<u8>, MsmError> {
        self.msm_decoded(&DecodedInputs::decode(curve, points, scalars)?).await
    }

    /// Σ kᵢ·Pᵢ of already validated inputs, in the points encoding.
    pub async fn msm_decoded(&self, inputs: &DecodedInputs) -> Result<Vec<u8>, MsmError> {
        with_curve!(inputs.curve, G => self.msm_decoded_on::<G>(inputs).await)
    }

    async fn msm_decoded_on<G: GpuCurve>(&self, inputs: &DecodedInputs) -> Result<Vec<u8>, MsmError> {
        let result = self.msm_words::<G>(&inputs.raw_points, &inputs.raw_scalars, MAX_SCALAR_BITS).await?;
        Ok(encode_point::<G>(&result))
    }
}

impl PreparedBytes {
    /// Number of points.
    pub fn len(&self) -> usize {
        with_prepared!(self, b => b.len())
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl MsmContext {
    /// Validates a points buffer (every error of this module) and prepares it on the GPU.
    pub async fn prepare_bytes(&self, curve: CurveId, points: &[u8]) -> Result<PreparedBytes, MsmError> {
        with_curve!(curve, G, wrap => Ok(wrap(self.prepare_bytes_on::<G>(points).await?)))
    }

    async fn prepare_bytes_on<G: GpuCurve>(&self, points: &[u8]) -> Result<PreparedBases<G>, MsmError> {
        let words = decode_points::<G>(points)?;
        self.prepare_words::<G>(&words, points.len() / point_bytes::<G>()).await
    }

    /// Σ kᵢ·Pᵢ over prepared bases and a scalars buffer; the result in the points encoding.
    pub async fn msm_prepared_bytes(&self, bases: &PreparedBytes, scalars: &[u8]) -> Result<Vec<u8>, MsmError> {
        let raw_scalars = decode_scalars(scalars)?;
        with_prepared!(bases, b => self.msm_prepared_bytes_on(b, &raw_scalars).await)
    }

    async fn msm_prepared_bytes_on<G: GpuCurve>(
        &self,
        bases: &PreparedBases<G>,
        raw: &[u32],
    ) -> Result<Vec<u8>, MsmError> {
        let result = self.msm_prepared_words(bases, raw, MAX_SCALAR_BITS).await?;
        Ok(encode_point::<G>(&result))
    }
}
