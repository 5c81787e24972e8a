//! The compute pipelines of one curve, compiled once per context and reused by every call.

use crate::curve::CurveSpec;
use crate::step::{Kernels, Step};
use crate::wgsl::{compose, MulForm, Stage};

/// One compute pipeline per [`Step`] the curve runs.
pub struct CurvePipelines {
    /// The curve's steps in run order, each with its pipeline.
    steps: Vec<(Step, wgpu::ComputePipeline)>,
}

/// The composed module of `stage` for `spec`.
fn shader_module(device: &wgpu::Device, spec: &CurveSpec, form: MulForm, stage: Stage) -> wgpu::ShaderModule {
    let label = format!("{} {}", spec.name, stage.file());
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(&label),
        source: wgpu::ShaderSource::Wgsl(compose(spec, stage, form).into()),
    })
}

/// The pipeline of `entry` in `module`, with the layout derived from the bindings it uses.
fn compute_pipeline(device: &wgpu::Device, module: &wgpu::ShaderModule, entry: &str) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: None,
        module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// Compiles `stage` for `spec` and builds a pipeline for each named entry point (the test
/// kernels and microbenchmarks; the MSM's steps are [`CurvePipelines`]).
pub fn stage_pipelines<const K: usize>(
    device: &wgpu::Device,
    spec: &CurveSpec,
    form: MulForm,
    stage: Stage,
    entry_points: [&str; K],
) -> [wgpu::ComputePipeline; K] {
    let module = shader_module(device, spec, form, stage);
    entry_points.map(|entry| compute_pipeline(device, &module, entry))
}

impl CurvePipelines {
    /// Compiles every stage that holds a step once, and builds each step's pipeline from it.
    pub fn new(device: &wgpu::Device, spec: &CurveSpec, kernels: Kernels) -> Self {
        let accumulation = kernels.accumulation.on(&spec.model);
        let steps = || Step::of(&spec.model, accumulation);
        let modules: Vec<(Stage, wgpu::ShaderModule)> = Stage::ALL
            .into_iter()
            .filter(|&stage| steps().any(|step| step.stage(accumulation) == stage))
            .map(|stage| (stage, shader_module(device, spec, kernels.form, stage)))
            .collect();
        let module_of = |stage: Stage| &modules.iter().find(|(s, _)| *s == stage).expect("compiled above").1;
        let steps = steps()
            .map(|step| (step, compute_pipeline(device, module_of(step.stage(accumulation)), step.name())))
            .collect();
        CurvePipelines { steps }
    }

    /// The curve's steps in run order.
    pub fn steps(&self) -> impl Iterator<Item = Step> + '_ {
        self.steps.iter().map(|(step, _)| *step)
    }

    /// The pipeline of `step` (one of [`CurvePipelines::steps`]).
    pub fn get(&self, step: Step) -> &wgpu::ComputePipeline {
        &self.steps.iter().find(|(s, _)| *s == step).expect("a step of this curve").1
    }
}
