//! The shapes every entry point shares: what a context is built with ([`ContextOptions`]), what
//! a call is given ([`Bases`], [`MsmConfig`]) and what it returns ([`MsmOutput`]).

use crate::base_cache::BaseCache;
use crate::bytes::PointForm;
use crate::calibrate::DEFAULT_CALIBRATION_BUDGET;
use crate::gpu::workspace::DEFAULT_WORKSPACES;
use crate::profile::Profile;
use crate::step::Accumulation;
use crate::wgsl::MulForm;

/// How a context chooses its kernels and how many GPU buffers it keeps
/// ([`MsmContext::with_options`](crate::MsmContext::with_options)). The default is what
/// [`MsmContext::new`](crate::MsmContext::new) runs: kernels chosen per device and curve by
/// calibration, two workspaces per curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContextOptions {
    /// The field form of every curve's shaders instead of the one calibration picks
    /// ([`Calibration`](crate::Calibration)): to compare forms on one's own device, or to
    /// override the choice. Default `None` (calibrated). [`MulForm::Wide`] needs a device with
    /// 64-bit integers. Products one after another (`batched: false`) fit a device that caps an
    /// invocation's loop back-edges only for inputs whose threads stay within that budget (see
    /// [`MulForm::batched`]).
    pub mul_form: Option<MulForm>,
    /// The bucket accumulation of every curve instead of the one calibration picks. Default
    /// `None` (calibrated). Twisted Edwards curves always run [`Accumulation::Projective`], and
    /// the Edwards accumulations apply only to curves with an Edwards model (BLS12-377; others
    /// run `Projective` instead).
    pub accumulation: Option<Accumulation>,
    /// Seconds: the accumulations are timed on a curve's first use only where the projective
    /// calibration pass is predicted to take at most this long. Default 0.005, which only
    /// hardware GPUs meet; `f64::INFINITY` times them on every device, at the cost of compiling
    /// every candidate.
    pub calibration_budget: f64,
    /// Most sets of GPU buffers (workspaces) per curve, at least 1. Default 2. More let more
    /// calls on one curve overlap (one uploads while another computes), each set costing up to
    /// [`MsmContext::gpu_memory_bytes`](crate::MsmContext::gpu_memory_bytes) of the largest
    /// pass it has run; 1 makes calls on a curve take turns from upload to readback. A curve's
    /// second and later workspaces are only allocated when calls on it overlap.
    pub max_workspaces: usize,
    /// Most bytes of GPU buffers a curve's calls keep (its workspaces together: each gets this
    /// divided by [`ContextOptions::max_workspaces`]): passes are sized to fit, so a large input
    /// runs as more, smaller passes, and a call whose smallest pass does not fit fails with
    /// [`MsmError::MemoryBudget`](crate::MsmError::MemoryBudget). Prepared bases and a
    /// `BaseCache` hold their points besides (their own `gpu_bytes`). Default `None`: passes are
    /// as large as the device's binding limit allows.
    pub max_gpu_bytes: Option<u64>,
}

impl Default for ContextOptions {
    fn default() -> Self {
        ContextOptions {
            mul_form: None,
            accumulation: None,
            calibration_budget: DEFAULT_CALIBRATION_BUDGET,
            max_workspaces: DEFAULT_WORKSPACES,
            max_gpu_bytes: None,
        }
    }
}

/// Most precompute factor [`MsmConfig::precompute_factor`] takes.
pub const MAX_PRECOMPUTE_FACTOR: u32 = 16;

