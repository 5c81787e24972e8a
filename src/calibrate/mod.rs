//! Which kernels a context runs for a curve: the field form ([`MulForm`]) and the bucket
//! accumulation ([`Accumulation`]), unless the caller fixed them (`ContextOptions::mul_form`,
//! `ContextOptions::accumulation`).
//!
//! **First use.** A curve's first call does not wait for measurements: it starts at once on the
//! kernels the device profile lists first for the adapter (the rule: on every device measured so
//! far they are also the fastest), compiling only those. Where measuring could choose others
//! (natively, on devices with 64-bit integers), the measurement runs beside the calls on a
//! thread of its own, and the calls after it finishes run its choice
//! ([`Calibration::provisional`]); [`crate::MsmContext::warm_up`] compiles and measures a curve
//! at once, for apps that would rather pay at start-up.
//!
//! Results are kept per adapter and curve for the life of the process, so a second context on
//! the same adapter measures nothing, and natively also in a file, so later processes measure
//! nothing either: `calibrations-v3.txt` in `$WEBGPU_MSM_CACHE_DIR` (set it empty to keep no
//! file), else in `$XDG_CACHE_HOME/webgpu-msm` or `~/.cache/webgpu-msm`. A file entry is keyed by
//! the adapter, its driver, the curve, the candidates and their generated microbenchmark code, so
//! a new driver or changed kernels measure again. A form that measured less than 15% ahead of the
//! others (`DECISIVE_MARGIN`) is kept for the process only: load on the machine can level the
//! forms, and the next process measures again; so is a measurement that calls overlapped.
//!
//! What is weighed, and what runs unmeasured, is the device profile's
//! ([`crate::DeviceProfile`]): its forms, its accumulations, its benchmark.
//!
//! - **Field form**: on devices with 64-bit integers, 32-bit limbs and 13-bit limbs both run, and
//!   the faster is kept. Every device first times multiplications (`bench_field_mul`): small
//!   kernels that compile in a fraction of the time of the curve formulas' (a tenth on a
//!   software GPU, and on a driver that compiles at creation, such as RADV's, the 13-bit mixed
//!   addition alone took 4–359 s). Software GPUs, which have no register budget to exceed,
//!   decide on them. Hardware GPUs decide on them where the fastest multiplication's form also
//!   holds a field element in the fewest words (`multiplications_settle`); elsewhere (a 13-bit
//!   multiplication ahead, as RDNA's 24-bit multiply-adds allow) they time mixed additions too
//!   (`bench_add_stored`, the accumulation's inner operation), because there the curve
//!   formulas' register pressure decides (a form whose multiplication is faster can still
//!   spill): [`crate::DeviceProfile::form_benchmark`]. Without 64-bit integers (browsers) only
//!   13-bit limbs run, and nothing is measured. How products are batched and how many rounds a
//!   loop runs are not measured: the profile says ([`crate::DeviceProfile::wide_form`],
//!   [`crate::DeviceProfile::narrow_form`]).
//! - **Accumulation** (curves with a twisted Edwards model: BLS12-377): one pass of
//!   [`CALIBRATION_POINTS`] random points runs with each of the profile's
//!   [`crate::DeviceProfile::edwards_accumulations`], and the faster is kept; every other curve
//!   runs [`Accumulation::Projective`]. It compiles the curve's pipelines once per candidate, so
//!   it runs only where the pass is predicted (from the rate measured for the form and the cost
//!   model) to take at most the context's calibration budget
//!   (`ContextOptions::calibration_budget`, default [`DEFAULT_CALIBRATION_BUDGET`]): hardware
//!   GPUs. Slower devices (the software GPUs) keep the first candidate unmeasured, and so do
//!   devices where the form was not measured (browsers, which lack 64-bit integers, and
//!   contexts with a fixed form): there is no rate to predict from, and measuring one would cost
//!   every page load a compilation. An unlimited budget (`f64::INFINITY`) measures the
//!   accumulations everywhere.
//! - **Prepared bases** run the calls' kernels, except that BLS12-377's bases may store affine
//!   Edwards points where the calls store extended ones
//!   ([`crate::DeviceProfile::affine_prepared_bases`]): their normalization is paid once, at
//!   `prepare`, not per call as calibration timed it ([`crate::PreparedBases::kernels`] says
//!   which). Bases keep the runner they were prepared for when a measurement changes the
//!   calls' kernels.

#[cfg(not(target_arch = "wasm32"))]
mod measurement;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use measurement::Measurement;

use std::collections::HashMap;
#[cfg(not(target_arch = "wasm32"))]
use std::sync::Arc;
use std::sync::{Mutex, OnceLock};

use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use num_bigint::BigUint;
use wgpu::util::DeviceExt;

use crate::clock::now_seconds;
use crate::curve::{CurveSpec, GpuCurve};
use crate::gpu::device::Gpu;
use crate::gpu::device_profile::Bench;
use crate::gpu::pipelines::stage_pipelines;
use crate::gpu::run::{submit_pass, PointSource};
use crate::inputs::random_points;
use crate::limbs::to_words;
use crate::plan::Plan;
use crate::point_model::RunningCurve;
use crate::runner::CurveRunner;
use crate::step::dispatch_size;
use crate::step::{Accumulation, Kernels};
use crate::upload::{Points, Scalars};
use crate::wgsl::{MulForm, Stage};
use crate::{DeviceProfile, MsmError};

