//! Prepared bases: points uploaded and converted to their GPU form once, then used by many MSMs
//! (provers reuse the same SRS points with new scalars).

use std::marker::PhantomData;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use ark_ff::{UniformRand, Zero};
use ark_std::rand::{rngs::StdRng, SeedableRng};

use crate::bytes::PointForm;
use crate::clock::now_seconds;
use crate::combine::{combine_windows, times};
use crate::config::{Bases, MsmConfig, MAX_PRECOMPUTE_FACTOR};
use crate::context::MAX_PASSES;
use crate::context::{check_set_lengths, set_length_error, PassResult};
use crate::curve::GpuCurve;
use crate::curve::{scalar_words, MAX_SCALAR_BITS, SCALAR_WORDS};
use crate::gpu::pipelines::stage_pipelines;
use crate::gpu::resident::{PreparedPass, RawPoints};
use crate::gpu::run::{submit_pass, PointSource};
use crate::gpu::workspace::{bind_group, step_bind_group};
use crate::plan::Plan;
use crate::profile::Profile;
use crate::runner::CurveRunner;
use crate::step::{Buffer, Kernels, Step};
use crate::upload::POINT_LEFT_TO_HOST;
use crate::upload::{raw_buffer_bytes, write_upload, Faults, Points, Scalars, FAULTS_BYTES};
use crate::{MsmContext, MsmError};

/// Σ bᵢ·Pᵢ of blinded bases' factors over their first m points, by m.
type BlindSums<Group> = Mutex<Vec<(usize, Group)>>;

/// Points of curve `G` resident on one context's GPU in their converted form.
/// [`MsmContext::prepare`] makes them; [`MsmContext::msm`] and [`MsmContext::msm_with`] take
/// them as their bases.
pub struct PreparedBases<G: GpuCurve> {
    context_id: u64,
    len: usize,
    pass_len: usize,
    passes: Vec<PreparedPass>,
    /// The points with no image on the Edwards model the curve runs on, by index: the GPU
    /// leaves them out and each MSM adds their multiples on the host (only points outside G1;
    /// see [`crate::curve::EdwardsMap`]).
    without_image: Vec<(usize, G)>,
    /// The runner the bases' points are stored for ([`MsmContext::bases_runner`] when they were
    /// prepared), which every MSM over them runs: kept even if a calibration later changes the
    /// calls' kernels.
    runner: Arc<CurveRunner>,
    /// The form the bytes API's results over them take.
    point_form: PointForm,
    /// Blinded bases ([`MsmConfig::blinding`]): Σ bᵢ·Pᵢ of the blinding factors over the first
    /// m points, by m, which calls subtract: all of them from `prepare`, a prefix's from the
    /// first call over it.
    blind_sums: Option<BlindSums<G::Group>>,
    curve: PhantomData<G>,
}

impl<'a, G: GpuCurve> From<&'a PreparedBases<G>> for Bases<'a, G, PreparedBases<G>> {
    fn from(bases: &'a PreparedBases<G>) -> Self {
        Bases::Prepared(bases)
    }
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

    /// The field form and accumulation MSMs over these bases run: the context's for the curve
    /// ([`MsmContext::warm_up`]), except that BLS12-377's bases store affine Edwards points
    /// ([`crate::Accumulation::EdwardsAffine`]) where the calls store extended ones and the
    /// device profile says so ([`crate::DeviceProfile::affine_prepared_bases`]: their one
    /// inversion per point is paid once, here).
    pub fn kernels(&self) -> Kernels {
        self.runner.kernels()
    }

    /// Bytes of GPU memory the bases hold: their stored points (with any multiples), flags and
    /// faults, and the points as uploaded where they are kept (BLS12-377, which runs on its
    /// twisted Edwards model and keeps them for the rare points outside G1). Calls over them use
    /// workspaces besides ([`MsmContext::gpu_memory_bytes`]).
    pub fn gpu_bytes(&self) -> u64 {
        self.passes.iter().map(PreparedPass::gpu_bytes).sum()
    }

    /// Whether MSMs over them are blinded ([`MsmConfig::blinding`]).
    pub fn blinded(&self) -> bool {
        self.blind_sums.is_some()
    }

    /// The point form of the bytes they were prepared from, which results over them take.
    pub(crate) fn point_form(&self) -> PointForm {
        self.point_form
    }

    /// `ForeignBases` unless these bases were prepared on `ctx`.
    fn check_owner(&self, ctx: &MsmContext) -> Result<(), MsmError> {
        match self.context_id == ctx.id {
            true => Ok(()),
            false => Err(MsmError::ForeignBases),
        }
    }

    /// What a pass over the bases in `range` left to the host: the multiples of its points
    /// without an Edwards image by `scalars` (the pass's set, indexed from `range.start`), or
    /// zero where the pass ran on the Weierstrass model (it held them all).
    fn left_out_sum(&self, range: Range<usize>, scalars: &Scalars<'_, G>, result: &PassResult<G::Group>) -> G::Group {
        if !result.on_edwards {
            return G::Group::zero();
        }
        let left = self.without_image.iter().filter(|(i, _)| range.contains(i));
        left.map(|(i, point)| times(point.into_group(), &scalars.le_bytes(i - range.start))).sum()
    }
}

