//! The byte-level API shared by the JS bindings: the encodings of the ZPrize 2023 WebGPU MSM
//! harness.
//!
//! - points: x‖y per point, each coordinate a little-endian canonical integer of as many whole
//!   `u32` words as the base field needs: 32 bytes (ed-on-bls12-377, bn254, grumpkin, pallas,
//!   vesta, secp256k1) or 48 bytes (bls12-377, bls12-381), twice that for a G2 group (c0‖c1);
//!   the short Weierstrass identity is x = y = 0;
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

use crate::config::{Bases, MsmConfig, MsmOutput};
use crate::context::{check_set_lengths, Source};
use crate::curve::registry::{with_curve, with_prepared};
use crate::curve::{convert_point_form, CurveId, GpuCurve, SCALAR_WORDS};
use crate::upload::{Points, Scalars};
use crate::{MsmContext, MsmError, PreparedBases};

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
pub(crate) fn points_len<G: GpuCurve>(points: &[u8]) -> Result<usize, MsmError> {
    let size = point_bytes::<G>();
    match points.len().is_multiple_of(size) {
        true => Ok(points.len() / size),
        false => Err(MsmError::BadLength { what: "points", len: points.len(), element: size }),
    }
}

/// The number of scalars in a scalars buffer, or `BadLength`.
pub(crate) fn scalars_len(scalars: &[u8]) -> Result<usize, MsmError> {
    match scalars.len().is_multiple_of(SCALAR_BYTES) {
        true => Ok(scalars.len() / SCALAR_BYTES),
        false => Err(MsmError::BadLength { what: "scalars", len: scalars.len(), element: SCALAR_BYTES }),
    }
}

/// The checks the host makes before an MSM of byte buffers on curve `G`: `BadLength` (points,
/// then each set in order), then `LengthMismatch` (one set) or `SetLengthMismatch` (a batch);
/// the number of points. Points themselves are checked on the GPU.
pub(crate) fn check_lengths<G: GpuCurve>(points: &[u8], sets: &[&[u8]]) -> Result<usize, MsmError> {
    let n = points_len::<G>(points)?;
    let lens: Vec<usize> = sets.iter().map(|set| scalars_len(set)).collect::<Result<_, _>>()?;
    check_set_lengths(n, lens)?;
    Ok(n)
}

/// [`check_lengths`] on the curve `curve`.
pub(crate) fn check_lengths_of(curve: CurveId, points: &[u8], sets: &[&[u8]]) -> Result<usize, MsmError> {
    with_curve!(curve, G => check_lengths::<G>(points, sets))
}