/// Points of the pass that times each accumulation.
pub const CALIBRATION_POINTS: usize = 1 << 14;
/// The longest predicted projective calibration pass, in seconds, for which the accumulations
/// are measured (see the module documentation).
pub const DEFAULT_CALIBRATION_BUDGET: f64 = 0.005;
/// A microbenchmark run grows its thread count until one run takes at least this long.
const MIN_RUN_SECONDS: f64 = 0.02;
/// Fewest and most threads of a microbenchmark run.
const MIN_BENCH_THREADS: u32 = 1 << 10;
const MAX_BENCH_THREADS: u32 = 1 << 18;
/// On hardware GPUs a run of at least [`MIN_RUN_SECONDS`] grows on, 4× the threads at a time,
/// while that raises the rate by at least this factor ([`ThreadSearch`]).
const FILL_GAIN: f64 = 1.1;
/// …and while the last run took at most this long (4× the threads take up to 4× as long).
const MAX_FILL_RUN_SECONDS: f64 = 0.05;

/// The kernels chosen for one curve on one device, and what was measured to choose them.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// The field form and accumulation the curve's pipelines use.
    pub kernels: Kernels,
    /// Operations per second of [`Calibration::form_benchmark`] measured for each candidate
    /// field form; empty when only one form could run (fixed by the caller, or no 64-bit
    /// integers).
    pub form_rates: Vec<(MulForm, f64)>,
    /// What the form rates count: multiplications, or mixed additions on hardware GPUs where
    /// multiplications did not settle the form (see the module documentation).
    pub form_benchmark: Bench,
    /// Seconds of one pass of [`CALIBRATION_POINTS`] points with each candidate accumulation;
    /// empty when only one could run (fixed by the caller, twisted Edwards curves) or when the
    /// device was predicted too slow for the calibration budget.
    pub accumulation_seconds: Vec<(Accumulation, f64)>,
    /// Whether these are the kernels a curve's first use starts on, chosen by rule (the
    /// profile's first candidates), while the measurement that may choose others runs beside
    /// the calls; later calls run its choice. [`crate::MsmContext::warm_up`] waits for it.
    pub provisional: bool,
}

/// What the caller fixed; `None` is chosen by calibration.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Fixed {
    pub(crate) form: Option<MulForm>,
    pub(crate) accumulation: Option<Accumulation>,
}

/// The kernels a context may run for a curve.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Candidates {
    pub(crate) forms: Vec<MulForm>,
    pub(crate) accumulations: Vec<Accumulation>,
    /// What decides the form where multiplications do not settle it
    /// ([`DeviceProfile::form_benchmark`]).
    pub(crate) benchmark: Bench,
    /// The profile they come from, which shapes each form's plans.
    pub(crate) profile: DeviceProfile,
}

impl Candidates {
    /// The candidates of `profile` for the curve of `spec`, given what the caller fixed.
    pub(crate) fn new(profile: &DeviceProfile, spec: &CurveSpec, fixed: Fixed) -> Self {
        let forms = match fixed.form {
            Some(form) => vec![form],
            None => profile.forms(spec),
        };
        let accumulations = match fixed.accumulation {
            Some(accumulation) => vec![accumulation.on(spec)],
            None => profile.accumulations(spec),
        };
        Candidates { forms, accumulations, benchmark: profile.form_benchmark, profile: *profile }
    }

    /// The kernels of `form` and `accumulation`, their plans shaped by the profile.
    pub(crate) fn kernels(&self, form: MulForm, accumulation: Accumulation) -> Kernels {
        Kernels { form, accumulation, plan: self.profile.plan_shape(form) }
    }

    /// Every combination.
    pub(crate) fn all(&self) -> impl Iterator<Item = Kernels> + '_ {
        self.forms
            .iter()
            .flat_map(move |&form| self.accumulations.iter().map(move |&accumulation| self.kernels(form, accumulation)))
    }
}

/// Calibrations of this process, by adapter, curve, candidates and budget.
fn cache() -> &'static Mutex<HashMap<String, Calibration>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Calibration>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn cache_key(gpu: &Gpu, curve: &str, candidates: &Candidates, budget: f64) -> String {
    let info = &gpu.info;
    format!(
        "{:?}|{}|{:x}|{:x}|{}|{}|{curve}|{:?}|{:?}|{:?}|{budget}",
        info.backend,
        info.name,
        info.vendor,
        info.device,
        info.driver,
        info.driver_info,
        candidates.forms,
        candidates.accumulations,
        candidates.profile
    )
}

/// One microbenchmark kernel of one curve and field form (`shaders/benchmarks.wgsl`).
pub(crate) struct Microbenchmark<'a> {
    gpu: &'a Gpu,
    /// The curve, on the point model whose formulas `bench_add_stored` adds with.
    curve: RunningCurve<'static>,
    bench: Bench,
    pipeline: wgpu::ComputePipeline,
    /// 64 distinct coordinates in storage words (each of `degree` distinct base field
    /// elements), repeated over the threads: the formulas' cost does not depend on the values.
    pattern: Vec<u32>,
}

