//! Encodes and runs one MSM through the four GPU stages.

use crate::clock::now_seconds;
use crate::plan::Plan;
use crate::step::Buffer;
use crate::MsmError;

use super::device::Gpu;
use super::pipelines::CurvePipelines;
use super::workspace::Workspace;

/// Workgroup size of the one-thread-per-item stages (`WORKGROUP_SIZE` in `common.wgsl`).
const WORKGROUP_SIZE: u32 = 64;
/// Largest workgroup count per dispatch dimension (WebGPU default limit).
const MAX_GROUPS_PER_DIMENSION: u32 = 65_535;

/// Workgroup counts for `threads` threads, folded into two dimensions when needed
/// (`thread_index` in `common.wgsl` unfolds them).
pub fn dispatch_size(threads: u32) -> (u32, u32) {
    let groups = threads.div_ceil(WORKGROUP_SIZE).max(1);
    if groups <= MAX_GROUPS_PER_DIMENSION {
        (groups, 1)
    } else {
        (MAX_GROUPS_PER_DIMENSION, groups.div_ceil(MAX_GROUPS_PER_DIMENSION))
    }
}

/// What one GPU run reads back.
pub struct RunOutput {
    /// Packed words of the per-segment partial sums (`plan.total_segments()` points).
    pub partials: Vec<u32>,
    /// In profiling runs: seconds of the upload, of each pipeline (in order) and of the readback.
    pub stage_seconds: Vec<(&'static str, f64)>,
}

/// Where a run's points come from.
#[derive(Clone, Copy)]
pub enum PointSource<'a> {
    /// Upload words (canonical affine coordinates), converted by `convert_points` in this run.
    Upload(&'a [u32]),
    /// Points already converted on the GPU (prepared bases).
    Prepared(&'a PreparedPiece),
}

/// Points converted once into their stored form and kept on the GPU.
pub struct PreparedPiece {
    /// Number of points.
    pub n: u32,
    /// Stored points, as `Buffer::Points`.
    pub points: wgpu::Buffer,
    /// Identity flags, as `Buffer::Identity`.
    pub identity: wgpu::Buffer,
}

/// Workgroup counts of each pipeline, in [`CurvePipelines::in_order`] order.
fn dispatches(plan: &Plan) -> [(u32, u32); 7] {
    [
        dispatch_size(plan.n),
        dispatch_size(plan.n),
        (plan.num_windows, 1),
        dispatch_size(plan.n),
        dispatch_size(plan.total_chunks()),
        dispatch_size(plan.total_buckets()),
        dispatch_size(plan.total_segments()),
    ]
}

/// Uploads the inputs, runs every pipeline and reads back the partial sums. The workspace keeps
/// every intermediate buffer. With `profile`, each step is submitted and waited for on its own
/// and timed (slower overall: use it to see where the time goes, not for the fastest run).
#[allow(clippy::too_many_arguments)]
pub async fn run_stages(
    gpu: &Gpu,
    pipelines: &CurvePipelines,
    workspace: &Workspace,
    plan: &Plan,
    source: PointSource<'_>,
    raw_scalars: &[u32],
    partials_bytes: u64,
    profile: bool,
) -> Result<RunOutput, MsmError> {
    let prepared_groups = match source {
        PointSource::Prepared(piece) => Some(
            gpu.capture(|| workspace.prepared_bind_groups(&gpu.device, pipelines, &piece.points, &piece.identity))
                .await?,
        ),
        PointSource::Upload(_) => None,
    };
    let steps = || {
        let groups = pipelines.in_order().into_iter().zip(dispatches(plan)).zip(&workspace.bind_groups);
        groups.filter_map(|(((name, pipeline), dispatch), bind_group)| match (&prepared_groups, name) {
            (None, _) => Some((((name, pipeline), dispatch), bind_group)),
            (Some(_), "convert_points") => None,
            (Some([decompose, _]), "decompose_scalars") => Some((((name, pipeline), dispatch), decompose)),
            (Some([_, accumulate]), "accumulate_chunks") => Some((((name, pipeline), dispatch), accumulate)),
            (Some(_), _) => Some((((name, pipeline), dispatch), bind_group)),
        })
    };
    if !profile {
        let staging = gpu
            .capture(|| {
                let mut encoder = upload(gpu, workspace, plan, source, raw_scalars);
                for (((name, pipeline), dispatch), bind_group) in steps() {
                    encode_pass(&mut encoder, name, pipeline, dispatch, bind_group);
                }
                read_back_partials(gpu, encoder, workspace, partials_bytes)
            })
            .await?;
        let partials = gpu.map_and_read(&staging).await?;
        return Ok(RunOutput { partials, stage_seconds: Vec::new() });
    }

    let mut stage_seconds = Vec::new();
    let mut clock = now_seconds();
    let mut lap = |name: &'static str| {
        let now = now_seconds();
        stage_seconds.push((name, now - clock));
        clock = now;
    };
    let encoder = gpu.capture(|| upload(gpu, workspace, plan, source, raw_scalars)).await?;
    gpu.queue.submit([encoder.finish()]);
    gpu.finish_queue().await?;
    lap("upload");
    for (((name, pipeline), dispatch), bind_group) in steps() {
        gpu.capture(|| {
            let mut encoder = new_encoder(gpu);
            encode_pass(&mut encoder, name, pipeline, dispatch, bind_group);
            gpu.queue.submit([encoder.finish()]);
        })
        .await?;
        gpu.finish_queue().await?;
        lap(name);
    }
    let staging = gpu.capture(|| read_back_partials(gpu, new_encoder(gpu), workspace, partials_bytes)).await?;
    let partials = gpu.map_and_read(&staging).await?;
    lap("readback");
    Ok(RunOutput { partials, stage_seconds })
}

fn new_encoder(gpu: &Gpu) -> wgpu::CommandEncoder {
    gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("msm") })
}

