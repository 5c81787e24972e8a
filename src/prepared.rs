//! Prepared bases: points uploaded and converted to their GPU form once, then used by many MSMs
//! (provers reuse the same SRS points with new scalars).

use std::marker::PhantomData;

use ark_ff::Zero;

use crate::combine::times;
use crate::context::{check_set_lengths, CurveRunner, PassResult};
use crate::curve::CurveModel;
use crate::curve::GpuCurve;
use crate::gpu::resident::{PreparedPass, RawPoints};
use crate::gpu::run::{submit_pass, PointSource};
use crate::gpu::workspace::bind_group;
use crate::plan::Plan;
use crate::step::{Buffer, Step};
use crate::upload::{write_upload, Faults, Points, Scalars, Upload, FAULTS_BYTES};
use crate::{MsmContext, MsmError};

/// Points of curve `G` resident on one context's GPU in their converted form.
/// [`MsmContext::prepare`] makes them; [`MsmContext::msm_prepared`] uses them.
pub struct PreparedBases<G: GpuCurve> {
    context_id: u64,
    len: usize,
    pass_len: usize,
    passes: Vec<PreparedPass>,
    /// The points with no image on the Edwards model the curve runs on, by index: the GPU
    /// leaves them out and each MSM adds their multiples on the host (only points outside G1;
    /// see [`crate::curve::EdwardsMap`]).
    without_image: Vec<(usize, G)>,
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
    /// Uploads `points` and checks and converts them on the GPU once (split into passes like
    /// [`MsmContext::msm`] when large). Errors: `NotOnCurve` (the first point off the curve),
    /// `InputTooLarge`, GPU errors.
    pub async fn prepare<G: GpuCurve>(&self, points: &[G]) -> Result<PreparedBases<G>, MsmError> {
        self.prepare_points(Points::Arkworks(points)).await
    }

    /// [`MsmContext::prepare`] of points in either upload form: `convert_points` runs once per
    /// pass, and its faults are read back before the bases are returned.
    pub(crate) async fn prepare_points<G: GpuCurve>(
        &self,
        points: Points<'_, G>,
    ) -> Result<PreparedBases<G>, MsmError> {
        self.gpu().check_alive()?;
        let n = points.len();
        let runner = self.runner::<G>().await?; // chooses the kernels, which set the pass size
        let max = self.max_points::<G>();
        if n > max {
            return Err(MsmError::InputTooLarge { n, max });
        }
        let pass_len = self.pass_len::<G>(n);
        let mut passes = Vec::new();
        let mut without_image = Vec::new();
        for start in (0..n).step_by(pass_len) {
            let pass_points = points.pass(start..(start + pass_len).min(n));
            let pass = self.convert_pass(&runner, &pass_points).await?;
            let faults = Faults::from_words(&self.gpu().read_words(&pass.faults, FAULTS_BYTES).await?);
            faults.check(start)?;
            for i in faults.no_image.map_or(0..0, |from| from..pass_points.len()) {
                let point = pass_points.get(i).filter(|p| p.lacks_edwards_image());
                without_image.extend(point.map(|p| (start + i, p)));
            }
            passes.push(pass);
        }
        Ok(PreparedBases { context_id: self.id, len: n, pass_len, passes, without_image, curve: PhantomData })
    }

    /// Uploads one pass of points and submits `convert_points` into the buffers of a new
    /// [`PreparedPass`].
    async fn convert_pass<G: GpuCurve>(
        &self,
        runner: &CurveRunner,
        points: &Points<'_, G>,
    ) -> Result<PreparedPass, MsmError> {
        let gpu = self.gpu();
        let buffer = gpu
            .capture(|| {
                let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("prepare raw points"),
                    size: (points.byte_len() as u64).max(16),
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                write_upload(&gpu.queue, &buffer, points);
                buffer
            })
            .await?;
        let raw = RawPoints { buffer, n: points.len() as u32, inputs: points.plan_inputs() };
        let mut pass = self.convert_raw(runner, &raw).await?;
        // On the Edwards model a pass may have to run again on the Weierstrass one, converted
        // from the points as uploaded (see MsmContext::run).
        if matches!(runner.spec.model, CurveModel::WeierstrassOnEdwards { .. }) {
            pass.raw = Some(raw);
        }
        Ok(pass)
    }

    /// The points `pass` was prepared from, converted for `runner` (the Weierstrass runner of a
    /// curve prepared on its Edwards model), with the faults read back.
    pub(crate) async fn convert_again(
        &self,
        runner: &CurveRunner,
        pass: &PreparedPass,
    ) -> Result<PreparedPass, MsmError> {
        let raw = pass.raw.as_ref().ok_or_else(|| MsmError::Gpu("prepared bases without their points".into()))?;
        let converted = self.convert_raw(runner, raw).await?;
        let faults = self.gpu().read_words(&converted.faults, FAULTS_BYTES).await?;
        Faults::from_words(&faults).check(0)?;
        Ok(converted)
    }