impl<'a> Microbenchmark<'a> {
    /// Compiles `bench` for `curve` in `form`.
    pub(crate) async fn new(
        gpu: &'a Gpu,
        curve: RunningCurve<'static>,
        form: MulForm,
        bench: Bench,
    ) -> Result<Self, MsmError> {
        let mut benches = Self::new_many(gpu, curve, &[form], bench).await?;
        Ok(benches.pop().expect("one microbenchmark per form"))
    }

    /// [`Microbenchmark::new`] for each of `forms`, in order, compiled together
    /// ([`Gpu::capture_each`]).
    pub(crate) async fn new_many(
        gpu: &'a Gpu,
        curve: RunningCurve<'static>,
        forms: &[MulForm],
        bench: Bench,
    ) -> Result<Vec<Self>, MsmError> {
        let entry = bench.name();
        let compile = |&form: &MulForm| stage_pipelines(gpu, curve, form, Stage::Benchmarks, [entry]);
        let pipelines = gpu.capture_each(forms, compile).await?;
        Ok(pipelines.into_iter().map(|[pipeline]| Self::with_pipeline(gpu, curve, bench, pipeline)).collect())
    }

    /// The microbenchmark of `bench` around its compiled `pipeline` (storage holds the same
    /// words in either limb width).
    fn with_pipeline(gpu: &'a Gpu, curve: RunningCurve<'static>, bench: Bench, pipeline: wgpu::ComputePipeline) -> Self {
        let elements = 64 * curve.spec.degree() as u32;
        let pattern = (0..elements)
            .flat_map(|i| to_words(&BigUint::from(i + (1 << 13)), curve.spec.field.storage_words()))
            .collect();
        Microbenchmark { gpu, curve, bench, pipeline, pattern }
    }

    /// Seconds of one run over `threads` threads, the fastest of `runs` (each is submitted and
    /// waited for on its own).
    pub(crate) async fn seconds(&self, threads: u32, runs: usize) -> Result<f64, MsmError> {
        let bench = self.bench;
        let gpu = self.gpu;
        let words = self.curve.spec.storage_words();
        let values: Vec<u32> = self.pattern.iter().copied().cycle().take(threads as usize * words).collect();
        let buffer = |contents: &[u32]| {
            gpu.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("microbenchmark"),
                contents: bytemuck::cast_slice(contents),
                usage: wgpu::BufferUsages::STORAGE,
            })
        };
        let pipeline = &self.pipeline;
        let bind_group = gpu
            .capture(|| {
                let values_buffer = buffer(&values);
                let mut entries =
                    vec![wgpu::BindGroupEntry { binding: 0, resource: values_buffer.as_entire_binding() }];
                let stored_buffer;
                if bench == Bench::AddStored {
                    let stored: Vec<u32> =
                        values.chunks(words).flat_map(|v| v.repeat(self.curve.model.stored_coords())).collect();
                    stored_buffer = buffer(&stored);
                    entries.push(wgpu::BindGroupEntry { binding: 1, resource: stored_buffer.as_entire_binding() });
                }
                gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("microbenchmark"),
                    layout: &pipeline.get_bind_group_layout(0),
                    entries: &entries,
                })
            })
            .await?;
        let mut best = f64::INFINITY;
        for _ in 0..runs {
            // Calls may run beside a measurement: their work queued first is not timed.
            gpu.finish_queue().await?;
            let started = now_seconds();
            gpu.capture(|| submit_pass(gpu, pipeline, &bind_group, dispatch_size(threads))).await?;
            gpu.finish_queue().await?;
            best = best.min(now_seconds() - started);
        }
        Ok(best)
    }

    /// Operations per second (multiplications or mixed additions) and the threads they were
    /// measured over: after one run that compiles the kernel, runs at the thread counts
    /// [`ThreadSearch`] picks (on hardware GPUs until the device is full), then the chosen count
    /// once more, the faster of its two runs.
    pub(crate) async fn rate(&self) -> Result<(f64, u32), MsmError> {
        self.seconds(MIN_BENCH_THREADS, 1).await?;
        let mut search = ThreadSearch::new(self.gpu.profile.fill_microbenchmarks);
        let mut threads = MIN_BENCH_THREADS;
        while let Some(next) = search.after_run(threads, self.seconds(threads, 1).await?) {
            threads = next;
        }
        let (threads, seconds) = search.chosen();
        let seconds = seconds.min(self.seconds(threads, 1).await?);
        Ok((self.operations(threads) / seconds, threads))
    }

    /// Operations per second of one run over `threads` threads.
    async fn rate_at(&self, threads: u32) -> Result<f64, MsmError> {
        Ok(self.operations(threads) / self.seconds(threads, 1).await?)
    }

    /// Operations of one run over `threads` threads.
    fn operations(&self, threads: u32) -> f64 {
        threads as f64 * self.bench.operations_per_thread(self.curve.spec) as f64
    }
}

