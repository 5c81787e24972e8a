//! The curve names the README documents, by feature, in `CurveId::ALL`'s order: written here,
//! not taken from the crate, so the tests that use them (`tests/bytes_props.rs`, `tests/web.rs`)
//! check the crate's names against the documentation.

/// Every documented curve name of this build's features.
pub(crate) const DOCUMENTED_NAMES: &[&str] = &[
    #[cfg(feature = "bls12-377")]
    "bls12-377",
    #[cfg(feature = "ed-on-bls12-377")]
    "ed-on-bls12-377",
    #[cfg(feature = "bn254")]
    "bn254",
    #[cfg(feature = "bls12-381")]
    "bls12-381",
    #[cfg(feature = "bn254")]
    "bn254-g2",
    #[cfg(feature = "bls12-381")]
    "bls12-381-g2",
    #[cfg(feature = "bls12-377")]
    "bls12-377-g2",
    #[cfg(feature = "grumpkin")]
    "grumpkin",
    #[cfg(feature = "pallas")]
    "pallas",
    #[cfg(feature = "vesta")]
    "vesta",
    #[cfg(feature = "secp256k1")]
    "secp256k1",
];
