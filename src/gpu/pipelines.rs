//! The compute pipelines of one curve, compiled once per context and reused by every call.

use crate::curve::CurveSpec;
use crate::wgsl::{compose, MulForm, Stage};

/// One compute pipeline per entry point of the MSM stages.
pub struct CurvePipelines {
    /// Stage 1, points (skipped for prepared bases).
    pub convert_points: wgpu::ComputePipeline,
    /// Stage 1, scalars.
    pub decompose_scalars: wgpu::ComputePipeline,
    /// Stage 2, prefix scan.
    pub scan_bucket_counts: wgpu::ComputePipeline,
    /// Stage 2, scatter.
    pub scatter_entries: wgpu::ComputePipeline,
    /// Stage 3, equal chunks of entries per thread.
    pub accumulate_chunks: wgpu::ComputePipeline,
    /// Stage 3, pieces of buckets that span several chunks.
    pub combine_chunk_carries: wgpu::ComputePipeline,
    /// Stage 4.
    pub bucket_reduce: wgpu::ComputePipeline,
}

/// Compiles `stage` for `spec` and builds a pipeline for each named entry point.
pub fn stage_pipelines<const K: usize>(
    device: &wgpu::Device,
    spec: &CurveSpec,
    form: MulForm,
    stage: Stage,
    entry_points: [&str; K],
) -> [wgpu::ComputePipeline; K] {
    let label = format!("{} {}", spec.name, stage.file());
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(&label),
        source: wgpu::ShaderSource::Wgsl(compose(spec, stage, form).into()),
    });
    entry_points.map(|entry| {
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        })
    })
}

impl CurvePipelines {
    /// Compiles every stage of the pipeline for `spec`.
    pub fn new(device: &wgpu::Device, spec: &CurveSpec, form: MulForm) -> Self {
        let [convert_points, decompose_scalars] =
            stage_pipelines(device, spec, form, Stage::ConvertAndDecompose, ["convert_points", "decompose_scalars"]);
        let [scan_bucket_counts, scatter_entries] =
            stage_pipelines(device, spec, form, Stage::Transpose, ["scan_bucket_counts", "scatter_entries"]);
        let [accumulate_chunks, combine_chunk_carries] =
            stage_pipelines(device, spec, form, Stage::Smvp, ["accumulate_chunks", "combine_chunk_carries"]);
        let [bucket_reduce] = stage_pipelines(device, spec, form, Stage::BucketReduce, ["bucket_reduce"]);
        CurvePipelines {
            convert_points,
            decompose_scalars,
            scan_bucket_counts,
            scatter_entries,
            accumulate_chunks,
            combine_chunk_carries,
            bucket_reduce,
        }
    }

    /// Every pipeline with its name, in the order the stages run.
    pub fn in_order(&self) -> [(&'static str, &wgpu::ComputePipeline); 7] {
        [
            ("convert_points", &self.convert_points),
            ("decompose_scalars", &self.decompose_scalars),
            ("scan_bucket_counts", &self.scan_bucket_counts),
            ("scatter_entries", &self.scatter_entries),
            ("accumulate_chunks", &self.accumulate_chunks),
            ("combine_chunk_carries", &self.combine_chunk_carries),
            ("bucket_reduce", &self.bucket_reduce),
        ]
    }
}