/// The thread counts of a microbenchmark's runs: from [`MIN_BENCH_THREADS`], 4× at a time up
/// to [`MAX_BENCH_THREADS`], until a run takes at least [`MIN_RUN_SECONDS`] (shorter runs
/// measure the submission more than the kernel). On a hardware GPU on from there while 4× the
/// threads still raise the rate by [`FILL_GAIN`] and the last run took at most
/// [`MAX_FILL_RUN_SECONDS`]: a slow kernel reaches 20 ms long before it fills a large GPU.
/// Stopping at that length, an H100 times the BLS12 G2 groups' 13-bit mixed additions over
/// 1,024 threads (under 8 per SM) against the 32-bit form's 65,536, and a fixed 16,384 threads
/// measure an H200's 32-bit multiplications at 2.1–9.1 G/s where 2^18 threads give 15 G/s.
/// Software GPUs are full at a few hundred threads, and each longer run costs them seconds.
#[derive(Debug)]
struct ThreadSearch {
    /// Whether to go on until the rate stops rising (hardware GPUs).
    fill: bool,
    /// The run with the highest rate among those of at least [`MIN_RUN_SECONDS`] or over
    /// [`MAX_BENCH_THREADS`]: threads and seconds.
    chosen: Option<(u32, f64)>,
}

impl ThreadSearch {
    fn new(fill: bool) -> Self {
        ThreadSearch { fill, chosen: None }
    }

    /// Notes that a run over `threads` threads took `seconds`; the threads of the next run, or
    /// `None` when the search is done.
    fn after_run(&mut self, threads: u32, seconds: f64) -> Option<u32> {
        let at_most = threads >= MAX_BENCH_THREADS;
        let long = seconds >= MIN_RUN_SECONDS;
        let rate = |(threads, seconds): (u32, f64)| threads as f64 / seconds;
        let gained = self.chosen.is_none_or(|chosen| rate((threads, seconds)) >= FILL_GAIN * rate(chosen));
        if (long || at_most) && self.chosen.is_none_or(|chosen| rate((threads, seconds)) > rate(chosen)) {
            self.chosen = Some((threads, seconds));
        }
        let grow = !at_most && (!long || (self.fill && gained && seconds <= MAX_FILL_RUN_SECONDS));
        grow.then_some((threads * 4).min(MAX_BENCH_THREADS))
    }

    /// The threads and seconds of the run that counts (see `chosen`).
    fn chosen(&self) -> (u32, f64) {
        self.chosen.expect("a search ends after a run it keeps")
    }
}

/// How curve `G` starts on a context: the kernels its calls run now, and the measurement that
/// may choose others, where one runs beside the calls.
pub(crate) struct Start {
    /// The kernels to compile now, and what was measured to choose them.
    pub(crate) calibration: Calibration,
    /// The measurement running beside the calls ([`Calibration::provisional`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) measuring: Option<Arc<measurement::Measurement>>,
}

/// How curve `G` starts on `gpu` (see the module documentation), among the candidates its
/// profile and `fixed` leave: with the kernels this process already measured on the same adapter
/// or the calibration file holds; where nothing would be measured, with the candidates' first
/// (the rule); otherwise with the rule's kernels too, while the measurement runs beside the
/// calls natively (a browser, which has one form and no rate to predict the accumulations'
/// time from, measures only with an unlimited `budget`, and then before the first call).
pub(crate) async fn start<G: GpuCurve>(gpu: &Gpu, fixed: Fixed, budget: f64) -> Result<Start, MsmError> {
    let spec = G::spec();
    let candidates = Candidates::new(&gpu.profile, spec, fixed);
    let key = cache_key(gpu, spec.name, &candidates, budget);
    let cached = cache().lock().ok().and_then(|cache| cache.get(&key).cloned());
    #[cfg(not(target_arch = "wasm32"))]
    let cached = cached.or_else(|| stored::load(&key, spec, &candidates));
    let settled = |calibration| Start {
        calibration,
        #[cfg(not(target_arch = "wasm32"))]
        measuring: None,
    };
    if let Some(calibration) = cached {
        return Ok(settled(calibration));
    }
    let by_rule = Calibration {
        kernels: candidates.kernels(candidates.forms[0], candidates.accumulations[0]),
        form_rates: Vec::new(),
        form_benchmark: candidates.benchmark,
        accumulation_seconds: Vec::new(),
        provisional: false,
    };
    // One form leaves no rate to predict the accumulations' pass from: they are timed only
    // within an unlimited budget.
    let measures = candidates.forms.len() > 1 || (candidates.accumulations.len() > 1 && budget == f64::INFINITY);
    if !measures {
        return Ok(settled(by_rule));
    }
    #[cfg(target_arch = "wasm32")]
    return Ok(settled(measure::<G>(gpu, &candidates, &key, budget).await?));
    #[cfg(not(target_arch = "wasm32"))]
    Ok(Start {
        calibration: Calibration { provisional: true, ..by_rule },
        measuring: Some(measurement::register::<G>(gpu, candidates, key, budget)),
    })
}

