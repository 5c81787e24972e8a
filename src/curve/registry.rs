//! The curve registry: the one list of curves this crate serves.
//!
//! Each line of [`curves!`] names a curve's module name, [`CurveId`] variant, JS/bytes name,
//! arkworks affine type, test tier and cargo feature. From it come [`CurveId`] with its names
//! and parsing, the [`MsmError::UnknownCurve`] message, the dispatch from a runtime [`CurveId`]
//! to the static type (`with_curve!`), the JS `Curve` type and `curves()` list, and the
//! per-curve tests (`for_each_curve!`).
//!
//! Adding a curve of an existing family (short Weierstrass with a = 0, twisted Edwards with
//! a = −1) is: its arkworks crate as an optional dependency behind a cargo feature, one line
//! below, and one `impl` of the family trait giving its [`CurveId`] (see `short_weierstrass.rs`
//! and `twisted_edwards.rs`). New lines go at the end: a [`CurveId`]'s index is its place.
//!
//! The test tier says which per-curve tests `for_each_curve!` generates for the curve, so that a
//! curve costs the test run only what it adds (docs/testing.md, "Test tiers"):
//! - `every_plan`: the representative of a point shape (bls12-377, ed-on-bls12-377, bn254,
//!   bls12-381, bn254-g2): every test, on every test adapter (`adapter_default` modules) and
//!   with the host's plans (`host_plans` modules: passes, batches, precomputed bases);
//! - `kernels_only`: a curve whose kernels differ from a representative's in constants only (the
//!   BLS12 G2 groups, grumpkin, pallas, vesta, secp256k1): its arithmetic, kernels, edge cases
//!   in each field form, encodings and errors, on the first test adapter only, without the
//!   host's plans.

use std::str::FromStr;
use std::sync::OnceLock;

use super::CurveSpec;
use crate::MsmError;

