//! Where native builds keep what later processes reuse: the calibration file and compiled
//! pipelines. `$WEBGPU_MSM_CACHE_DIR` (empty: keep nothing), else `$XDG_CACHE_HOME/webgpu-msm` or
//! `~/.cache/webgpu-msm`.

use std::path::PathBuf;

/// The cache directory, or `None` where nothing is to be kept.
pub(crate) fn cache_dir() -> Option<PathBuf> {
    match std::env::var_os("WEBGPU_MSM_CACHE_DIR") {
        Some(dir) if dir.is_empty() => None,
        Some(dir) => Some(PathBuf::from(dir)),
        None => Some(
            std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))?
                .join("webgpu-msm"),
        ),
    }
}