/// Measures the candidates of curve `G` (see the module documentation): the forms' rates, then
/// the accumulations' passes where predicted to fit `budget`; keeps the choice for this
/// process under `key`, and in the calibration file where the form was decisive and no call
/// ran on the device meanwhile.
async fn measure<G: GpuCurve>(
    gpu: &Gpu,
    candidates: &Candidates,
    key: &str,
    budget: f64,
) -> Result<Calibration, MsmError> {
    let spec = G::spec();
    let passes_before = gpu.passes();
    let (form_rates, form_benchmark) = if candidates.forms.len() > 1 {
        measure_forms(gpu, spec, candidates).await?
    } else {
        (Vec::new(), candidates.benchmark)
    };
    let form = best_of(&form_rates).unwrap_or(candidates.forms[0]);

    let mut accumulation_seconds = Vec::new();
    if candidates.accumulations.len() > 1 {
        // The pass's predicted time, from the rate measured for the form; unknown (and so
        // within only an unlimited budget) where the form was not measured.
        let plan = Plan::choose(CALIBRATION_POINTS as u32, spec.scalar_bits);
        let predicted = form_rates.iter().find(|(f, _)| *f == form).map_or(f64::INFINITY, |(_, rate)| {
            let additions_per_second = match form_benchmark {
                Bench::AddStored => *rate,
                Bench::FieldMul => rate / RunningCurve::native(spec).op_muls().add_stored as f64,
            };
            plan.additions() as f64 / additions_per_second
        });
        if predicted <= budget {
            let (points, scalars) = calibration_inputs::<G>();
            let kernels: Vec<Kernels> = candidates
                .accumulations
                .iter()
                .map(|&accumulation| candidates.kernels(form, accumulation))
                .collect();
            for candidate in CurveRunner::compile_many::<G>(gpu, 1, &kernels).await? {
                let seconds = time_pass::<G>(gpu, &candidate, &points, &scalars).await?;
                accumulation_seconds.push((candidate.kernels().accumulation, seconds));
            }
        }
    }
    let accumulation = accumulation_seconds
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(candidates.accumulations[0], |(accumulation, _)| *accumulation);
    let kernels = candidates.kernels(form, accumulation);
    let calibration = Calibration { kernels, form_rates, form_benchmark, accumulation_seconds, provisional: false };
    #[cfg(not(target_arch = "wasm32"))]
    if decisive(&calibration.form_rates) && gpu.passes() == passes_before {
        stored::save(key, spec, candidates, &calibration);
    }
    #[cfg(target_arch = "wasm32")]
    let _ = passes_before;
    if let Ok(mut cache) = cache().lock() {
        cache.insert(key.to_string(), calibration.clone());
    }
    Ok(calibration)
}

/// Seconds of one warm pass on `runner` (the faster of two, after one that warms it up).
async fn time_pass<G: GpuCurve>(
    gpu: &Gpu,
    runner: &CurveRunner,
    points: &[G],
    scalars: &[G::ScalarField],
) -> Result<f64, MsmError> {
    let (points, scalars) = (Points::Arkworks(points), Scalars::<G>::Arkworks(scalars));
    let plan = Plan::choose(points.len() as u32, G::spec().scalar_bits)
        .with_inputs(points.plan_inputs() | scalars.plan_inputs());
    let mut lease = runner.workspaces.lease(&runner.buffer_sizes(&plan)).await;
    let mut best = f64::INFINITY;
    let halves = points.raw_halves();
    for run in 0..3 {
        let source = PointSource::upload(&halves, 0);
        gpu.finish_queue().await?;
        let started = now_seconds();
        let output = runner.run_leased(gpu, &mut lease, &plan, source, &scalars, false).await?;
        output.faults.check(0)?;
        if run > 0 {
            best = best.min(now_seconds() - started);
        }
    }
    Ok(best)
}

/// The candidate forms' rates that choose the field form, and what they count (see the module
/// documentation): multiplications, then, on a hardware GPU where they do not settle it, mixed
/// additions.
async fn measure_forms(
    gpu: &Gpu,
    spec: &'static CurveSpec,
    candidates: &Candidates,
) -> Result<(Vec<(MulForm, f64)>, Bench), MsmError> {
    let multiplications = rates(gpu, spec, &candidates.forms, Bench::FieldMul).await?;
    if candidates.benchmark == Bench::FieldMul || multiplications_settle(spec, &multiplications) {
        return Ok((multiplications, Bench::FieldMul));
    }
    Ok((rates(gpu, spec, &candidates.forms, candidates.benchmark).await?, candidates.benchmark))
}

/// Operations per second of `bench` in each of `forms`, compiled together. Each form runs
/// twice, the second time in reverse order, and keeps its best: a moment of load on the machine
/// slows one measurement, seldom both of a form's. A software GPU under a compile once measured
/// the 32-bit form at 5.8 M multiplications/s against its usual 109, and the calibration file kept
/// the 13-bit form it chose then.
async fn rates(
    gpu: &Gpu,
    spec: &'static CurveSpec,
    forms: &[MulForm],
    bench: Bench,
) -> Result<Vec<(MulForm, f64)>, MsmError> {
    let mut measured = Vec::new();
    let curve = RunningCurve::native(spec);
    for (&form, bench) in forms.iter().zip(Microbenchmark::new_many(gpu, curve, forms, bench).await?) {
        let (rate, threads) = bench.rate().await?;
        measured.push((form, bench, threads, rate));
    }
    for (_, bench, threads, rate) in measured.iter_mut().rev() {
        *rate = rate.max(bench.rate_at(*threads).await?);
    }
    Ok(measured.into_iter().map(|(form, _, _, rate)| (form, rate)).collect())
}