impl MsmContext {
    /// Uploads `points` and checks and converts them on the GPU once (split into passes like
    /// [`MsmContext::msm`] when large), with multiples of each for a
    /// [`MsmConfig::precompute_factor`] above 1 (the other fields are not read): bases that any
    /// number of later calls on this context take. Errors: `InvalidPrecomputeFactor` (a factor
    /// outside 1..=[`MAX_PRECOMPUTE_FACTOR`]), `NotOnCurve` (the first point off the curve),
    /// `InputTooLarge`, GPU errors.
    ///
    /// ```no_run
    /// # #[cfg(feature = "bls12-381")]
    /// # async fn example(srs: Vec<ark_bls12_381::G1Affine>, proofs: Vec<Vec<ark_bls12_381::Fr>>) -> Result<(), webgpu_msm::MsmError> {
    /// use webgpu_msm::{MsmConfig, MsmContext};
    /// let ctx = MsmContext::new().await?;
    /// // Each base stored with 2 multiples: the calls below reduce half as many windows.
    /// let bases = ctx.prepare(&srs, &MsmConfig { precompute_factor: 2, ..MsmConfig::default() }).await?;
    /// for scalars in &proofs {
    ///     let commitment = ctx.msm(&bases, scalars).await?;
    /// #   let _ = commitment;
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn prepare<G: GpuCurve>(
        &self,
        points: &[G],
        config: &MsmConfig<'_>,
    ) -> Result<PreparedBases<G>, MsmError> {
        self.prepare_points(Points::Arkworks(points), config).await
    }

    /// [`MsmContext::prepare`] of points in either upload form, as `config` says: with its
    /// precompute factor, checked to lie in the prime-order group where it asks for the check
    /// or for blinding and the curve's cofactor is not 1, and blinded with factors drawn from
    /// its seed. `convert_points` (and `check_subgroup`, `precompute_multiples`) run once per
    /// pass, and their faults are read back before the bases are returned; blinded bases then
    /// run the MSM of their factors.
    pub(crate) async fn prepare_points<G: GpuCurve>(
        &self,
        points: Points<'_, G>,
        config: &MsmConfig<'_>,
    ) -> Result<PreparedBases<G>, MsmError> {
        let fold = config.precompute_factor;
        // Blinding computes (s + b) mod r, which is s + b only on the prime-order group.
        let check = (config.check_subgroup || config.blinding.is_some()) && !G::spec().prime_order;
        if !(1..=MAX_PRECOMPUTE_FACTOR).contains(&fold) {
            return Err(MsmError::InvalidPrecomputeFactor { factor: fold, max: MAX_PRECOMPUTE_FACTOR });
        }
        self.gpu().check_alive()?;
        let n = points.len();
        // Chooses the kernels, which set the pass size (the calls' kernels: bases' own store
        // no more bytes per point).
        self.checked_pass_points::<G>(fold)?; // before any compilation
        let runner = self.bases_runner::<G>().await?;
        let max = self.max_folded_pass_points::<G>(fold) * MAX_PASSES;
        if n > max {
            return Err(MsmError::InputTooLarge { n, max });
        }
        let pass_len = self.folded_pass_len::<G>(n, fold);
        let mut passes = Vec::new();
        let mut without_image = Vec::new();
        for start in (0..n).step_by(pass_len) {
            let pass_points = points.pass(start..(start + pass_len).min(n));
            let folded = (fold > 1).then(|| Plan::folded(pass_points.len() as u32, MAX_SCALAR_BITS, fold));
            let pass = self.convert_pass(&runner, &pass_points, folded, check).await?;
            let faults = Faults::from_words(&self.gpu().read_words(&pass.faults, FAULTS_BYTES).await?);
            faults.check(start)?;
            if let Some(from) = faults.no_image {
                // Only points outside G1 get here: the flags say which the host adds.
                let flags = self.gpu().read_words(&pass.identity, pass.n as u64 * 4).await?;
                for (i, _) in flags.iter().enumerate().skip(from).filter(|(_, &flag)| flag == POINT_LEFT_TO_HOST) {
                    let point = pass_points.get(i).ok_or_else(|| {
                        MsmError::InvalidGpuResult("a point left to the host is not on the curve".into())
                    })?;
                    without_image.push((start + i, point));
                }
            }
            passes.push(pass);
        }
        if let Some(seed) = config.blinding {
            self.upload_blinding::<G>(&mut passes, seed).await?;
        }
        let bases = PreparedBases {
            context_id: self.id,
            len: n,
            pass_len,
            passes,
            without_image,
            runner,
            point_form: points.form(),
            blind_sums: config.blinding.map(|_| Mutex::new(Vec::new())),
            curve: PhantomData,
        };
        if bases.blinded() && n > 0 {
            self.blind_sum(&bases, n).await?;
        }
        Ok(bases)
    }