/// Expands the list of curves into [`CurveId`], the dispatch macro `with_curve!`, the test
/// macro `for_each_curve!` and the guard that a build names at least one curve's feature. `$d`
/// is a literal `$`, which lets the inner macros have parameters of their own.
macro_rules! curves {
    ($d:tt $( #[cfg(feature = $feature:literal)] $module:ident: $variant:ident = $name:literal => $affine:ty, tests: $tier:ident; )+) => {
        // The features come from the list itself, so a new curve's feature joins the guard.
        #[cfg(not(any($(feature = $feature),+)))]
        compile_error!(concat!(
            "webgpu-msm needs at least one curve feature: ",
            $( "\"", $feature, "\" (", $name, "), ", )+
            "see the curves! list in src/curve/registry.rs"
        ));

        /// A curve by the name the bytes and JS APIs use.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum CurveId {
            $( #[doc = concat!("`\"", $name, "\"`: [`", stringify!($affine), "`].")] #[cfg(feature = $feature)] $variant, )+
        }

        impl CurveId {
            /// Every curve of this build, in registry order.
            pub const ALL: &'static [CurveId] = &[ $( #[cfg(feature = $feature)] CurveId::$variant, )+ ];

            /// The name the bytes and JS APIs use.
            pub const fn name(self) -> &'static str {
                match self { $( #[cfg(feature = $feature)] CurveId::$variant => $name, )+ }
            }
        }

        /// `with_curve!(id, G => expr)`: evaluates `expr` with `G` the affine type of curve `id`
        /// (the one `match` over the registry; `expr` may `.await`). `with_curve!(id, G, wrap =>
        /// expr)` also binds `wrap`, the function that puts a `PreparedBases<G>` into
        /// [`PreparedBytes`].
        macro_rules! with_curve {
            ($d id:expr, $d g:ident => $d body:expr) => {
                match $d id {
                    $( #[cfg(feature = $feature)] $crate::CurveId::$variant => {
                        type $d g = $affine;
                        $d body
                    } )+
                }
            };
            ($d id:expr, $d g:ident, $d wrap:ident => $d body:expr) => {
                match $d id {
                    $( #[cfg(feature = $feature)] $crate::CurveId::$variant => {
                        type $d g = $affine;
                        let $d wrap = $crate::curve::registry::PreparedBytes::$variant;
                        $d body
                    } )+
                }
            };
        }
        pub(crate) use with_curve;

        /// Prepared bases of any curve, for the bytes API
        /// ([`MsmContext::prepare_bytes`](crate::MsmContext::prepare_bytes)).
        pub enum PreparedBytes {
            $( #[doc = concat!("`\"", $name, "\"` points.")] #[cfg(feature = $feature)] $variant(crate::PreparedBases<$affine>), )+
        }

        /// `with_prepared!(bases, b => expr)`: evaluates `expr` with `b` the typed
        /// [`PreparedBases`](crate::PreparedBases) inside a [`PreparedBytes`].
        macro_rules! with_prepared {
            ($d bases:expr, $d b:ident => $d body:expr) => {
                match $d bases {
                    $( #[cfg(feature = $feature)] $crate::curve::registry::PreparedBytes::$variant($d b) => $d body, )+
                }
            };
        }
        pub(crate) use with_prepared;

        /// The crate's own `for_each_curve!` (a `macro_export`ed macro cannot be named by path
        /// inside the crate that expands it).
        #[cfg(all(test, not(target_arch = "wasm32")))]
        macro_rules! each_curve {
            ($d m:ident) => {
                $( #[cfg(feature = $feature)] $d m!($module, $affine, $tier); )+
            };
        }
        #[cfg(all(test, not(target_arch = "wasm32")))]
        pub(crate) use each_curve;

        /// `for_each_curve!(m)` calls `m!(module, Affine, tier)` once per curve of this build: the
        /// crate's own tests use it to run each curve's tests of its tier (the module doc). Its
        /// `cfg`s are the crate's features, so it is meant for this package's tests only.
        #[doc(hidden)]
        #[macro_export]
        macro_rules! for_each_curve {
            ($d m:ident) => {
                $( #[cfg(feature = $feature)] $d m!($module, $affine, $tier); )+
            };
        }

        /// The JS `Curve` type: each curve adds its name to `CurveNames` (TypeScript merges
        /// interface declarations), so the union lists exactly the curves of this build.
        #[cfg(target_arch = "wasm32")]
        mod js_curve_names {
            $( #[cfg(feature = $feature)] mod $module {
                #[wasm_bindgen::prelude::wasm_bindgen(typescript_custom_section)]
                const NAME: &str = concat!("interface CurveNames { \"", $name, "\": true }");
            } )+
        }
    };
}

curves! { $
    #[cfg(feature = "bls12-377")]
    bls12_377: Bls12_377 = "bls12-377" => ark_bls12_377::G1Affine, tests: every_plan;
    #[cfg(feature = "ed-on-bls12-377")]
    ed_on_bls12_377: EdOnBls12_377 = "ed-on-bls12-377" => ark_ed_on_bls12_377::EdwardsAffine, tests: every_plan;
    #[cfg(feature = "bn254")]
    bn254: Bn254 = "bn254" => ark_bn254::G1Affine, tests: every_plan;
    #[cfg(feature = "bls12-381")]
    bls12_381: Bls12_381 = "bls12-381" => ark_bls12_381::G1Affine, tests: every_plan;
    #[cfg(feature = "bn254")]
    bn254_g2: Bn254G2 = "bn254-g2" => ark_bn254::G2Affine, tests: every_plan;
    #[cfg(feature = "bls12-381")]
    bls12_381_g2: Bls12_381G2 = "bls12-381-g2" => ark_bls12_381::G2Affine, tests: kernels_only;
    #[cfg(feature = "bls12-377")]
    bls12_377_g2: Bls12_377G2 = "bls12-377-g2" => ark_bls12_377::G2Affine, tests: kernels_only;
    #[cfg(feature = "grumpkin")]
    grumpkin: Grumpkin = "grumpkin" => ark_grumpkin::Affine, tests: kernels_only;
    #[cfg(feature = "pallas")]
    pallas: Pallas = "pallas" => ark_pallas::Affine, tests: kernels_only;
    #[cfg(feature = "vesta")]
    vesta: Vesta = "vesta" => ark_vesta::Affine, tests: kernels_only;
    #[cfg(feature = "secp256k1")]
    secp256k1: Secp256k1 = "secp256k1" => ark_secp256k1::Affine, tests: kernels_only;
}

/// A computation generic over the curve's affine type, for code that picks the curve at run
/// time ([`CurveId::call`]): the example, the benchmarks and the fuzz target use it.
pub trait CurveFn {
    /// What the computation returns.
    type Output;
    /// Runs it on curve `G`.
    fn call<G: super::GpuCurve>(self) -> Self::Output;
}

impl CurveId {
    /// Runs `f` with the affine type of this curve.
    pub fn call<F: CurveFn>(self, f: F) -> F::Output {
        with_curve!(self, G => f.call::<G>())
    }

    /// The names of this build's curves, quoted and comma-separated (for messages).
    pub fn names() -> String {
        CurveId::ALL.iter().map(|c| format!("{:?}", c.name())).collect::<Vec<_>>().join(", ")
    }

    /// The curve's constants and shader parameters.
    #[doc(hidden)]
    pub fn spec(self) -> &'static CurveSpec {
        use super::GpuCurve;
        with_curve!(self, G => G::spec())
    }

    /// The cell holding this curve's [`CurveSpec`], computed on first use.
    pub(crate) fn spec_cell(self) -> &'static OnceLock<CurveSpec> {
        static SPECS: [OnceLock<CurveSpec>; CurveId::ALL.len()] = [const { OnceLock::new() }; CurveId::ALL.len()];
        &SPECS[self as usize]
    }
}

impl std::fmt::Display for CurveId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CurveId {
    type Err = MsmError;
    fn from_str(name: &str) -> Result<Self, MsmError> {
        CurveId::ALL.iter().copied().find(|c| c.name() == name).ok_or_else(|| MsmError::UnknownCurve(name.to_string()))
    }
}
