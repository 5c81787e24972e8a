//! The byte-level API shared by the JS bindings: the encodings of the ZPrize 2023 WebGPU MSM
//! harness.
//!
//! - points: x‖y per point, each coordinate a little-endian canonical integer of as many whole
//!   `u32` words as the base field needs: 32 bytes (ed-on-bls12-377, bn254) or 48 bytes
//!   (bls12-377, bls12-381); the short Weierstrass identity is x = y = 0;
//! - scalars: 32 little-endian bytes each; every value below 2^256 is accepted and used as an
//!   integer (not reduced modulo the group order);
//! - the result: one point in the points encoding.
//!
//! Points may instead hold each coordinate in Montgomery form ([`PointForm::Montgomery`]: the
//! integer a·R mod p, R = 2^(64·⌈log2 p / 64⌉), as arkworks and snarkjs' ffjavascript store
//! field elements, so snarkjs' proving keys upload as they are); the GPU's conversion then
//! multiplies by another constant and checks the same things, and the result comes back in the
//! same form. The identity is all zeros in both forms on short Weierstrass curves.
//!
//! The host checks only the buffers' lengths (`BadLength`, then `LengthMismatch`) and uploads
//! the bytes as they are. The GPU's first step checks every point, coordinates below the base
//! field modulus and then the curve equation, and the call fails with `CoordinateOutOfRange` or
//! `NotOnCurve` naming the first bad point, before any result is used. Only the curve equation is
//! checked: points outside the prime-order subgroup are accepted.

use ark_ec::CurveGroup;

use crate::curve::registry::{with_curve, with_prepared};
use crate::curve::{convert_point_form, CurveId, GpuCurve, SCALAR_WORDS};
use crate::upload::{Points, Scalars};
use crate::{MsmContext, MsmError, PrepareOptions, PreparedBases};

pub use crate::curve::registry::PreparedBytes;

/// How a points buffer writes each coordinate's components: little-endian integers of the
/// element a itself or of its Montgomery form a·R mod p (see the module). Results come back
/// in the form of the points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PointForm {
    /// a, below p (the default).
    #[default]
    Canonical,
    /// a·R mod p, below p, with R = 2^256 on 256-bit fields and 2^384 on 384-bit ones.
    Montgomery,
}

impl PointForm {
    /// One encoded point of curve `G` in canonical form, or `None` if a component is not below
    /// the modulus.
    pub(crate) fn to_canonical<G: GpuCurve>(self, point: &[u8]) -> Option<Vec<u8>> {
        match self {
            PointForm::Canonical => Some(point.to_vec()),
            PointForm::Montgomery => convert_point_form::<G::BaseField>(point, false),
        }
    }

    /// A point of `G` encoded in this form.
    pub fn encode<G: GpuCurve>(self, point: &G::Group) -> Vec<u8> {
        let canonical = encode_point::<G>(point);
        match self {
            PointForm::Canonical => canonical,
            PointForm::Montgomery => convert_point_form::<G::BaseField>(&canonical, true)
                .expect("an encoded point's coordinates are below the modulus"),
        }
    }
}

/// Bytes per scalar.
pub const SCALAR_BYTES: usize = 4 * SCALAR_WORDS;

/// Bytes per point of curve `G` (x‖y).
pub fn point_bytes<G: GpuCurve>() -> usize {
    G::spec().raw_point_bytes() as usize
}

/// The number of points in a points buffer of curve `G`, or `BadLength`.
pub fn points_len<G: GpuCurve>(points: &[u8]) -> Result<usize, MsmError> {
    let size = point_bytes::<G>();
    match points.len().is_multiple_of(size) {
        true => Ok(points.len() / size),
        false => Err(MsmError::BadLength { what: "points", len: points.len(), element: size }),
    }
}

/// The number of scalars in a scalars buffer, or `BadLength`.
pub fn scalars_len(scalars: &[u8]) -> Result<usize, MsmError> {
    match scalars.len().is_multiple_of(SCALAR_BYTES) {
        true => Ok(scalars.len() / SCALAR_BYTES),
        false => Err(MsmError::BadLength { what: "scalars", len: scalars.len(), element: SCALAR_BYTES }),
    }
}

/// The checks the host makes before an MSM of byte buffers on curve `G`: `BadLength` (points
/// first), then `LengthMismatch`; the number of points. Points themselves are checked on the GPU.
pub fn check_lengths<G: GpuCurve>(points: &[u8], scalars: &[u8]) -> Result<usize, MsmError> {
    let n_points = points_len::<G>(points)?;
    let n_scalars = scalars_len(scalars)?;
    if n_points != n_scalars {
        return Err(MsmError::LengthMismatch { points: n_points, scalars: n_scalars });
    }
    Ok(n_points)
}

/// [`check_lengths`] on the curve `curve`.
pub fn check_lengths_of(curve: CurveId, points: &[u8], scalars: &[u8]) -> Result<usize, MsmError> {
    with_curve!(curve, G => check_lengths::<G>(points, scalars))
}

