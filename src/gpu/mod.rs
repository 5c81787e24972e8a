//! Everything that talks to wgpu: device set-up, the device profile (every rule that depends on
//! the device), compiled pipelines, reusable buffers and the encoding of one MSM.

#[cfg(target_arch = "wasm32")]
pub(crate) mod browser;
pub(crate) mod device;
pub(crate) mod device_profile;
#[cfg(not(target_arch = "wasm32"))]
mod pipeline_cache;
pub(crate) mod pipelines;
#[cfg(target_arch = "wasm32")]
mod precompile;
pub(crate) mod resident;
pub(crate) mod run;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod staging;
pub(crate) mod workspace;

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