/// Whether multiplication `rates` settle the field form on a hardware GPU: the form with the
/// fastest multiplication holds a field element in no more register words than any other. A
/// mixed addition is 7–11 multiplications plus additions, subtractions and moves over every
/// word, with more values live than a multiplication; a form with more words does more of that
/// work and spills sooner, so its additions cannot overtake a form that already multiplies
/// faster. (The 13-bit form packs 20 or 30 limbs into 10 or 15 words; the 32-bit form needs 8
/// or 12.)
fn multiplications_settle(spec: &CurveSpec, rates: &[(MulForm, f64)]) -> bool {
    best_of(rates)
        .is_none_or(|fastest| rates.iter().all(|&(form, _)| spec.register_words(fastest) <= spec.register_words(form)))
}

/// How much faster the fastest form must measure than every other for the calibration file to keep
/// the choice: a close call is measured again by the next process. Load on the machine can level
/// the forms: a software GPU, calibrating while two test processes ran, measured its 32-bit form at
/// 26.8 M multiplications/s and the 13-bit one at 29.0 (48.5 and 27.2 when idle), and the 13-bit
/// form it kept made that build's calls 2.2× slower in every later process.
#[cfg(not(target_arch = "wasm32"))]
const DECISIVE_MARGIN: f64 = 1.15;

/// Whether the form `rates` settle the choice for later processes ([`DECISIVE_MARGIN`]); true
/// where at most one form was measured.
#[cfg(not(target_arch = "wasm32"))]
fn decisive(rates: &[(MulForm, f64)]) -> bool {
    let mut sorted: Vec<f64> = rates.iter().map(|(_, rate)| *rate).collect();
    sorted.sort_by(|a, b| b.total_cmp(a));
    match sorted.as_slice() {
        [fastest, next, ..] => *fastest >= DECISIVE_MARGIN * next,
        _ => true,
    }
}

/// The form with the highest rate.
fn best_of(rates: &[(MulForm, f64)]) -> Option<MulForm> {
    rates.iter().max_by(|a, b| a.1.total_cmp(&b.1)).map(|(form, _)| *form)
}

/// Fixed random inputs of the accumulation calibration.
fn calibration_inputs<G: GpuCurve>() -> (Vec<G>, Vec<G::ScalarField>) {
    let mut rng = StdRng::seed_from_u64(2026);
    let points = random_points::<G, _>(CALIBRATION_POINTS, &mut rng);
    let scalars = (0..CALIBRATION_POINTS).map(|_| G::ScalarField::rand(&mut rng)).collect();
    (points, scalars)
}

/// The calibration file of native builds (see the module documentation). Reading or writing it
/// never fails a call: without a usable file, calibrations are measured again.
#[cfg(not(target_arch = "wasm32"))]
mod stored {
    use std::hash::{Hash, Hasher};
    use std::io::Write;
    use std::path::{Path, PathBuf};

    use super::{Bench, Calibration, Candidates};
    use crate::curve::CurveSpec;
    use crate::point_model::RunningCurve;
    use crate::wgsl::{compose, Stage};

    /// v3: rates measured until a hardware GPU is full ([`super::ThreadSearch`]); v2's were
    /// measured over as few threads as took 20 ms, which could choose from an under-filled run.
    const FILE_NAME: &str = "calibrations-v3.txt";

    fn path() -> Option<PathBuf> {
        // Unit tests neither read nor write the user's file: a pick that another process
        // measured (on a loaded machine, say) would change the kernels a test expects.
        if cfg!(test) {
            return None;
        }
        Some(crate::cache_dir::cache_dir()?.join(FILE_NAME))
    }

    /// The key of an entry: the in-process key and the candidates' microbenchmark code.
    fn entry_key(key: &str, spec: &CurveSpec, candidates: &Candidates) -> String {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        key.hash(&mut hasher);
        for &form in &candidates.forms {
            compose(RunningCurve::native(spec), Stage::Benchmarks, form).hash(&mut hasher);
        }
        // An entry names its accumulation by its place among the candidates.
        candidates.accumulations.hash(&mut hasher);
        format!("{:016x}", hasher.finish())
    }

    fn numbers(values: impl Iterator<Item = f64>) -> String {
        let list: Vec<String> = values.map(|v| format!("{v:e}")).collect();
        if list.is_empty() {
            "-".into()
        } else {
            list.join(",")
        }
    }

    fn parse(list: &str) -> Option<Vec<f64>> {
        if list == "-" {
            return Some(Vec::new());
        }
        list.split(',').map(|v| v.parse().ok()).collect()
    }

    /// The entry for `key`, if the file has one (the last one written wins).
    pub(super) fn load(key: &str, spec: &CurveSpec, candidates: &Candidates) -> Option<Calibration> {
        load_from(&path()?, key, spec, candidates)
    }

