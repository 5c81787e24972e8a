//! The one error type of the crate.

/// Why an MSM could not be computed. No input makes the crate panic, hang or return a wrong
/// result; it returns one of these instead.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MsmError {
    /// No WebGPU adapter (GPU or software GPU) is available.
    #[error("WebGPU unavailable: no adapter ({0})")]
    NoAdapter(String),
    /// The adapter refused to create a device.
    #[error("could not create a WebGPU device: {0}")]
    RequestDevice(String),
    /// A device given to `MsmContext::from_wgpu` lacks a limit the pipeline needs (named in
    /// the message).
    #[error("unsuitable WebGPU device: {0}")]
    UnsuitableDevice(String),
    /// The curve name is not one the crate supports.
    #[error("unknown curve {0:?}: expected one of {names}", names = crate::CurveId::names())]
    UnknownCurve(String),
    /// A byte buffer's length is not a multiple of its element size.
    #[error("{what} buffer of {len} bytes is not a multiple of {element} bytes")]
    BadLength {
        /// Which buffer: "points" or "scalars".
        what: &'static str,
        /// Its length in bytes.
        len: usize,
        /// The size of one element in bytes.
        element: usize,
    },
    /// A point coordinate is not below the base field modulus.
    #[error("point {index}: coordinate is not below the field modulus")]
    CoordinateOutOfRange {
        /// Index of the point.
        index: usize,
    },
    /// A point does not satisfy the curve equation.
    #[error("point {index} is not on the curve")]
    NotOnCurve {
        /// Index of the point.
        index: usize,
    },
    /// A point is on the curve but outside its prime-order group (only with
    /// [`MsmConfig::check_subgroup`](crate::MsmConfig::check_subgroup), on a curve whose
    /// cofactor is not 1).
    #[error("point {index} is not in the prime-order subgroup")]
    NotInSubgroup {
        /// Index of the point.
        index: usize,
    },
    /// `points` and `scalars` have different lengths.
    #[error("length mismatch: {points} points but {scalars} scalars")]
    LengthMismatch {
        /// Number of points given.
        points: usize,
        /// Number of scalars given.
        scalars: usize,
    },
    /// A scalar set of a batch MSM (a call of several sets) whose length differs from the
    /// points' (or, over prepared bases, from the other sets', or exceeds the bases').
    #[error("length mismatch: {points} points but scalar set {set} has {scalars} scalars")]
    SetLengthMismatch {
        /// Index of the first such set in the batch.
        set: usize,
        /// Number of points given.
        points: usize,
        /// Number of scalars in that set.
        scalars: usize,
    },
    /// More points than one call takes (`MsmContext::max_pass_points` times `MAX_PASSES`; for a
    /// profiled run, one pass).
    #[error("input of {n} points exceeds the largest this device can take, {max}")]
    InputTooLarge {
        /// Number of points given.
        n: usize,
        /// The largest number of points the device takes.
        max: usize,
    },
    /// A context's GPU memory budget (`ContextOptions::max_gpu_bytes`) holds not even a pass of
    /// one point on this curve.
    #[error("a GPU memory budget of {budget} bytes holds no pass on this curve: the smallest needs {needed}")]
    MemoryBudget {
        /// The budget of the context.
        budget: u64,
        /// Bytes the smallest pass's workspaces take.
        needed: u64,
    },
    /// A precompute factor outside 1..=`MAX_PRECOMPUTE_FACTOR` (`MsmConfig::precompute_factor`).
    #[error("precompute factor {factor} is outside 1..={max}")]
    InvalidPrecomputeFactor {
        /// The factor given.
        factor: u32,
        /// The largest factor taken.
        max: u32,
    },
    /// An MSM over fewer scalars than prepared bases (a prefix) whose bases store multiples
    /// (`MsmConfig::precompute_factor` above 1): those take exactly their length.
    #[error("bases prepared with a precompute factor take all {points} scalars, not a prefix of {scalars}")]
    PrefixOfFoldedBases {
        /// Number of prepared bases.
        points: usize,
        /// Number of scalars given.
        scalars: usize,
    },
    /// Prepared bases were used with a context other than the one that prepared them.
    #[error("these prepared bases belong to another MsmContext")]
    ForeignBases,
    /// Prepared bases of one curve were given for an MSM on another (the bytes API).
    #[error("prepared bases of {bases} given for an MSM on {curve}")]
    WrongCurve {
        /// The curve the call names.
        curve: crate::CurveId,
        /// The curve of the bases.
        bases: crate::CurveId,
    },
    /// A combination of options the call does not support (named in the message): profiling a
    /// batch of several scalar sets or over several devices, a `BaseCache` in a typed call.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The GPU reported a validation or out-of-memory error.
    #[error("GPU error: {0}")]
    Gpu(String),
    /// The GPU device was lost (driver reset, removed, or destroyed); create a new context.
    #[error("GPU device lost: {0}")]
    DeviceLost(String),
    /// A circuit could not be synthesized or is not satisfied by its assignment (the Groth16
    /// prover of feature `groth16`).
    #[error("circuit: {0}")]
    Circuit(String),
    /// The device failed the self-test a curve's kernels run before they serve calls (a
    /// known-answer MSM; `src/self_test.rs`): it computes wrong results, and the context refuses
    /// it for this curve.
    #[error("unreliable device: {curve} with kernels {kernels}: {why}")]
    UnreliableDevice {
        /// The curve whose kernels failed.
        curve: crate::CurveId,
        /// The kernels (field form, accumulation, plan shape) that ran.
        kernels: String,
        /// What went wrong.
        why: String,
    },
    /// The GPU returned a point that is not on the curve: a driver or shader fault was caught
    /// instead of returning a wrong result.
    #[error("GPU returned an invalid point ({0})")]
    InvalidGpuResult(String),
}

// Several devices' shares (MultiGpu, native only) name points of the whole input.
#[cfg(not(target_arch = "wasm32"))]
impl MsmError {
    /// The index of the bad input point this error names, if it names one.
    pub(crate) fn point_index(&self) -> Option<usize> {
        match self {
            MsmError::CoordinateOutOfRange { index }
            | MsmError::NotOnCurve { index }
            | MsmError::NotInSubgroup { index } => Some(*index),
            _ => None,
        }
    }

    /// This error with the point index it names counted from `start` on (the error of a part of
    /// an input that begins at `start`); others as they are.
    pub(crate) fn shifted_by(mut self, start: usize) -> Self {
        if let MsmError::CoordinateOutOfRange { index }
        | MsmError::NotOnCurve { index }
        | MsmError::NotInSubgroup { index } = &mut self
        {
            *index += start;
        }
        self
    }
}