    /// Draws each point's blinding factor, uniform below r, from a generator seeded with
    /// `seed` and uploads them into each pass's `blinding` buffer.
    async fn upload_blinding<G: GpuCurve>(&self, passes: &mut [PreparedPass], seed: [u8; 32]) -> Result<(), MsmError> {
        use wgpu::util::DeviceExt;
        let mut rng = StdRng::from_seed(seed);
        let gpu = self.gpu();
        for pass in passes {
            let factors: Vec<G::ScalarField> = (0..pass.n).map(|_| G::ScalarField::rand(&mut rng)).collect();
            // Canonical integers (not arkworks' Montgomery limbs): the GPU adds them as they are.
            let words = scalar_words(&factors);
            let buffer = gpu
                .capture(|| {
                    gpu.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("prepared blinding factors"),
                        contents: bytemuck::cast_slice(&words),
                        usage: wgpu::BufferUsages::STORAGE,
                    })
                })
                .await?;
            pass.blinding = Some(buffer);
        }
        Ok(())
    }

    /// Σ bᵢ·Pᵢ over the first `m` of blinded `bases`: a blinded MSM of zero scalars, kept for
    /// later calls over the same prefix.
    async fn blind_sum<G: GpuCurve>(&self, bases: &PreparedBases<G>, m: usize) -> Result<G::Group, MsmError> {
        let poisoned = || MsmError::Gpu("blind sums lock poisoned".into());
        let sums = bases.blind_sums.as_ref().ok_or_else(|| MsmError::Gpu("bases are not blinded".into()))?;
        if let Some((_, sum)) = sums.lock().map_err(|_| poisoned())?.iter().find(|(len, _)| *len == m) {
            return Ok(*sum);
        }
        let zeros = vec![0u8; m * SCALAR_WORDS * 4];
        let sum = self.run_prepared_sets(bases, &[Scalars::Bytes(&zeros)]).await?[0];
        sums.lock().map_err(|_| poisoned())?.push((m, sum));
        Ok(sum)
    }

    /// Uploads one pass of points and submits `convert_points` (then with `check` the subgroup
    /// check, and with a `folded` plan `precompute_multiples`) into the buffers of a new
    /// [`PreparedPass`].
    async fn convert_pass<G: GpuCurve>(
        &self,
        runner: &CurveRunner,
        points: &Points<'_, G>,
        folded: Option<Plan>,
        check: bool,
    ) -> Result<PreparedPass, MsmError> {
        let gpu = self.gpu();
        let buffers = gpu
            .capture(|| {
                let (halves, sizes) = (points.raw_halves(), raw_buffer_bytes(G::spec(), points.len()));
                [0, 1].map(|k| {
                    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("prepare raw points"),
                        size: sizes[k],
                        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    });
                    write_upload(&gpu.queue, &buffer, &halves[k]);
                    buffer
                })
            })
            .await?;
        let raw = RawPoints { buffers, n: points.len() as u32, inputs: points.plan_inputs() };
        let mut pass = self.convert_raw(runner, &raw, folded, check).await?;
        // On the Edwards model a pass may have to run again on the Weierstrass one, converted
        // from the points as uploaded (see MsmContext::run).
        if runner.curve.model.on_edwards_image() {
            pass.raw = Some(raw);
        }
        Ok(pass)
    }

    /// The points `pass` was prepared from, converted for `runner` (the Weierstrass runner of a
    /// curve prepared on its Edwards model) with the same multiples, with the faults read back
    /// (any subgroup check passed when they were prepared).
    pub(crate) async fn convert_again(
        &self,
        runner: &CurveRunner,
        pass: &PreparedPass,
    ) -> Result<PreparedPass, MsmError> {
        let raw = pass.raw.as_ref().ok_or_else(|| MsmError::Gpu("prepared bases without their points".into()))?;
        let converted = self.convert_raw(runner, raw, pass.folded, false).await?;
        let faults = self.gpu().read_words(&converted.faults, FAULTS_BYTES).await?;
        Faults::from_words(&faults).check(0)?;
        Ok(PreparedPass { blinding: pass.blinding.clone(), ..converted })
    }

    /// Submits `convert_points` of `runner` on uploaded points (and `normalize_points` where its
    /// model needs it), then with `check` `check_subgroup`, then with a `folded` plan
    /// `precompute_multiples`, into the buffers of a new [`PreparedPass`].
    async fn convert_raw(
        &self,
        runner: &CurveRunner,
        raw: &RawPoints,
        folded: Option<Plan>,
        check: bool,
    ) -> Result<PreparedPass, MsmError> {
        use wgpu::util::DeviceExt;
        let (curve, spec) = (runner.curve, runner.curve.spec);
        let gpu = self.gpu();
        let precompute = match folded {
            Some(_) => Some(self.on_demand_pipeline(runner, Step::PrecomputeMultiples).await?),
            None => None,
        };
        let subgroup = match check {
            true => Some(self.on_demand_pipeline(runner, Step::CheckSubgroup).await?),
            false => None,
        };
        let stored = folded.map_or(raw.n, |plan| plan.n) as u64;
        gpu.capture(|| {
            let device = &gpu.device;
            let storage = wgpu::BufferUsages::STORAGE;
            let params = |plan: &Plan| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("prepare params"),
                    contents: bytemuck::bytes_of(plan),
                    usage: wgpu::BufferUsages::UNIFORM,
                })
            };
            let empty = |label, bytes: u64, usage| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: bytes.max(16),
                    usage,
                    mapped_at_creation: false,
                })
            };
            let (front_bytes, back_bytes) = curve.stored_half_bytes();
            let readable = storage | wgpu::BufferUsages::COPY_SRC;
            let pass = PreparedPass {
                n: raw.n,
                folded,
                points: [
                    empty("prepared points, front", stored * front_bytes, storage),
                    empty("prepared points, back", stored * back_bytes, storage),
                ],
                identity: empty("prepared identity flags", stored * 4, readable),
                faults: empty("prepared faults", FAULTS_BYTES, readable),
                raw: None,
                blinding: None,
            };
            let convert = Plan::choose(raw.n, spec.scalar_bits).with_inputs(raw.inputs);
            let step = Step::ConvertPoints;
            let convert_params = params(&convert);
            let conversion = bind_group(device, &runner.pipelines, step, |b| match b {
                Buffer::Plan => &convert_params,
                Buffer::RawPoints => &raw.buffers[0],
                Buffer::RawPointsHigh => &raw.buffers[1],
                other => pass.buffer(other).expect("convert_points writes only what the bases hold"),
            });
            submit_pass(gpu, runner.pipelines.get(step), &conversion, step.dispatch(&convert));
            if curve.model.normalizes_stored_points() {
                // Its running products are needed only here, sized as a workspace's.
                let step = Step::NormalizePoints;
                let prefixes = empty("prepare prefixes", runner.buffer_sizes(&convert).get(Buffer::Prefixes), storage);
                let normalize = bind_group(device, &runner.pipelines, step, |b| match b {
                    Buffer::Plan => &convert_params,
                    Buffer::Prefixes => &prefixes,
                    other => pass.buffer(other).expect("normalize_points writes only what the bases hold"),
                });
                submit_pass(gpu, runner.pipelines.get(step), &normalize, step.dispatch(&convert));
            }
            if let Some(pipeline) = &subgroup {
                // Before any multiples: they are in the group when their point is.
                let step = Step::CheckSubgroup;
                let bind_group = step_bind_group(device, pipeline, step, |b| match b {
                    Buffer::Plan => &convert_params,
                    other => pass.buffer(other).expect("check_subgroup reads only what the bases hold"),
                });
                submit_pass(gpu, pipeline, &bind_group, step.dispatch(&convert));
            }
            if let (Some(plan), Some(pipeline)) = (folded, &precompute) {
                let step = Step::PrecomputeMultiples;
                let plan_params = params(&plan);
                let bind_group = step_bind_group(device, pipeline, step, |b| match b {
                    Buffer::Plan => &plan_params,
                    other => pass.buffer(other).expect("precompute_multiples writes only what the bases hold"),
                });
                submit_pass(gpu, pipeline, &bind_group, step.dispatch(&plan));
            }
            pass
        })
        .await
    }

    /// The pipeline of `step` (one that only some preparations run) for `runner`'s curve and
    /// form, compiled on first use.
    async fn on_demand_pipeline(&self, runner: &CurveRunner, step: Step) -> Result<wgpu::ComputePipeline, MsmError> {
        let poisoned = || MsmError::Gpu("on-demand pipeline lock poisoned".into());
        if let Some(pipeline) = runner.on_demand.lock().map_err(|_| poisoned())?.get(&step) {
            return Ok(pipeline.clone());
        }
        let gpu = self.gpu();
        let [pipeline] = gpu
            .capture(|| {
                stage_pipelines(
                    gpu,
                    runner.curve,
                    gpu.profile.step_form(step, runner.curve, runner.kernels().form),
                    step.stage(),
                    [step.name()],
                )
            })
            .await?;
        runner.on_demand.lock().map_err(|_| poisoned())?.insert(step, pipeline.clone());
        Ok(pipeline)
    }

    /// The MSM of one scalar set over prepared bases with every GPU step submitted and timed on
    /// its own, as `msm_profiled` times a call over points (for finding where prepared calls
    /// spend their time, precompute factors included). Bases of one pass only; the cost model
    /// counts their identity points' digits as bucket entries (the host does not hold the
    /// bases). Errors as for the batch, and `InputTooLarge` for bases of several passes (or no
    /// scalars).
    pub(crate) async fn msm_prepared_profiled<G: GpuCurve>(
        &self,
        bases: &PreparedBases<G>,
        scalars: Scalars<'_, G>,
    ) -> Result<(G::Group, Profile), MsmError> {
        let n = scalars.len();
        if n > bases.len {
            return Err(MsmError::LengthMismatch { points: bases.len, scalars: n });
        }
        bases.check_owner(self)?;
        let [pass] = bases.passes.as_slice() else {
            return Err(MsmError::InputTooLarge { n: bases.len, max: bases.pass_len });
        };
        if n == 0 {
            return Err(MsmError::InputTooLarge { n, max: bases.pass_len });
        }
        if n < bases.len && pass.folded.is_some() {
            return Err(MsmError::PrefixOfFoldedBases { points: bases.len, scalars: n });
        }
        let runner = &bases.runner;
        let plan = pass_plan(pass, n, &scalars).shaped(runner.kernels().plan);
        let blind = match bases.blinded() {
            true => self.blind_sum(bases, n).await?,
            false => G::Group::zero(),
        };
        let result = self.run::<G>(runner, &plan, PointSource::Prepared(pass), &scalars, true).await?;
        let started = now_seconds();
        let sum = combine_windows(&result.window_sums, &plan) + bases.left_out_sum(0..n, &scalars, &result) - blind;
        let host_seconds = now_seconds() - started;
        let skip = vec![false; plan.n as usize];
        let profile = Profile::of_pass::<G>(runner.curve, plan, result.timings, &scalars, &skip, host_seconds);
        Ok((sum, profile))
    }

    /// One MSM per scalar set over bases prepared on this context (see [`MsmContext::msm_with`]),
    /// over the first as many bases as the sets hold scalars.
    pub(crate) async fn msm_prepared_batch_scalars<G: GpuCurve>(
        &self,
        bases: &PreparedBases<G>,
        sets: &[Scalars<'_, G>],
    ) -> Result<Vec<G::Group>, MsmError> {
        let prefix = sets.first().map_or(0, Scalars::len);
        let lens: Vec<usize> = sets.iter().map(Scalars::len).collect();
        match lens.iter().position(|&len| len > bases.len) {
            Some(set) => return Err(set_length_error(bases.len, &lens, set)),
            None => check_set_lengths(prefix, lens)?,
        }
        bases.check_owner(self)?;
        if prefix < bases.len && !sets.is_empty() && bases.passes.iter().any(|pass| pass.folded.is_some()) {
            return Err(MsmError::PrefixOfFoldedBases { points: bases.len, scalars: prefix });
        }
        self.gpu().check_alive()?;
        let mut totals = self.run_prepared_sets(bases, sets).await?;
        if bases.blinded() && prefix > 0 {
            let blind = self.blind_sum(bases, prefix).await?;
            totals.iter_mut().for_each(|total| *total -= blind);
        }
        Ok(totals)
    }

    /// The MSM of each of `sets` (of equal lengths, checked) over the first bases, pass by pass;
    /// on blinded bases with the blinding factors added to the scalars.
    async fn run_prepared_sets<G: GpuCurve>(
        &self,
        bases: &PreparedBases<G>,
        sets: &[Scalars<'_, G>],
    ) -> Result<Vec<G::Group>, MsmError> {
        let mut totals = vec![G::Group::zero(); sets.len()];
        let Some(first) = sets.first() else {
            return Ok(totals);
        };
        let prefix = first.len();
        let runner = &bases.runner;
        for (k, pass) in bases.passes.iter().enumerate() {
            let start = k * bases.pass_len;
            if start >= prefix {
                break;
            }
            let range = start..(start + pass.n as usize).min(prefix);
            let plan = pass_plan(pass, range.len(), first);
            let pass_sets: Vec<Scalars<'_, G>> = sets.iter().map(|set| set.pass(range.clone())).collect();
            let left_out = |set: &Scalars<'_, G>, result: &PassResult<G::Group>| {
                Ok(bases.left_out_sum(range.clone(), set, result))
            };
            self.run_sets(runner, plan, PointSource::Prepared(pass), &pass_sets, &mut totals, left_out).await?;
        }
        Ok(totals)
    }
}

