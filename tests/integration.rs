//! The native integration tests, in one binary: each file beside this one is a module of it
//! (`cargo test --test integration -- msm::` runs one). One binary, not one per file, because
//! each test binary compiles the crate's generic code for every curve again: a dozen binaries
//! were most of a bare machine's test build. `tests/reliability.rs` stays a binary of its own:
//! it loses the process's default device, which other files' tests use.

#[macro_use]
#[path = "support/tiers.rs"]
mod tiers;
#[path = "support/bytes_call.rs"]
mod bytes_call;
#[path = "support/curve_names.rs"]
mod curve_names;

mod base_cache;
mod bytes;
mod bytes_props;
mod calibration;
mod from_wgpu;
mod groth16;
mod ipa;
mod kzg;
mod msm;
mod multi_gpu;
mod shaders;
