//! What the benchmarks share: their environment lists and the name of the arkworks reference.

use webgpu_msm::CurveId;

/// The arkworks configuration measured.
pub(crate) const ARKWORKS: &str =
    if cfg!(feature = "arkworks-parallel") { "arkworks_parallel" } else { "arkworks_1_thread" };

/// The comma-separated list in the environment variable `name`, or `default`.
pub(crate) fn env_list(name: &str, default: &str) -> Vec<String> {
    std::env::var(name).unwrap_or_else(|_| default.into()).split(',').map(|s| s.trim().to_string()).collect()
}

/// The curves of `WEBGPU_MSM_BENCH_CURVES` (default: every curve of the build).
pub(crate) fn bench_curves() -> Vec<CurveId> {
    let all: Vec<&str> = CurveId::ALL.iter().map(|c| c.name()).collect();
    env_list("WEBGPU_MSM_BENCH_CURVES", &all.join(","))
        .iter()
        .map(|curve| curve.parse().unwrap_or_else(|e| panic!("WEBGPU_MSM_BENCH_CURVES: {e}")))
        .collect()
}