/// A point in the points encoding.
pub fn encode_point<G: GpuCurve>(point: &G::Group) -> Vec<u8> {
    let mut words = Vec::new();
    point.into_affine().push_words(&mut words);
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

impl MsmContext {
    /// Σ kᵢ·Pᵢ over byte buffers in the encodings of this module; the result in the points
    /// encoding. Lengths are checked before any GPU work, points by the GPU (see the module).
    pub async fn msm_bytes(&self, curve: CurveId, points: &[u8], scalars: &[u8]) -> Result<Vec<u8>, MsmError> {
        self.msm_bytes_with(curve, points, scalars, PointForm::Canonical).await
    }

    /// [`MsmContext::msm_bytes`] of points written in `form`, the result in the same form.
    pub async fn msm_bytes_with(
        &self,
        curve: CurveId,
        points: &[u8],
        scalars: &[u8],
        form: PointForm,
    ) -> Result<Vec<u8>, MsmError> {
        with_curve!(curve, G => self.msm_bytes_on::<G>(points, scalars, form).await)
    }

    async fn msm_bytes_on<G: GpuCurve>(
        &self,
        points: &[u8],
        scalars: &[u8],
        form: PointForm,
    ) -> Result<Vec<u8>, MsmError> {
        check_lengths::<G>(points, scalars)?;
        let result = self.msm_inputs::<G>(Points::Bytes(points, form), Scalars::Bytes(scalars)).await?;
        Ok(form.encode::<G>(&result))
    }

    /// One MSM per scalars buffer over the same points buffer, run together as in
    /// [`MsmContext::msm_batch`]; the results in the points encoding, one per set. Checked
    /// before any GPU work: `BadLength` (points, then each set in order), then
    /// `SetLengthMismatch`.
    pub async fn msm_bytes_batch(
        &self,
        curve: CurveId,
        points: &[u8],
        sets: &[&[u8]],
    ) -> Result<Vec<Vec<u8>>, MsmError> {
        with_curve!(curve, G => self.msm_bytes_batch_on::<G>(points, sets).await)
    }

    async fn msm_bytes_batch_on<G: GpuCurve>(&self, points: &[u8], sets: &[&[u8]]) -> Result<Vec<Vec<u8>>, MsmError> {
        points_len::<G>(points)?;
        let sets = scalar_sets::<G>(sets)?;
        let results = self.msm_batch_inputs::<G>(Points::Bytes(points, PointForm::Canonical), &sets).await?;
        Ok(results.iter().map(encode_point::<G>).collect())
    }
}

/// Scalars buffers as scalar sets, each length checked (`BadLength`).
fn scalar_sets<'a, G: GpuCurve>(sets: &[&'a [u8]]) -> Result<Vec<Scalars<'a, G>>, MsmError> {
    sets.iter().map(|set| scalars_len(set).map(|_| Scalars::Bytes(set))).collect()
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

    /// Bytes of GPU memory the points hold ([`PreparedBases::gpu_bytes`]).
    pub fn gpu_bytes(&self) -> u64 {
        with_prepared!(self, b => b.gpu_bytes())
    }
}

impl MsmContext {
    /// Checks a points buffer's length, then uploads it and checks and converts its points on
    /// the GPU once (the errors of [`MsmContext::msm_bytes`] for points).
    pub async fn prepare_bytes(&self, curve: CurveId, points: &[u8]) -> Result<PreparedBytes, MsmError> {
        self.prepare_bytes_with(curve, points, PrepareOptions::default()).await
    }

    /// [`MsmContext::prepare_bytes`] with `options` (see [`MsmContext::prepare_with`]).
    pub async fn prepare_bytes_with(
        &self,
        curve: CurveId,
        points: &[u8],
        options: PrepareOptions,
    ) -> Result<PreparedBytes, MsmError> {
        with_curve!(curve, G, wrap => Ok(wrap(self.prepare_bytes_on::<G>(points, options).await?)))
    }

    async fn prepare_bytes_on<G: GpuCurve>(
        &self,
        points: &[u8],
        options: PrepareOptions,
    ) -> Result<PreparedBases<G>, MsmError> {
        points_len::<G>(points)?;
        self.prepare_points(Points::Bytes(points, options.point_form), options).await
    }

    /// Σ kᵢ·Pᵢ over prepared bases and a scalars buffer, in the bases' point form (their
    /// [`PrepareOptions::point_form`]). Fewer scalars than points take the first points, as
    /// [`MsmContext::msm_prepared`] does.
    pub async fn msm_prepared_bytes(&self, bases: &PreparedBytes, scalars: &[u8]) -> Result<Vec<u8>, MsmError> {
        scalars_len(scalars)?;
        with_prepared!(bases, b => self.msm_prepared_bytes_on(b, scalars).await)
    }

    async fn msm_prepared_bytes_on<G: GpuCurve>(
        &self,
        bases: &PreparedBases<G>,
        scalars: &[u8],
    ) -> Result<Vec<u8>, MsmError> {
        let result = self.msm_prepared_scalars(bases, Scalars::Bytes(scalars)).await?;
        Ok(bases.point_form().encode::<G>(&result))
    }

    /// One MSM per scalars buffer over prepared bases, run together as in
    /// [`MsmContext::msm_batch`]; the results in the points encoding. Errors: `BadLength` (each
    /// set in order), `SetLengthMismatch`, then those of [`MsmContext::msm_prepared_bytes`].
    pub async fn msm_prepared_bytes_batch(
        &self,
        bases: &PreparedBytes,
        sets: &[&[u8]],
    ) -> Result<Vec<Vec<u8>>, MsmError> {
        with_prepared!(bases, b => self.msm_prepared_bytes_batch_on(b, sets).await)
    }

    async fn msm_prepared_bytes_batch_on<G: GpuCurve>(
        &self,
        bases: &PreparedBases<G>,
        sets: &[&[u8]],
    ) -> Result<Vec<Vec<u8>>, MsmError> {
        let sets = scalar_sets::<G>(sets)?;
        let results = self.msm_prepared_batch_scalars(bases, &sets).await?;
        Ok(results.iter().map(|result| bases.point_form().encode::<G>(result)).collect())
    }
}
