//! One MSM of the bytes API as the tests call it: `MsmContext::msm_bytes` with one scalars
//! buffer, its one result.

use webgpu_msm::{Bases, CurveId, MsmConfig, MsmContext, MsmError, PreparedBytes};

/// `ctx.msm_bytes(curve, bases, &[scalars], config)`: its one result.
pub(crate) fn msm_bytes<'a>(
    ctx: &MsmContext,
    curve: CurveId,
    bases: impl Into<Bases<'a, u8, PreparedBytes>>,
    scalars: &[u8],
    config: &MsmConfig<'_>,
) -> Result<Vec<u8>, MsmError> {
    let mut output = pollster::block_on(ctx.msm_bytes(curve, bases, &[scalars], config))?;
    Ok(output.results.pop().expect("one result for one set"))
}
