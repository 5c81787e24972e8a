//! Encodes and runs one MSM through the four GPU stages.

use crate::clock::now_seconds;
use crate::curve::GpuCurve;
use crate::plan::Plan;
use crate::step::{Buffer, Step};
#[cfg(target_arch = "wasm32")]
use crate::upload::write_upload;
use crate::upload::{Faults, Points, Upload, FAULTS_BYTES};
use crate::MsmError;

use super::device::Gpu;
use super::pipelines::CurvePipelines;
use super::resident::PreparedPass;
use super::workspace::{Workspace, WINDOW_SUMS_REGION};

/// What one GPU run reads back.
pub(crate) struct RunOutput {
    /// Packed words of each window's sum (`plan.all_windows()` points).
    pub window_sums: Vec<u32>,
    /// The bad input points `convert_points` found (none for prepared bases, checked when they
    /// were prepared). Check them before using `window_sums`.
    pub faults: Faults,
    /// In profiling runs: how long each part took.
    pub timings: Option<Timings>,
}

/// Seconds of the parts of a profiled run. The upload and the readback are each submitted and
/// waited for on their own; the steps are timed on the GPU, all in one submission, where the
/// device has timestamp queries ([`Gpu::timestamps`]), else each submitted and waited for on
/// its own (which leaves the GPU idle between steps: a real GPU's clocks may drop there).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Timings {
    /// Writing the inputs and clearing the bucket counts.
    pub upload: f64,
    /// Each step the run executed, in order.
    pub steps: Vec<(Step, f64)>,
    /// Copying the window sums back to the host.
    pub readback: f64,
    /// Whether the steps were timed on the GPU in one submission.
    pub steps_on_gpu: bool,
}

/// Where a run's points come from.
#[derive(Clone, Copy)]
pub(crate) enum PointSource<'a> {
    /// Uploaded affine coordinates (of the form `plan.inputs` names), checked and converted by
    /// `convert_points` in this run.
    Upload {
        /// The points' bytes, as [`crate::upload::Points::raw_halves`] cuts them.
        points: [&'a dyn Upload; 2],
        /// Index of the first of them in the caller's input (for the errors that name a point).
        first: usize,
    },
    /// Points already converted on the GPU (prepared bases).
    Prepared(&'a PreparedPass),
}

impl<'a> PointSource<'a> {
    /// Points uploaded for this run, cut as the two raw point buffers take them
    /// ([`Points::raw_halves`]), the first of them at index `first` of the caller's input.
    pub(crate) fn upload<G: GpuCurve>(halves: &'a [Points<'_, G>; 2], first: usize) -> Self {
        PointSource::Upload { points: [&halves[0], &halves[1]], first }
    }
}

