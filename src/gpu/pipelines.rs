//! The compute pipelines of one curve, compiled once per context and reused by every call.

use crate::curve::CurveSpec;
use crate::point_model::RunningCurve;
use crate::step::{Kernels, Step};
use crate::MsmError;

use super::device::Gpu;
use super::device_profile::DeviceProfile;
use crate::wgsl::{compose, MulForm, Stage};

/// One compute pipeline per [`Step`] the curve runs.
pub(crate) struct CurvePipelines {
    /// The curve's steps in run order, each with its pipeline.
    steps: Vec<(Step, wgpu::ComputePipeline)>,
}

/// The module of `stage` for `spec` from its composed WGSL `code`.
fn shader_module(device: &wgpu::Device, spec: &CurveSpec, stage: Stage, code: &str) -> wgpu::ShaderModule {
    let label = format!("{} {}", spec.name, stage.file());
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(&label),
        source: wgpu::ShaderSource::Wgsl(code.into()),
    })
}

/// The pipeline of `entry` in `module`, with the layout derived from the bindings it uses,
/// through the device's pipeline cache where it keeps one.
fn compute_pipeline(gpu: &Gpu, module: &wgpu::ShaderModule, entry: &str) -> wgpu::ComputePipeline {
    #[cfg(not(target_arch = "wasm32"))]
    let cache = gpu.pipeline_cache.as_ref().map(|cache| &cache.cache);
    #[cfg(target_arch = "wasm32")]
    let cache = None;
    gpu.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: None,
        module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache,
    })
}

/// Keeps what the pipeline cache gained for later processes (natively).
fn save_pipeline_cache(gpu: &Gpu) {
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(cache) = &gpu.pipeline_cache {
        cache.save();
    }
    #[cfg(target_arch = "wasm32")]
    let _ = gpu;
}

/// Compiles `stage` for `curve` and builds a pipeline for each named entry point (the test
/// kernels and microbenchmarks; the MSM's steps are [`CurvePipelines`]).
pub(crate) fn stage_pipelines<const K: usize>(
    gpu: &Gpu,
    curve: RunningCurve,
    form: MulForm,
    stage: Stage,
    entry_points: [&str; K],
) -> [wgpu::ComputePipeline; K] {
    let module = shader_module(&gpu.device, curve.spec, stage, &compose(curve, stage, form));
    let pipelines = entry_points.map(|entry| compute_pipeline(gpu, &module, entry));
    save_pipeline_cache(gpu);
    pipelines
}

/// One stage of a curve: the steps its module holds and its composed WGSL.
#[derive(Clone)]
struct StageCode {
    stage: Stage,
    form: MulForm,
    steps: Vec<Step>,
    code: String,
}

/// The stages one set of kernels needs on a device of `profile`: each holds the steps that
/// share its module, in the form the profile compiles them in ([`DeviceProfile::step_form`]).
fn stages_of(profile: &DeviceProfile, curve: RunningCurve, kernels: Kernels) -> Vec<StageCode> {
    let mut by_stage: Vec<StageCode> = Vec::new();
    for step in Step::of(curve.model, kernels.plan) {
        let (stage, form) = (step.stage(), profile.step_form(step, curve, kernels.form));
        match by_stage.iter_mut().find(|s| s.stage == stage && s.form == form) {
            Some(module) => module.steps.push(step),
            None => by_stage.push(StageCode { stage, form, steps: vec![step], code: compose(curve, stage, form) }),
        }
    }
    by_stage
}

impl CurvePipelines {
    /// The pipelines of each candidate's kernels, in order (calibration compiles every
    /// accumulation it times at once): every distinct stage that holds a step compiles once,
    /// and each step's pipeline is built from it. Natively the modules, then the pipelines of
    /// all candidates compile on the machine's cores ([`Gpu::capture_each`]), one job per
    /// pipeline, for drivers that compile a pipeline when it is created: a module's steps (the
    /// accumulation and its carries, the reduction and its window sums, each a long compile)
    /// compile side by side rather than one after the other. Software GPUs compile at a
    /// pipeline's first dispatch instead, so there it gains little. In browsers one after the
    /// other, all first compiled asynchronously by the browser (`src/gpu/precompile.rs`) so
    /// the page keeps painting meanwhile.
    pub(crate) async fn compile(gpu: &Gpu, candidates: &[(RunningCurve<'_>, Kernels)]) -> Result<Vec<Self>, MsmError> {
        let stages: Vec<Vec<StageCode>> =
            candidates.iter().map(|&(curve, kernels)| stages_of(&gpu.profile, curve, kernels)).collect();
        // Each distinct module once, with every step any candidate needs from it: candidates
        // share the stages whose code is the same (transposition, scalar conversion).
        let mut modules: Vec<(&CurveSpec, StageCode)> = Vec::new();
        for (&(RunningCurve { spec, .. }, _), codes) in candidates.iter().zip(&stages) {
            for code in codes {
                match modules.iter_mut().find(|(_, module)| module.code == code.code) {
                    Some((_, module)) => {
                        for &step in &code.steps {
                            if !module.steps.contains(&step) {
                                module.steps.push(step);
                            }
                        }
                    }
                    None => modules.push((spec, code.clone())),
                }
            }
        }
        // The longest modules' pipelines first: each candidate's accumulation and reduction
        // take most of its compile time (ACO: 1.4-2.7 s each against under 0.2 s for the rest).
        modules.sort_by_key(|(_, module)| std::cmp::Reverse(module.code.len()));
        let create =
            |(spec, module): &(&CurveSpec, StageCode)| shader_module(&gpu.device, spec, module.stage, &module.code);
        #[cfg(target_arch = "wasm32")]
        {
            let sources: Vec<(&str, Vec<&str>)> = modules
                .iter()
                .map(|(_, m)| (m.code.as_str(), m.steps.iter().map(|step| step.name()).collect()))
                .collect();
            super::precompile::precompile(&gpu.device, &sources).await;
        }
        let shader_modules = gpu.capture_each(&modules, create).await?;
        let jobs: Vec<(usize, Step)> =
            modules.iter().enumerate().flat_map(|(i, (_, m))| m.steps.iter().map(move |&step| (i, step))).collect();
        let compile = |&(i, step): &(usize, Step)| compute_pipeline(gpu, &shader_modules[i], step.name());
        let compiled = gpu.capture_each(&jobs, compile).await?;
        save_pipeline_cache(gpu);
        let pipeline = |code: &str, step: Step| {
            let module = modules.iter().position(|(_, m)| m.code == code).expect("every stage was compiled");
            let job = jobs.iter().position(|&job| job == (module, step)).expect("every step was compiled");
            compiled[job].clone()
        };
        Ok(stages
            .iter()
            .map(|codes| {
                let mut steps: Vec<(Step, wgpu::ComputePipeline)> = codes
                    .iter()
                    .flat_map(|code| code.steps.iter().map(|&step| (step, pipeline(&code.code, step))))
                    .collect();
                steps.sort_by_key(|(step, _)| *step as usize);
                CurvePipelines { steps }
            })
            .collect())
    }

    /// The curve's steps in run order.
    pub(crate) fn steps(&self) -> impl Iterator<Item = Step> + '_ {
        self.steps.iter().map(|(step, _)| *step)
    }

    /// The pipeline of `step` (one of [`CurvePipelines::steps`]).
    pub(crate) fn get(&self, step: Step) -> &wgpu::ComputePipeline {
        &self.steps.iter().find(|(s, _)| *s == step).expect("a step of this curve").1
    }
}
