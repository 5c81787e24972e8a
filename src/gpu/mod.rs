//! Everything that talks to wgpu: device set-up, compiled pipelines, reusable buffers and the
//! encoding of one MSM.

pub mod device;
pub mod pipelines;
pub mod run;
pub mod workspace;

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