/// How one call runs: an MSM ([`MsmContext::msm_with`](crate::MsmContext::msm_with),
/// [`MsmContext::msm_bytes`](crate::MsmContext::msm_bytes),
/// [`MultiGpu::msm_with`](crate::MultiGpu::msm_with)) or the preparing of bases
/// ([`MsmContext::prepare`](crate::MsmContext::prepare) and its kin, which read only
/// `point_form`, `precompute_factor`, `check_subgroup` and `blinding`). `MsmConfig::default()`
/// is a plain call; set the fields that differ with `..MsmConfig::default()`.
///
/// A call's batch size is the number of scalar sets it is given, and an MSM over prepared bases
/// with fewer scalars than bases runs over the first bases (a prefix): neither is a field.
#[derive(Clone, Copy, Debug)]
pub struct MsmConfig<'a> {
    /// How the bytes API's points buffers write their coordinates, which its results take too
    /// ([`PointForm`]). Default [`PointForm::Canonical`]. Read where points are uploaded:
    /// prepared bases keep the form they were prepared with, and typed points are arkworks' own.
    pub point_form: PointForm,
    /// Precompute factor F, 1 (none, the default) to [`MAX_PRECOMPUTE_FACTOR`]: each base P is
    /// stored with its multiples 2^(j·c·W)·P, j < F, computed on the GPU when the bases are
    /// prepared, so that F of a scalar's windows share one set of buckets: bucket reduction and
    /// Horner run for W folded windows instead of W·F, and the window width c that minimizes the
    /// work grows. The points take F times the GPU memory (per point: F stored points, e.g.
    /// 64·F bytes for bn254 with 32-bit limbs, plus 4·F bytes of flags), c and W are fixed when
    /// they are prepared, a pass holds fewer points (inputs are split into more passes against
    /// the device's limits), and MSMs over them take all their scalars (no prefix). It pays where
    /// reduction dominates: small inputs on software GPUs (calls 0.6–0.8× as long at 2^10–2^12).
    /// On a hardware GPU at 2^20 the reduction it divides takes a few milliseconds, and F = 4
    /// makes calls 1.4–1.9× slower on an NVIDIA H200 when its accumulation runs a quarter of a
    /// plain call's threads (BENCHMARKS.md, "Prepared bases with a precompute factor"). Hardware
    /// plans keep a plain call's chunk length for them, which no GPU has measured yet: measure
    /// before choosing F > 1.
    ///
    /// Read where points are uploaded: by `prepare`, and by an MSM over points, which prepares
    /// them with it for that call only (so F > 1 pays only on bases prepared once for many
    /// calls); prepared bases keep their own.
    pub precompute_factor: u32,
    /// Whether points must lie in the curve's prime-order group: each point is multiplied by the
    /// group order on the GPU where it is uploaded (by `prepare`, once; by an MSM over points, on
    /// every call), and the first one outside the group fails the call with
    /// [`MsmError::NotInSubgroup`](crate::MsmError::NotInSubgroup). Default `false`: points
    /// need only be on the curve, and an MSM over points outside the group still returns
    /// Σ kᵢ·Pᵢ. Costs about one scalar multiplication per point (BENCHMARKS.md); on curves of
    /// cofactor 1 (bn254, Grumpkin, Pallas, Vesta, secp256k1 G1) every point on the curve is
    /// in the group and nothing runs. Prepared bases keep what they were checked for: an MSM
    /// over them checks nothing again.
    pub check_subgroup: bool,
    /// Witness-independent timing: `Some(seed)` (32 bytes from a cryptographic generator, e.g.
    /// the OS's) blinds every MSM over the bases so prepared: each base Pᵢ gets a factor bᵢ,
    /// uniform below r and drawn from the seed, the GPU adds it to each scalar (sᵢ + bᵢ mod r,
    /// uniform whatever sᵢ is) and the call subtracts Σ bᵢ·Pᵢ, which `prepare` computes (a
    /// prefix's at the first call over it). So the work of a call, and its time, do not depend
    /// on the scalars. Implies [`MsmConfig::check_subgroup`] (blinding is exact only on the
    /// prime-order group). Costs 32 bytes of GPU memory per base and one MSM at `prepare` (and
    /// per new prefix); a call over points prepares them for that call, so it costs twice the
    /// work. Default `None`.
    pub blinding: Option<[u8; 32]>,
    /// Bytes API only: bases kept on the GPU across calls and recognised by their bytes
    /// ([`BaseCache`]), for callers that hand the same bases in new buffers each time. Default
    /// `None`. An MSM over points given with a cache runs on the cached set that holds them (or
    /// begins with them), or prepares them with `point_form` and `precompute_factor` and keeps
    /// them. Typed calls fail with [`MsmError::Unsupported`](crate::MsmError::Unsupported).
    pub cache: Option<&'a BaseCache>,
    /// Whether to profile the call: every GPU step submitted and timed on its own, with the
    /// cost model's multiplications of each ([`Profile`]), in [`MsmOutput::profile`]. Slower
    /// than a plain call: for finding where time goes. Default `false`. A profiled call takes
    /// one scalar set and one GPU pass (`Unsupported`, `InputTooLarge` otherwise) on one device.
    pub profile: bool,
}

impl Default for MsmConfig<'_> {
    fn default() -> Self {
        MsmConfig {
            point_form: PointForm::Canonical,
            precompute_factor: 1,
            check_subgroup: false,
            blinding: None,
            cache: None,
            profile: false,
        }
    }
}

/// The points of an MSM: points the call uploads (`T`: an arkworks affine type, or `u8` for a
/// points buffer of the bytes API), or bases prepared on the GPU beforehand (`P`:
/// [`PreparedBases`](crate::PreparedBases), [`PreparedBytes`](crate::PreparedBytes) or
/// [`MultiPreparedBases`](crate::MultiPreparedBases)). Entry points take `impl Into<Bases>`, so
/// they are given `&points` or `&prepared` as they are.
#[derive(Debug)]
pub enum Bases<'a, T, P> {
    /// Points uploaded, checked and converted by the call.
    Points(&'a [T]),
    /// Points prepared on the GPU: fewer scalars than bases take the first bases.
    Prepared(&'a P),
}

impl<T, P> Clone for Bases<'_, T, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, P> Copy for Bases<'_, T, P> {}

impl<'a, T, P> From<&'a [T]> for Bases<'a, T, P> {
    fn from(points: &'a [T]) -> Self {
        Bases::Points(points)
    }
}

impl<'a, T, P> From<&'a Vec<T>> for Bases<'a, T, P> {
    fn from(points: &'a Vec<T>) -> Self {
        Bases::Points(points)
    }
}

impl<'a, T, P, const N: usize> From<&'a [T; N]> for Bases<'a, T, P> {
    fn from(points: &'a [T; N]) -> Self {
        Bases::Points(points)
    }
}

/// What an MSM call returns.
#[derive(Clone, Debug)]
pub struct MsmOutput<R> {
    /// One result per scalar set, in the sets' order (none for no sets).
    pub results: Vec<R>,
    /// With [`MsmConfig::profile`]: where the call's time went.
    pub profile: Option<Profile>,
}
