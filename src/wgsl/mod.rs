//! WGSL generation: curve constants and straight-line big-integer code computed in Rust,
//! composed with the readable templates in `shaders/`.

pub mod compose;
pub mod field_gen;
mod field_packed;
pub mod field_wide;
pub mod fp2;
mod identifiers;
pub mod inversion;
mod mont;
pub mod scalar_gen;
pub mod stash;
mod storage;

pub use compose::{compose, Stage};
pub use crate::limbs::MulForm;