    fn load_from(path: &Path, key: &str, spec: &CurveSpec, candidates: &Candidates) -> Option<Calibration> {
        let text = std::fs::read_to_string(path).ok()?;
        let wanted = entry_key(key, spec, candidates);
        let line = text.lines().rev().find(|line| line.split(' ').next() == Some(wanted.as_str()))?;
        let fields: Vec<&str> = line.split(' ').collect();
        let [_, form, accumulation, benchmark, rates, seconds] = fields[..] else { return None };
        let form_benchmark = [Bench::FieldMul, Bench::AddStored].into_iter().find(|b| b.name() == benchmark)?;
        let form = *candidates.forms.get(form.parse::<usize>().ok()?)?;
        let accumulation = *candidates.accumulations.get(accumulation.parse::<usize>().ok()?)?;
        let (rates, seconds) = (parse(rates)?, parse(seconds)?);
        let measured = |len: usize, count: usize| len == 0 || len == count;
        if !measured(rates.len(), candidates.forms.len()) || !measured(seconds.len(), candidates.accumulations.len()) {
            return None;
        }
        Some(Calibration {
            kernels: candidates.kernels(form, accumulation),
            form_rates: candidates.forms.iter().copied().zip(rates).collect(),
            form_benchmark,
            accumulation_seconds: candidates.accumulations.iter().copied().zip(seconds).collect(),
            provisional: false,
        })
    }

    /// Appends an entry for `key` unless nothing was measured.
    pub(super) fn save(key: &str, spec: &CurveSpec, candidates: &Candidates, calibration: &Calibration) {
        if calibration.form_rates.is_empty() && calibration.accumulation_seconds.is_empty() {
            return;
        }
        if let Some(path) = path() {
            save_to(&path, key, spec, candidates, calibration);
        }
    }