/// Queues the uploads and returns an encoder that starts by clearing the bucket counts.
fn upload(
    gpu: &Gpu,
    workspace: &Workspace,
    plan: &Plan,
    source: PointSource,
    raw_scalars: &[u32],
) -> wgpu::CommandEncoder {
    let queue = &gpu.queue;
    queue.write_buffer(workspace.buffer(Buffer::Params), 0, bytemuck::bytes_of(plan));
    if let PointSource::Upload(raw_points) = source {
        queue.write_buffer(workspace.buffer(Buffer::RawPoints), 0, bytemuck::cast_slice(raw_points));
    }
    queue.write_buffer(workspace.buffer(Buffer::RawScalars), 0, bytemuck::cast_slice(raw_scalars));
    let mut encoder = new_encoder(gpu);
    let counts_bytes = plan.total_buckets() as u64 * 4;
    encoder.clear_buffer(workspace.buffer(Buffer::BucketCounts), 0, Some(counts_bytes));
    encoder
}

fn encode_pass(
    encoder: &mut wgpu::CommandEncoder,
    name: &str,
    pipeline: &wgpu::ComputePipeline,
    (x, y): (u32, u32),
    bind_group: &wgpu::BindGroup,
) {
    let mut pass =
        encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(name), timestamp_writes: None });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind_group, &[]);
    pass.dispatch_workgroups(x, y, 1);
}

/// Encodes one dispatch of `pipeline` and submits it on its own.
pub fn submit_pass(gpu: &Gpu, pipeline: &wgpu::ComputePipeline, bind_group: &wgpu::BindGroup, dispatch: (u32, u32)) {
    let mut encoder = new_encoder(gpu);
    encode_pass(&mut encoder, "single pass", pipeline, dispatch, bind_group);
    gpu.queue.submit([encoder.finish()]);
}

/// Copies the partial sums into a new mappable buffer and submits `encoder`.
fn read_back_partials(gpu: &Gpu, mut encoder: wgpu::CommandEncoder, workspace: &Workspace, bytes: u64) -> wgpu::Buffer {
    let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("partials readback"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.copy_buffer_to_buffer(workspace.buffer(Buffer::Partials), 0, &staging, 0, bytes);
    gpu.queue.submit([encoder.finish()]);
    staging
}