    /// Submits `convert_points` of `runner` on uploaded points into the buffers of a new
    /// [`PreparedPass`].
    async fn convert_raw(&self, runner: &CurveRunner, raw: &RawPoints) -> Result<PreparedPass, MsmError> {
        use wgpu::util::DeviceExt;
        let spec = runner.spec;
        let gpu = self.gpu();
        let count = raw.n as usize;
        gpu.capture(|| {
            let device = &gpu.device;
            let storage = wgpu::BufferUsages::STORAGE;
            let plan = Plan::choose(raw.n, spec.scalar_bits).with_inputs(raw.inputs);
            let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("prepare params"),
                contents: bytemuck::bytes_of(&plan),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let empty = |label, bytes: u64, usage| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: bytes.max(16),
                    usage,
                    mapped_at_creation: false,
                })
            };
            let stored_bytes = (count * spec.stored_coords() * spec.packed_words(runner.kernels().form) * 4) as u64;
            let pass = PreparedPass {
                n: raw.n,
                points: empty("prepared points", stored_bytes, storage),
                identity: empty("prepared identity flags", count as u64 * 4, storage),
                faults: empty("prepared faults", FAULTS_BYTES, storage | wgpu::BufferUsages::COPY_SRC),
                raw: None,
            };
            let step = Step::ConvertPoints;
            let bind_group = bind_group(device, &runner.pipelines, step, |b| match b {
                Buffer::Plan => &params,
                Buffer::RawPoints => &raw.buffer,
                other => pass.buffer(other).expect("convert_points writes only what the bases hold"),
            });
            submit_pass(gpu, runner.pipelines.get(step), &bind_group, step.dispatch(&plan));
            pass
        })
        .await
    }

    /// Σ scalars\[i\]·bases\[i\] with bases prepared on this context: no point upload or
    /// conversion. Errors: `LengthMismatch`, `ForeignBases` (prepared on another context),
    /// GPU errors.
    pub async fn msm_prepared<G: GpuCurve>(
        &self,
        bases: &PreparedBases<G>,
        scalars: &[G::ScalarField],
    ) -> Result<G::Group, MsmError> {
        self.msm_prepared_scalars(bases, Scalars::Arkworks(scalars)).await
    }

    /// One MSM per scalar set over bases prepared on this context, the sets together as in
    /// [`MsmContext::msm_batch`]: one result per set, an empty one for no sets. Errors:
    /// `SetLengthMismatch` (before any GPU work), `ForeignBases`, GPU errors.
    pub async fn msm_prepared_batch<G: GpuCurve>(
        &self,
        bases: &PreparedBases<G>,
        sets: &[&[G::ScalarField]],
    ) -> Result<Vec<G::Group>, MsmError> {
        let sets: Vec<Scalars<'_, G>> = sets.iter().map(|set| Scalars::Arkworks(set)).collect();
        self.msm_prepared_batch_scalars(bases, &sets).await
    }

    /// [`MsmContext::msm_prepared`] of scalars in either upload form: a batch of one set.
    pub(crate) async fn msm_prepared_scalars<G: GpuCurve>(
        &self,
        bases: &PreparedBases<G>,
        scalars: Scalars<'_, G>,
    ) -> Result<G::Group, MsmError> {
        if scalars.len() != bases.len {
            return Err(MsmError::LengthMismatch { points: bases.len, scalars: scalars.len() });
        }
        let mut results = self.msm_prepared_batch_scalars(bases, &[scalars]).await?;
        Ok(results.pop().expect("one result per set"))
    }

    /// [`MsmContext::msm_prepared_batch`] of scalar sets in either upload form.
    pub(crate) async fn msm_prepared_batch_scalars<G: GpuCurve>(
        &self,
        bases: &PreparedBases<G>,
        sets: &[Scalars<'_, G>],
    ) -> Result<Vec<G::Group>, MsmError> {
        check_set_lengths(bases.len, sets.iter().map(Scalars::len))?;
        if bases.context_id != self.id {
            return Err(MsmError::ForeignBases);
        }
        self.gpu().check_alive()?;
        let mut totals = vec![G::Group::zero(); sets.len()];
        let Some(first) = sets.first() else {
            return Ok(totals);
        };
        let runner = self.runner::<G>().await?;
        for (k, pass) in bases.passes.iter().enumerate() {
            let range = k * bases.pass_len..k * bases.pass_len + pass.n as usize;
            let plan = Plan::choose(pass.n, first.bits()).with_inputs(first.plan_inputs());
            let pass_sets: Vec<Scalars<'_, G>> = sets.iter().map(|set| set.pass(range.clone())).collect();
            // Points the pass left out (a pass run again on the Weierstrass model held them all).
            let left_out = |set: &Scalars<'_, G>, result: &PassResult<G::Group>| {
                let left = bases.without_image.iter().filter(|(i, _)| result.on_edwards && range.contains(i));
                Ok(left.map(|(i, point)| times(point.into_group(), &set.le_bytes(i - range.start))).sum())
            };
            self.run_sets(&runner, plan, PointSource::Prepared(pass), &pass_sets, &mut totals, left_out).await?;
        }
        Ok(totals)
    }
}