    fn save_to(path: &Path, key: &str, spec: &CurveSpec, candidates: &Candidates, calibration: &Calibration) {
        let kernels = calibration.kernels;
        let (Some(form), Some(accumulation)) = (
            candidates.forms.iter().position(|&f| f == kernels.form),
            candidates.accumulations.iter().position(|&a| a == kernels.accumulation),
        ) else {
            return;
        };
        let line = format!(
            "{} {form} {accumulation} {} {} {}\n",
            entry_key(key, spec, candidates),
            calibration.form_benchmark.name(),
            numbers(calibration.form_rates.iter().map(|(_, rate)| *rate)),
            numbers(calibration.accumulation_seconds.iter().map(|(_, seconds)| *seconds)),
        );
        let append = || -> std::io::Result<()> {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            // One write of one short line in append mode: concurrent processes do not interleave.
            std::fs::OpenOptions::new().create(true).append(true).open(path)?.write_all(line.as_bytes())
        };
        if let Err(e) = append() {
            log::debug!("calibration not saved to {}: {e}", path.display());
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::gpu::device_profile::Bench;
        use crate::step::Accumulation;
        use crate::wgsl::MulForm;

        /// An entry read back equals the one written, what its rates count included; the last
        /// entry for a key wins, other keys and lines that do not parse are passed over, and a
        /// missing file gives nothing.
        #[test]
        fn entries_round_trip_through_the_file() {
            let spec = crate::CurveId::ALL[0].spec();
            let dir = std::env::temp_dir().join(format!("webgpu-msm-calibration-{}", std::process::id()));
            let path = dir.join(super::FILE_NAME);
            let candidates = Candidates {
                forms: vec![MulForm::WIDE, MulForm::ROLLED],
                accumulations: vec![Accumulation::Edwards, Accumulation::EdwardsAffine],
                benchmark: Bench::AddStored,
                profile: crate::DeviceProfile::LLVMPIPE,
            };
            assert_eq!(load_from(&path, "key", spec, &candidates), None);
            let measured = |form, accumulation, bench, rates: [f64; 2], seconds: Vec<f64>| Calibration {
                kernels: candidates.kernels(form, accumulation),
                form_rates: candidates.forms.iter().copied().zip(rates).collect(),
                form_benchmark: bench,
                accumulation_seconds: candidates.accumulations.iter().copied().zip(seconds).collect(),
                provisional: false,
            };
            let (extended, affine) = (Accumulation::Edwards, Accumulation::EdwardsAffine);
            let first = measured(MulForm::WIDE, extended, Bench::FieldMul, [1.5e7, 3.25e6], vec![]);
            let second = measured(MulForm::ROLLED, affine, Bench::AddStored, [1.0 / 3.0, 2.0], vec![0.075, 0.0125]);
            let other = measured(MulForm::WIDE, affine, Bench::FieldMul, [1.0, 2.0], vec![2.0, 1.0]);
            save_to(&path, "key", spec, &candidates, &first);
            assert_eq!(load_from(&path, "key", spec, &candidates), Some(first));
            std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"garbage line\n").unwrap();
            save_to(&path, "key", spec, &candidates, &second);
            save_to(&path, "another key", spec, &candidates, &other);
            assert_eq!(load_from(&path, "key", spec, &candidates), Some(second));
            assert_eq!(load_from(&path, "another key", spec, &candidates), Some(other));
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{
        decisive, measure_forms, multiplications_settle, Bench, Candidates, ThreadSearch, MAX_BENCH_THREADS,
        MIN_BENCH_THREADS,
    };
    use crate::step::Accumulation;
    use crate::testing::shared_context;
    use crate::wgsl::MulForm;
    use crate::{CurveId, DeviceProfile};

    /// The calibration file keeps a form only when it measured at least 15% ahead of every
    /// other; a software GPU under load once kept a 13-bit form that measured 8% ahead and ran
    /// its calls 2.2× slower.
    #[test]
    fn only_a_decisive_form_choice_is_kept_for_later_processes() {
        let (wide, rolled) = (MulForm::WIDE, MulForm::ROLLED);
        assert!(decisive(&[(wide, 48.5e6), (rolled, 27.2e6)]));
        assert!(!decisive(&[(wide, 26.8e6), (rolled, 29.0e6)]));
        assert!(decisive(&[(wide, 1.0), (rolled, 1.15)]));
        assert!(decisive(&[]) && decisive(&[(wide, 1.0)]), "nothing to compare: kept");
    }

    /// The thread counts `ThreadSearch` runs on a model device whose `seconds(threads)` a run
    /// takes, and the threads and rate (threads per second) it keeps.
    fn search(fill: bool, seconds: impl Fn(u32) -> f64) -> (Vec<u32>, u32, f64) {
        let mut search = ThreadSearch::new(fill);
        let mut runs = vec![MIN_BENCH_THREADS];
        while let Some(next) = search.after_run(*runs.last().unwrap(), seconds(*runs.last().unwrap())) {
            runs.push(next);
        }
        let (threads, seconds) = search.chosen();
        (runs, threads, threads as f64 / seconds)
    }

    /// A model GPU that holds `resident` threads at once, each taking `wave` seconds, after a
    /// submission overhead of 0.1 ms.
    fn gpu(resident: u32, wave: f64) -> impl Fn(u32) -> f64 {
        move |threads| 1e-4 + wave * threads.div_ceil(resident) as f64
    }

    /// A kernel whose 1,024 threads already take 27 ms (the BLS12 G2 groups' 13-bit mixed
    /// additions on an H100) is measured on a large hardware GPU over threads that fill it, at
    /// its full rate, and on a software GPU (where each further run costs seconds) after the
    /// first run that long. A fast kernel grows to the most threads either way; a small GPU that
    /// is full early stops after the first run that gains nothing.
    #[test]
    fn microbenchmarks_fill_a_hardware_gpu_before_they_count() {
        let large = gpu(1 << 17, 0.027);
        let (runs, threads, rate) = search(true, &large);
        assert!(threads >= 1 << 17 && rate > 0.9 * (1 << 17) as f64 / 0.027, "{runs:?}: {threads} at {rate}");
        let (runs, threads, rate) = search(false, &large);
        assert_eq!((runs.as_slice(), threads), (&[MIN_BENCH_THREADS][..], MIN_BENCH_THREADS), "software: {rate}");

        for fill in [true, false] {
            let (runs, threads, _) = search(fill, gpu(100_000, 0.000_5));
            assert_eq!(threads, MAX_BENCH_THREADS, "fast kernel, fill {fill}: {runs:?}");
        }

        let (runs, threads, rate) = search(true, gpu(8_192, 0.02));
        assert!(threads >= 8_192 && rate > 0.9 * 8_192.0 / 0.02, "{runs:?}: {threads} at {rate}");
        assert_eq!(runs, [1 << 10, 1 << 12, 1 << 14, 1 << 16], "stops once 4× the threads gain nothing");
    }

    /// A hardware GPU's form measurement on this device: it returns both forms' rates, and
    /// multiplication rates only where they settle the form (on a software GPU, whose 32-bit
    /// multiplication is the faster, without compiling the mixed additions).
    #[test]
    fn gpu_hardware_form_measurement_times_additions_only_where_multiplications_leave_it_open() {
        let Some(ctx) = shared_context() else { return };
        let spec = CurveId::ALL[0].spec();
        let candidates = Candidates {
            forms: vec![MulForm::WIDE, MulForm::ROLLED],
            accumulations: vec![Accumulation::Projective],
            benchmark: Bench::AddStored,
            profile: DeviceProfile::HARDWARE,
        };
        let (rates, bench) = pollster::block_on(measure_forms(ctx.gpu(), spec, &candidates)).expect("measured");
        let forms: Vec<MulForm> = rates.iter().map(|(form, _)| *form).collect();
        assert_eq!(forms, candidates.forms);
        assert!(rates.iter().all(|(_, rate)| rate.is_finite() && *rate > 0.0), "{rates:?}");
        if bench == Bench::FieldMul {
            assert!(multiplications_settle(spec, &rates), "{rates:?}");
        }
        // Where the profile compares forms by their multiplication (software GPUs), the 32-bit
        // multiplication is the faster.
        if ctx.gpu().profile.form_benchmark == Bench::FieldMul {
            assert_eq!(bench, Bench::FieldMul, "{rates:?}");
        }
    }

    /// On a hardware GPU a faster 32-bit multiplication settles the form on every group (the
    /// 32-bit form holds an element in fewer words); a faster 13-bit one leaves it to the mixed
    /// additions. No rates (one form) settle it.
    #[test]
    fn a_faster_32_bit_multiplication_settles_the_form() {
        let (wide, narrow) = (MulForm::WIDE.unbatched(), MulForm::ROLLED.unbatched());
        for curve in CurveId::ALL {
            let spec = curve.spec();
            assert!(spec.register_words(wide) < spec.register_words(narrow), "{curve}");
            assert!(multiplications_settle(spec, &[(wide, 2.0), (narrow, 1.0)]), "{curve}");
            assert!(!multiplications_settle(spec, &[(wide, 1.0), (narrow, 2.0)]), "{curve}");
            assert!(multiplications_settle(spec, &[]), "{curve}");
        }
    }
}