/// The plan of a call over the first `n` points of one pass of bases with scalars of
/// `scalars`' form: the folded plan `prepare` chose for its multiples (which takes every point
/// of the pass), or a plain one. A plain plan over fewer points than the pass holds reads only
/// the first `n` stored points and flags. On blinded bases the scalars are blinded, below r
/// whatever their form.
fn pass_plan<G: GpuCurve>(pass: &PreparedPass, n: usize, scalars: &Scalars<'_, G>) -> Plan {
    let (bits, blinded) = match pass.blinding {
        Some(_) => (G::spec().scalar_bits, Plan::SCALARS_BLINDED),
        None => (scalars.bits(), 0),
    };
    pass.folded.unwrap_or_else(|| Plan::choose(n as u32, bits)).with_inputs(scalars.plan_inputs() | blinded)
}

#[cfg(all(test, feature = "bn254"))]
mod tests {
    use ark_bn254::{Fr, G1Affine, G1Projective};
    use ark_ec::VariableBaseMSM;
    use ark_ff::{UniformRand, Zero};
    use ark_std::rand::{rngs::StdRng, SeedableRng};

    use crate::inputs::random_points;
    use crate::testing::shared_context;
    use crate::MsmConfig;

    /// The GPU adds each base's own factor, the ones drawn from the seed: the blinded MSM of
    /// zero scalars that `prepare` runs is Σ bᵢ·Pᵢ of those factors (not the identity an
    /// unblinded run would give).
    #[test]
    fn blinded_runs_add_the_factors_drawn_from_the_seed() {
        let Some(ctx) = shared_context() else { return };
        let n = 100;
        let points: Vec<G1Affine> = random_points(n, &mut StdRng::seed_from_u64(5));
        let seed = [9; 32];
        let config = MsmConfig { blinding: Some(seed), ..MsmConfig::default() };
        let bases = pollster::block_on(ctx.prepare(&points, &config)).expect("points in the group");
        let sum = pollster::block_on(ctx.blind_sum(&bases, n)).expect("computed at prepare");
        let mut rng = StdRng::from_seed(seed);
        let factors: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        assert_eq!(sum, G1Projective::msm(&points, &factors).expect("same lengths"));
        assert!(!sum.is_zero());
    }
}
