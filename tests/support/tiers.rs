//! The curve registry's test tiers (src/curve/registry.rs): `for_each_curve!` passes each
//! curve's tier to the test macros as their third argument, and these macros select by it.
//! - `every_plan`: the representatives of each point shape (bls12-377, ed-on-bls12-377, bn254,
//!   bls12-381, bn254-g2) get every test: the kernels on the adapter's own choice in an
//!   `adapter_default` module (what the SwiftShader lane selects) and the host's plans in
//!   `host_plans` modules (passes, batches, precomputed bases, a second context).
//! - `kernels_only`: curves whose kernels differ from a representative's in constants only get
//!   the arithmetic and kernel tests, on lavapipe's shared contexts, in a module named
//!   `kernels` (not `adapter_default`, so no second adapter compiles them), and no
//!   `host_plans`: that host code reads only the point's size, which a representative covers.

#![allow(unused_macros, reason = "each test file uses the macros it needs")]

/// `every_plan_only!(TIER, items…)`: the items in an `every_plan` group, nothing in a
/// `kernels_only` one.
macro_rules! every_plan_only {
    (every_plan, $($item:item)*) => { $($item)* };
    (kernels_only, $($item:item)*) => {};
}

/// `default_kernels_module!(TIER, items…)`: the items in a module `adapter_default` (an
/// `every_plan` group: the second adapter's lane selects it) or `kernels` (a `kernels_only`
/// group: lavapipe's lane only).
macro_rules! default_kernels_module {
    (every_plan, $($item:item)*) => { mod adapter_default { $($item)* } };
    (kernels_only, $($item:item)*) => { mod kernels { $($item)* } };
}
