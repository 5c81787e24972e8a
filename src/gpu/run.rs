//! Encodes and runs one MSM through the four GPU stages.

use crate::plan::Plan;
use crate::MsmError;

use super::device::Gpu;
use super::pipelines::CurvePipelines;
use super::workspace::{Buffer, Workspace};

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

/// Bytes of the bucket-overflow word as read back (the minimum buffer size).
const OVERFLOW_BYTES: u64 = 16;

/// What one GPU run reads back.
pub struct RunOutput {
    /// Packed words of the per-segment partial sums (`plan.total_segments()` points).
    pub partials: Vec<u32>,
    /// The largest bucket over `plan.max_bucket_entries`, or 0: then `partials` are not valid.
    pub overflow: u32,
}

/// Uploads the inputs, runs stages 1–4 and reads back the partial sums and the overflow word.
/// The workspace keeps every intermediate buffer.
pub async fn run_stages(
    gpu: &Gpu,
    pipelines: &CurvePipelines,
    workspace: &Workspace,
    plan: &Plan,
    raw_points: &[u32],
    raw_scalars: &[u32],
    partials_bytes: u64,
) -> Result<RunOutput, MsmError> {
    let staging = gpu
        .capture(|| {
            let queue = &gpu.queue;
            queue.write_buffer(workspace.buffer(Buffer::Params), 0, bytemuck::bytes_of(plan));
            queue.write_buffer(workspace.buffer(Buffer::RawPoints), 0, bytemuck::cast_slice(raw_points));
            queue.write_buffer(workspace.buffer(Buffer::RawScalars), 0, bytemuck::cast_slice(raw_scalars));
            let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("msm") });
            let counts_bytes = plan.total_buckets() as u64 * 4;
            encoder.clear_buffer(workspace.buffer(Buffer::BucketCounts), 0, Some(counts_bytes));
            encoder.clear_buffer(workspace.buffer(Buffer::BucketOverflow), 0, None);
            let stages: [(&wgpu::ComputePipeline, (u32, u32)); 5] = [
                (&pipelines.convert_and_decompose, dispatch_size(plan.n)),
                (&pipelines.scan_bucket_counts, (plan.num_windows, 1)),
                (&pipelines.scatter_entries, dispatch_size(plan.n)),
                (&pipelines.smvp, dispatch_size(plan.total_buckets())),
                (&pipelines.bucket_reduce, dispatch_size(plan.total_segments())),
            ];
            for ((pipeline, (x, y)), bind_group) in stages.into_iter().zip(&workspace.bind_groups) {
                let mut pass =
                    encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, bind_group, &[]);
                pass.dispatch_workgroups(x, y, 1);
            }
            let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("partials readback"),
                size: partials_bytes + OVERFLOW_BYTES,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            encoder.copy_buffer_to_buffer(workspace.buffer(Buffer::Partials), 0, &staging, 0, partials_bytes);
            let overflow = workspace.buffer(Buffer::BucketOverflow);
            encoder.copy_buffer_to_buffer(overflow, 0, &staging, partials_bytes, OVERFLOW_BYTES);
            gpu.queue.submit([encoder.finish()]);
            staging
        })
        .await?;
    let mut words = gpu.map_and_read(&staging).await?;
    let overflow = words[(partials_bytes / 4) as usize];
    words.truncate((partials_bytes / 4) as usize);
    Ok(RunOutput { partials: words, overflow })
}