/// A point in the points encoding.
pub(crate) fn encode_point<G: GpuCurve>(point: &G::Group) -> Vec<u8> {
    let mut words = Vec::new();
    point.into_affine().push_words(&mut words);
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

impl MsmContext {
    /// One MSM per scalars buffer of `sets` over a points buffer of `curve` or over bases
    /// prepared from one ([`MsmContext::prepare_bytes`]), in the encodings of this module, as
    /// [`MsmContext::msm_with`] runs typed ones; each result in the points encoding, in the
    /// points' form ([`MsmConfig::point_form`], or the bases' own). With a [`MsmConfig::cache`],
    /// points run on the cached set that holds them (or begins with them), or are prepared and
    /// kept there.
    ///
    /// Checked before any GPU work: `BadLength` (points, then each set in order), then
    /// `LengthMismatch` in a call of one set or `SetLengthMismatch` in a batch, `WrongCurve` for
    /// bases of another curve than `curve`; points are checked by the GPU (see the module).
    /// Other errors as for [`MsmContext::msm_with`].
    ///
    /// ```no_run
    /// # #[cfg(feature = "bn254")]
    /// # async fn example(zkey_points: &[u8], witness: &[u8]) -> Result<(), webgpu_msm::MsmError> {
    /// use webgpu_msm::bytes::PointForm;
    /// use webgpu_msm::{BaseCache, CurveId, MsmConfig, MsmContext};
    /// let ctx = MsmContext::new().await?;
    /// // Points in Montgomery form, as snarkjs' keys store them, kept on the GPU by the cache:
    /// // the next call with the same bytes (or their first n points) uploads nothing.
    /// let cache = BaseCache::new(Some(1 << 30));
    /// let config = MsmConfig { point_form: PointForm::Montgomery, cache: Some(&cache), ..MsmConfig::default() };
    /// let output = ctx.msm_bytes(CurveId::Bn254, zkey_points, &[witness], &config).await?;
    /// let q: &[u8] = &output.results[0]; // x‖y, little-endian, in Montgomery form
    /// # let _ = q; Ok(()) }
    /// ```
    pub async fn msm_bytes<'a>(
        &self,
        curve: CurveId,
        bases: impl Into<Bases<'a, u8, PreparedBytes>>,
        sets: &[&[u8]],
        config: &MsmConfig<'_>,
    ) -> Result<MsmOutput<Vec<u8>>, MsmError> {
        match bases.into() {
            Bases::Points(points) => {
                if let Some(cache) = config.cache {
                    if let Some(bases) = cache.bases(self, curve, points, sets, config).await? {
                        return self.msm_prepared_bytes(&bases, sets, config).await;
                    }
                }
                with_curve!(curve, G => self.msm_bytes_on::<G>(points, sets, config).await)
            }
            Bases::Prepared(bases) if bases.curve() != curve => {
                Err(MsmError::WrongCurve { curve, bases: bases.curve() })
            }
            Bases::Prepared(bases) => self.msm_prepared_bytes(bases, sets, config).await,
        }
    }

    async fn msm_bytes_on<G: GpuCurve>(
        &self,
        points: &[u8],
        sets: &[&[u8]],
        config: &MsmConfig<'_>,
    ) -> Result<MsmOutput<Vec<u8>>, MsmError> {
        points_len::<G>(points)?;
        let sets = scalar_sets::<G>(sets)?;
        let form = config.point_form;
        let output = self.run_msm::<G>(Source::Points(Points::Bytes(points, form)), &sets, config).await?;
        Ok(encoded(output, |result| form.encode::<G>(result)))
    }

    /// [`MsmContext::msm_bytes`] over prepared bases, in their point form.
    async fn msm_prepared_bytes(
        &self,
        bases: &PreparedBytes,
        sets: &[&[u8]],
        config: &MsmConfig<'_>,
    ) -> Result<MsmOutput<Vec<u8>>, MsmError> {
        with_prepared!(bases, b => self.msm_prepared_bytes_on(b, sets, config).await)
    }

    async fn msm_prepared_bytes_on<G: GpuCurve>(
        &self,
        bases: &PreparedBases<G>,
        sets: &[&[u8]],
        config: &MsmConfig<'_>,
    ) -> Result<MsmOutput<Vec<u8>>, MsmError> {
        let sets = scalar_sets::<G>(sets)?;
        let output = self.run_msm::<G>(Source::Prepared(bases), &sets, config).await?;
        Ok(encoded(output, |result| bases.point_form().encode::<G>(result)))
    }

    /// Checks a points buffer's length, then uploads it and checks and converts its points on
    /// the GPU once, with the multiples of [`MsmConfig::precompute_factor`] (see
    /// [`MsmContext::prepare`]), keeping [`MsmConfig::point_form`] for the results of MSMs over
    /// them. Errors: those of [`MsmContext::msm_bytes`] for points, `InvalidPrecomputeFactor`.
    pub async fn prepare_bytes(
        &self,
        curve: CurveId,
        points: &[u8],
        config: &MsmConfig<'_>,
    ) -> Result<PreparedBytes, MsmError> {
        with_curve!(curve, G, wrap => Ok(wrap(self.prepare_bytes_on::<G>(points, config).await?)))
    }

    async fn prepare_bytes_on<G: GpuCurve>(
        &self,
        points: &[u8],
        config: &MsmConfig<'_>,
    ) -> Result<PreparedBases<G>, MsmError> {
        points_len::<G>(points)?;
        self.prepare_points(Points::Bytes(points, config.point_form), config).await
    }
}

/// `output` with each result encoded by `encode`.
fn encoded<R>(output: MsmOutput<R>, encode: impl Fn(&R) -> Vec<u8>) -> MsmOutput<Vec<u8>> {
    MsmOutput { results: output.results.iter().map(encode).collect(), profile: output.profile }
}

/// Scalars buffers as scalar sets, each length checked (`BadLength`).
fn scalar_sets<'a, G: GpuCurve>(sets: &[&'a [u8]]) -> Result<Vec<Scalars<'a, G>>, MsmError> {
    sets.iter().map(|set| scalars_len(set).map(|_| Scalars::Bytes(set))).collect()
}

impl<'a> From<&'a PreparedBytes> for Bases<'a, u8, PreparedBytes> {
    fn from(bases: &'a PreparedBytes) -> Self {
        Bases::Prepared(bases)
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

    /// The curve of the points.
    pub fn curve(&self) -> CurveId {
        fn id<G: GpuCurve>(_: &PreparedBases<G>) -> CurveId {
            G::ID
        }
        with_prepared!(self, b => id(b))
    }

    /// Bytes of GPU memory the points hold ([`PreparedBases::gpu_bytes`]).
    pub fn gpu_bytes(&self) -> u64 {
        with_prepared!(self, b => b.gpu_bytes())
    }
}
