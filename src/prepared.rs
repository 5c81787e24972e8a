//! Prepared bases: points uploaded and converted to their GPU form once, then used by many MSMs
//! (provers reuse the same SRS points with new scalars).

use std::marker::PhantomData;

use ark_ff::Zero;

use crate::combine::combine_windows;
use crate::curve::{point_words, scalar_words, GpuCurve, SCALAR_WORDS};
use crate::gpu::run::{submit_pass, PointSource, PreparedPass};
use crate::gpu::workspace::bind_group;
use crate::plan::Plan;
use crate::step::{Buffer, Step};
use crate::{MsmContext, MsmError};

/// Points of curve `G` resident on one context's GPU in their converted form.
/// [`MsmContext::prepare`] makes them; [`MsmContext::msm_prepared`] uses them.
pub struct PreparedBases<G: GpuCurve> {
    context_id: u64,
    len: usize,
    pass_len: usize,
    passes: Vec<PreparedPass>,
    curve: PhantomData<G>,
}

impl<G: GpuCurve> PreparedBases<G> {
    /// Number of points.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl MsmContext {
    /// Uploads `points` and converts them on the GPU once (split into passes like
    /// [`MsmContext::msm`] when large). Errors: `InputTooLarge`, GPU errors.
    pub async fn prepare<G: GpuCurve>(&self, points: &[G]) -> Result<PreparedBases<G>, MsmError> {
        self.prepare_words::<G>(&point_words(points), points.len()).await
    }

    /// [`MsmContext::prepare`] of points already in the upload format (validated).
    pub(crate) async fn prepare_words<G: GpuCurve>(&self, raw: &[u32], n: usize) -> Result<PreparedBases<G>, MsmError> {
        use wgpu::util::DeviceExt;
        self.gpu().check_alive()?;
        let max = self.max_points::<G>();
        if n > max {
            return Err(MsmError::InputTooLarge { n, max });
        }
        let spec = G::spec();
        let runner = self.runner::<G>().await?;
        let pass_len = self.pass_len::<G>(n);
        let point_words = 2 * spec.coord_words;
        let gpu = self.gpu();
        let mut passes = Vec::new();
        for chunk in raw.chunks(pass_len * point_words) {
            let count = chunk.len() / point_words;
            let pass = gpu
                .capture(|| {
                    let device = &gpu.device;
                    let storage = wgpu::BufferUsages::STORAGE;
                    let init = |label, contents: &[u8], usage| {
                        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                            label: Some(label),
                            contents,
                            usage,
                        })
                    };
                    let plan = Plan::choose(count as u32, spec.scalar_bits);
                    let params = init("prepare params", bytemuck::bytes_of(&plan), wgpu::BufferUsages::UNIFORM);
                    let raw_points = init("prepare raw points", bytemuck::cast_slice(chunk), storage);
                    let empty = |label, bytes: u64| {
                        device.create_buffer(&wgpu::BufferDescriptor {
                            label: Some(label),
                            size: bytes.max(16),
                            usage: storage,
                            mapped_at_creation: false,
                        })
                    };
                    let stored_bytes = (count * spec.stored_coords() * spec.packed_words(self.mul_form()) * 4) as u64;
                    let pass = PreparedPass {
                        n: count as u32,
                        points: empty("prepared points", stored_bytes),
                        identity: empty("prepared identity flags", count as u64 * 4),
                    };
                    let step = Step::ConvertPoints;
                    let bind_group = bind_group(device, &runner.pipelines, step, |b| match b {
                        Buffer::Plan => &params,
                        Buffer::RawPoints => &raw_points,
                        other => pass.buffer(other).expect("convert_points writes only what the bases hold"),
                    });
                    submit_pass(gpu, runner.pipelines.get(step), &bind_group, step.dispatch(&plan));
                    pass
                })
                .await?;
            passes.push(pass);
        }
        Ok(PreparedBases { context_id: self.id, len: n, pass_len, passes, curve: PhantomData })
    }

    /// Σ scalars\[i\]·bases\[i\] with bases prepared on this context: no point upload or
    /// conversion. Errors: `LengthMismatch`, `ForeignBases` (prepared on another context),
    /// GPU errors.
    pub async fn msm_prepared<G: GpuCurve>(
        &self,
        bases: &PreparedBases<G>,
        scalars: &[G::ScalarField],
    ) -> Result<G::Group, MsmError> {
        self.msm_prepared_words(bases, &scalar_words(scalars), G::spec().scalar_bits).await
    }

    /// [`MsmContext::msm_prepared`] of scalars in the upload format, each below `2^scalar_bits`.
    pub(crate) async fn msm_prepared_words<G: GpuCurve>(
        &self,
        bases: &PreparedBases<G>,
        raw_scalars: &[u32],
        scalar_bits: u32,
    ) -> Result<G::Group, MsmError> {
        let n = raw_scalars.len() / SCALAR_WORDS;
        if n != bases.len {
            return Err(MsmError::LengthMismatch { points: bases.len, scalars: n });
        }
        if bases.context_id != self.id {
            return Err(MsmError::ForeignBases);
        }
        self.gpu().check_alive()?;
        let mut total = G::Group::zero();
        for (pass, scalars) in bases.passes.iter().zip(raw_scalars.chunks(bases.pass_len * SCALAR_WORDS)) {
            let plan = Plan::choose(pass.n, scalar_bits);
            let (partials, _) = self.run::<G>(&plan, PointSource::Prepared(pass), scalars, false).await?;
            total += combine_windows(&partials, &plan);
        }
        Ok(total)
    }
}