/// Uploads the inputs, runs every pipeline and reads back the window sums (points of
/// `point_bytes` bytes). The workspace keeps
/// every intermediate buffer. With `profile`, each part is timed ([`Timings`]; slower overall:
/// use it to see where the time goes, not for the fastest run).
#[allow(clippy::too_many_arguments, reason = "the inputs of one GPU run, each used once")]
pub(crate) async fn run_stages(
    gpu: &Gpu,
    pipelines: &CurvePipelines,
    workspace: &Workspace,
    plan: &Plan,
    source: PointSource<'_>,
    scalars: &dyn Upload,
    point_bytes: u64,
    profile: bool,
) -> Result<RunOutput, MsmError> {
    let window_sums = WindowSums::of(plan, point_bytes);
    #[cfg(not(target_arch = "wasm32"))]
    workspace.staging.ready(gpu).await?;
    let steps = match source {
        PointSource::Upload { .. } => workspace.run_steps(&gpu.device, pipelines, None),
        // Creates bind groups, which can fail.
        PointSource::Prepared(pass) => gpu.capture(|| workspace.run_steps(&gpu.device, pipelines, Some(pass))).await?,
    };
    if !profile {
        let (staging, submission) = gpu
            .capture(|| {
                let mut encoder = upload(gpu, workspace, plan, source, scalars)?;
                for (step, bind_group) in &steps {
                    encode_step(&mut encoder, pipelines, *step, plan, bind_group, None);
                }
                Ok(read_back(gpu, encoder, workspace, window_sums))
            })
            .await??;
        let (window_sums, faults) = split_faults(gpu.map_and_read(&staging, submission).await?);
        return Ok(RunOutput { window_sums, faults, timings: None });
    }

    let mut clock = now_seconds();
    let mut lap = || {
        let now = now_seconds();
        let seconds = now - clock;
        clock = now;
        seconds
    };
    let encoder = gpu.capture(|| upload(gpu, workspace, plan, source, scalars)).await??;
    let submission = gpu.queue.submit([encoder.finish()]);
    #[cfg(not(target_arch = "wasm32"))]
    workspace.staging.copied_by(&submission);
    gpu.finish(submission).await?;
    let upload_seconds = lap();
    let step_seconds = if gpu.timestamps {
        let seconds = steps_timed_on_gpu(gpu, pipelines, plan, &steps).await?;
        lap();
        seconds
    } else {
        let mut seconds = Vec::new();
        for (step, bind_group) in &steps {
            let submission = gpu
                .capture(|| {
                    let mut encoder = new_encoder(gpu);
                    encode_step(&mut encoder, pipelines, *step, plan, bind_group, None);
                    gpu.queue.submit([encoder.finish()])
                })
                .await?;
            gpu.finish(submission).await?;
            seconds.push((*step, lap()));
        }
        seconds
    };
    let (staging, submission) = gpu.capture(|| read_back(gpu, new_encoder(gpu), workspace, window_sums)).await?;
    let (window_sums, faults) = split_faults(gpu.map_and_read(&staging, submission).await?);
    let timings =
        Timings { upload: upload_seconds, steps: step_seconds, readback: lap(), steps_on_gpu: gpu.timestamps };
    Ok(RunOutput { window_sums, faults, timings: Some(timings) })
}

/// Runs `steps` in one submission, each pass between two GPU timestamps; each step's seconds
/// on the GPU.
async fn steps_timed_on_gpu(
    gpu: &Gpu,
    pipelines: &CurvePipelines,
    plan: &Plan,
    steps: &[(Step, wgpu::BindGroup)],
) -> Result<Vec<(Step, f64)>, MsmError> {
    let count = 2 * steps.len() as u32;
    let bytes = 8 * count as u64;
    let (read, submission) = gpu
        .capture(|| {
            let queries = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("step timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count,
            });
            let buffer = |usage| {
                gpu.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("step timestamps"),
                    size: bytes,
                    usage,
                    mapped_at_creation: false,
                })
            };
            let resolved = buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC);
            let read = buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
            let mut encoder = new_encoder(gpu);
            for (i, (step, bind_group)) in steps.iter().enumerate() {
                let writes = wgpu::ComputePassTimestampWrites {
                    query_set: &queries,
                    beginning_of_pass_write_index: Some(2 * i as u32),
                    end_of_pass_write_index: Some(2 * i as u32 + 1),
                };
                encode_step(&mut encoder, pipelines, *step, plan, bind_group, Some(writes));
            }
            encoder.resolve_query_set(&queries, 0..count, &resolved, 0);
            encoder.copy_buffer_to_buffer(&resolved, 0, &read, 0, bytes);
            (read, gpu.queue.submit([encoder.finish()]))
        })
        .await?;
    let words = gpu.map_and_read(&read, submission).await?;
    let ticks: Vec<u64> = words.chunks(2).map(|w| u64::from(w[0]) | u64::from(w[1]) << 32).collect();
    let seconds_per_tick = f64::from(gpu.queue.get_timestamp_period()) * 1e-9;
    Ok(steps
        .iter()
        .zip(ticks.chunks(2))
        .map(|((step, _), pass)| (*step, pass[1].saturating_sub(pass[0]) as f64 * seconds_per_tick))
        .collect())
}

fn new_encoder(gpu: &Gpu) -> wgpu::CommandEncoder {
    gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("msm") })
}

/// The window sums' words and the faults behind them (see [`read_back`]).
fn split_faults(mut words: Vec<u32>) -> (Vec<u32>, Faults) {
    let faults = Faults::from_words(&words[words.len() - FAULTS_BYTES as usize / 4..]);
    words.truncate(words.len() - FAULTS_BYTES as usize / 4);
    (words, faults)
}

/// Queues the uploads (copies, see [`crate::upload`]) and returns an encoder that starts by
/// clearing the bucket counts and the faults (natively after copying the inputs out of the
/// workspace's staging buffer, which must be ready, and whose submission the caller records).
fn upload(
    gpu: &Gpu,
    workspace: &Workspace,
    plan: &Plan,
    source: PointSource,
    scalars: &dyn Upload,
) -> Result<wgpu::CommandEncoder, MsmError> {
    gpu.queue.write_buffer(workspace.buffer(Buffer::Plan), 0, bytemuck::bytes_of(plan));
    let mut encoder = new_encoder(gpu);
    let mut inputs: Vec<(&dyn Upload, &wgpu::Buffer)> = Vec::new();
    if let PointSource::Upload { points: [low, high], .. } = source {
        inputs.push((low, workspace.buffer(Buffer::RawPoints)));
        inputs.push((high, workspace.buffer(Buffer::RawPointsHigh)));
    }
    inputs.push((scalars, workspace.buffer(Buffer::RawScalars)));
    #[cfg(not(target_arch = "wasm32"))]
    workspace.staging.write(gpu, &mut encoder, &inputs)?;
    #[cfg(target_arch = "wasm32")]
    for (data, buffer) in inputs {
        write_upload(&gpu.queue, buffer, data);
    }
    let counts_bytes = plan.total_buckets() as u64 * 4;
    encoder.clear_buffer(workspace.buffer(Buffer::BucketCounts), 0, Some(counts_bytes));
    encoder.clear_buffer(workspace.buffer(Buffer::Faults), 0, None);
    Ok(encoder)
}

/// One compute pass of `step`: its dispatch, [`Step::repeats`] times (each dispatch sees the
/// previous one's writes).
fn encode_step(
    encoder: &mut wgpu::CommandEncoder,
    pipelines: &CurvePipelines,
    step: Step,
    plan: &Plan,
    bind_group: &wgpu::BindGroup,
    timestamp_writes: Option<wgpu::ComputePassTimestampWrites>,
) {
    let dispatch = step.dispatch(plan);
    encode_pass(encoder, step.name(), pipelines.get(step), dispatch, step.repeats(plan), bind_group, timestamp_writes);
}

fn encode_pass(
    encoder: &mut wgpu::CommandEncoder,
    name: &str,
    pipeline: &wgpu::ComputePipeline,
    (x, y): (u32, u32),
    repeats: u32,
    bind_group: &wgpu::BindGroup,
    timestamp_writes: Option<wgpu::ComputePassTimestampWrites>,
) {
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(name), timestamp_writes });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind_group, &[]);
    for _ in 0..repeats {
        pass.dispatch_workgroups(x, y, 1);
    }
}

/// Encodes one dispatch of `pipeline` and submits it on its own.
pub(crate) fn submit_pass(
    gpu: &Gpu,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    dispatch: (u32, u32),
) {
    let mut encoder = new_encoder(gpu);
    encode_pass(&mut encoder, "single pass", pipeline, dispatch, 1, bind_group, None);
    gpu.queue.submit([encoder.finish()]);
}

/// Where the window sums lie in [`Buffer::Partials`].
#[derive(Clone, Copy)]
struct WindowSums {
    offset: u64,
    bytes: u64,
}

impl WindowSums {
    fn of(plan: &Plan, point_bytes: u64) -> Self {
        WindowSums {
            offset: WINDOW_SUMS_REGION * plan.total_segments() as u64 * point_bytes,
            bytes: plan.all_windows() as u64 * point_bytes,
        }
    }
}

/// Copies the window sums, then the faults, into a new mappable buffer and submits `encoder`;
/// returns the buffer and the submission that fills it.
fn read_back(
    gpu: &Gpu,
    mut encoder: wgpu::CommandEncoder,
    workspace: &Workspace,
    sums: WindowSums,
) -> (wgpu::Buffer, wgpu::SubmissionIndex) {
    let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("window sums readback"),
        size: sums.bytes + FAULTS_BYTES,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.copy_buffer_to_buffer(workspace.buffer(Buffer::Partials), sums.offset, &staging, 0, sums.bytes);
    encoder.copy_buffer_to_buffer(workspace.buffer(Buffer::Faults), 0, &staging, sums.bytes, FAULTS_BYTES);
    let submission = gpu.queue.submit([encoder.finish()]);
    #[cfg(not(target_arch = "wasm32"))]
    workspace.staging.copied_by(&submission);
    (staging, submission)
}
