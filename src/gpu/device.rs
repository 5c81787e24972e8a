//! Adapter and device set-up, error capture and buffer readback.

use std::sync::{Arc, Mutex};

use super::device_profile::DeviceProfile;
use crate::step::Step;
use crate::MsmError;

/// What the pipeline needs of a device: the bindings, workgroups and buffer sizes of its steps;
/// every other limit at its lowest. [`Gpu::new`] asks for WebGPU's defaults, which cover it;
/// [`Gpu::from_device`] checks a caller's device against it.
pub(crate) fn required_limits() -> wgpu::Limits {
    let storage = Step::ALL.iter().map(|step| step.bindings().iter().filter(|(_, b, _)| !b.is_uniform()).count());
    let defaults = wgpu::Limits::default();
    wgpu::Limits {
        max_bind_groups: 1,
        max_storage_buffers_per_shader_stage: storage.max().unwrap_or(0) as u32,
        max_uniform_buffers_per_shader_stage: 1,
        // The prefix scan runs 256 threads and keeps 256 u32 in workgroup memory.
        max_compute_workgroup_size_x: 256,
        max_compute_invocations_per_workgroup: 256,
        max_compute_workgroup_storage_size: 1024,
        max_compute_workgroups_per_dimension: defaults.max_compute_workgroups_per_dimension,
        // A pass of 2^20 points fits WebGPU's default binding and buffer sizes.
        max_storage_buffer_binding_size: defaults.max_storage_buffer_binding_size,
        max_buffer_size: defaults.max_buffer_size,
        ..wgpu::Limits::downlevel_webgl2_defaults()
    }
}

/// The largest buffer and storage binding a context asks of an adapter that allows more than
/// WebGPU's default 128 MiB: 2 GiB holds a pass of 2^24 points on every G1 curve (its largest
/// buffer, the CSR entries, takes 18 windows × 4 bytes per point), and keeps every word index
/// of the shaders' u32 arithmetic below 2^29.
pub(crate) const MAX_BINDING_BYTES: u64 = 1 << 31;

/// The limits a context's own device is created with on an adapter that allows `adapter`:
/// WebGPU's defaults, with the largest buffer and binding the adapter allows up to
/// [`MAX_BINDING_BYTES`], so that a large GPU runs 2^22–2^24 points in one pass (one reduction
/// and one readback) where the defaults would cut them into up to 15 passes. A phone's browser,
/// which allows the defaults only, keeps them. A caller's own device
/// ([`Gpu::from_device`]) keeps the limits it was created with.
pub(crate) fn pass_limits(adapter: &wgpu::Limits) -> wgpu::Limits {
    let defaults = wgpu::Limits::default();
    let larger = |adapter: u64, default: u64| adapter.min(MAX_BINDING_BYTES).max(default);
    wgpu::Limits {
        max_storage_buffer_binding_size: larger(
            adapter.max_storage_buffer_binding_size,
            defaults.max_storage_buffer_binding_size,
        ),
        max_buffer_size: larger(adapter.max_buffer_size, defaults.max_buffer_size),
        ..defaults
    }
}

/// The optional features a device is created with where its adapter has them:
/// `SHADER_INT64` for the 32-bit-limb field form (native Vulkan, Metal and DX12 devices; never
/// browsers) and, natively, `TIMESTAMP_QUERY` for profiles (the JS API has none) and
/// `PIPELINE_CACHE` for compiled pipelines kept across processes (Vulkan).
#[cfg(not(target_arch = "wasm32"))]
const WANTED_FEATURES: wgpu::Features =
    wgpu::Features::SHADER_INT64.union(wgpu::Features::TIMESTAMP_QUERY).union(wgpu::Features::PIPELINE_CACHE);
#[cfg(target_arch = "wasm32")]
const WANTED_FEATURES: wgpu::Features = wgpu::Features::SHADER_INT64;

/// A WebGPU device with its queue, and what happened to it. Clones share the device (a
/// calibration thread holds one).
#[derive(Clone)]
pub(crate) struct Gpu {
    /// The logical device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The adapter the device came from.
    pub info: wgpu::AdapterInfo,
    /// The limits the device was created with.
    pub limits: wgpu::Limits,
    /// Whether the device was created with wgpu's `SHADER_INT64` (64-bit integers in WGSL).
    pub int64: bool,
    /// Whether the device has wgpu's `TIMESTAMP_QUERY`: profiled runs then time each step on
    /// the GPU, all steps in one submission (`run_stages`).
    pub timestamps: bool,
    /// Every rule that depends on the device, from what the adapter says of itself
    /// ([`DeviceProfile::for_adapter`]); tests may run another ([`crate::MsmContext`]'s
    /// `with_profile`).
    pub profile: DeviceProfile,
    /// The browser's "vendor / architecture / description" of the adapter (the JS API's
    /// `adapterInfo`).
    #[cfg(target_arch = "wasm32")]
    pub description: String,
    /// Set by the device-lost callback.
    lost: Arc<Mutex<Option<String>>>,
    /// MSM passes this context's calls started so far: a calibration that calls overlapped
    /// measured a busy device ([`Gpu::passes`]).
    passes: Arc<std::sync::atomic::AtomicU64>,
    /// Compiled pipelines kept across processes, where the device can
    /// ([`super::pipeline_cache`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) pipeline_cache: Option<Arc<super::pipeline_cache::PipelineCache>>,
}

impl Gpu {
    /// The default (high-performance) adapter and a device with WebGPU's default limits, so
    /// what runs here runs in browsers too, and with `SHADER_INT64` where the adapter has it
    /// (native Vulkan, Metal and DX12 devices; never browsers) for the 32-bit-limb field form.
    pub(crate) async fn new() -> Result<Self, MsmError> {
        #[cfg(target_arch = "wasm32")]
        let browser_description = super::browser::adapter_description().await?;
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .map_err(|e| MsmError::NoAdapter(e.to_string()))?;
        #[cfg(not(target_arch = "wasm32"))]
        return Self::on_adapter(&adapter).await;
        #[cfg(target_arch = "wasm32")]
        return Self::on_adapter(&adapter, browser_description).await;
    }

    /// A device on `adapter` with WebGPU's default limits but for the buffer and binding sizes,
    /// which are the adapter's up to [`MAX_BINDING_BYTES`] ([`pass_limits`]), and, where the
    /// adapter has them, [`WANTED_FEATURES`]; this crate's device-lost callback and
    /// uncaptured-error handler are set on it.
    pub(crate) async fn on_adapter(
        adapter: &wgpu::Adapter,
        #[cfg(target_arch = "wasm32")] browser_description: String,
    ) -> Result<Self, MsmError> {
        let limits = pass_limits(&adapter.limits());
        let features = adapter.features() & WANTED_FEATURES;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("webgpu-msm"),
                required_features: features,
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| MsmError::RequestDevice(e.to_string()))?;
        let lost = Arc::new(Mutex::new(None));
        let flag = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut lost) = flag.lock() {
                lost.get_or_insert_with(|| format!("{reason:?}: {message}"));
            }
        });
        // Errors are captured with error scopes around each call; anything that escapes them is
        // logged rather than panicking (wgpu's default handler panics).
        device.on_uncaptured_error(Arc::new(|e: wgpu::Error| log::error!("uncaptured wgpu error: {e}")));
        #[cfg(not(target_arch = "wasm32"))]
        let description = adapter.get_info().name;
        #[cfg(target_arch = "wasm32")]
        let description = browser_description;
        Ok(Gpu::assemble(device, queue, limits, description, lost))
    }

    /// A `Gpu` of `device`, whose adapter describes itself as `description` (what chooses its
    /// [`DeviceProfile`]).
    fn assemble(
        device: wgpu::Device,
        queue: wgpu::Queue,
        limits: wgpu::Limits,
        description: String,
        lost: Arc<Mutex<Option<String>>>,
    ) -> Gpu {
        let info = device.adapter_info();
        let int64 = device.features().contains(wgpu::Features::SHADER_INT64);
        let timestamps = device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let profile = DeviceProfile::for_adapter(info.device_type, &description, int64);
        #[cfg(not(target_arch = "wasm32"))]
        let pipeline_cache = super::pipeline_cache::PipelineCache::open(&device, &info).map(Arc::new);
        Gpu {
            device,
            queue,
            info,
            limits,
            int64,
            timestamps,
            profile,
            #[cfg(target_arch = "wasm32")]
            description,
            lost,
            passes: Arc::default(),
            #[cfg(not(target_arch = "wasm32"))]
            pipeline_cache,
        }
    }

    /// MSM passes the calls of this `Gpu`'s context (and its clones) started so far.
    pub(crate) fn passes(&self) -> u64 {
        self.passes.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Counts one MSM pass ([`Gpu::passes`]).
    pub(crate) fn count_pass(&self) {
        self.passes.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// The caller's device and queue, checked against [`required_limits`]: an
    /// [`MsmError::UnsuitableDevice`] names the first limit that falls short. Nothing is set on
    /// the device: its uncaptured-error handler and device-lost callback stay the caller's (the
    /// context's own errors are caught with error scopes, pushed and popped around its work), so
    /// a loss shows as the errors ([`MsmError::Gpu`]) of the calls it breaks.
    pub(crate) fn from_device(device: wgpu::Device, queue: wgpu::Queue) -> Result<Self, MsmError> {
        let limits = device.limits();
        let mut short = None;
        required_limits().check_limits_with_fail_fn(&limits, true, |name, needed, has| {
            short = Some(MsmError::UnsuitableDevice(format!("{name} is {has}, the pipeline needs {needed}")));
        });
        if let Some(e) = short {
            return Err(e);
        }
        let description = device.adapter_info().name;
        Ok(Gpu::assemble(device, queue, limits, description, Arc::new(Mutex::new(None))))
    }

    /// `Err(DeviceLost)` once the device has been lost.
    pub(crate) fn check_alive(&self) -> Result<(), MsmError> {
        match self.lost.lock().map(|l| l.clone()) {
            Ok(None) => Ok(()),
            Ok(Some(reason)) => Err(MsmError::DeviceLost(reason)),
            Err(_) => Err(MsmError::DeviceLost("device-lost flag poisoned".into())),
        }
    }

    /// Destroys the device, as a driver reset or a removed GPU would lose it, and records the loss
    /// first. wgpu reports a destroyed device late (natively at the next poll with an empty queue,
    /// in the browser when `device.lost` resolves) and meanwhile drops the "device lost" errors
    /// of every call, so those calls fail with validation errors about invalid objects. With the
    /// flag set before `destroy`, every error the destruction causes is reported as `DeviceLost`.
    #[cfg(any(test, feature = "test-hooks", feature = "demo"))]
    pub(crate) fn destroy(&self, why: &str) {
        if let Ok(mut lost) = self.lost.lock() {
            lost.get_or_insert_with(|| format!("Destroyed: {why}"));
        }
        self.device.destroy();
    }

    /// Runs `work` inside validation and out-of-memory error scopes and reports what they caught.
    /// The scopes are pushed and popped on this thread before any await, as wgpu requires.
    pub(crate) async fn capture<T>(&self, work: impl FnOnce() -> T) -> Result<T, MsmError> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = work();
        let validation = validation.pop();
        let oom = oom.pop();
        if let Some(e) = validation.await {
            return Err(self.gpu_error(e));
        }
        if let Some(e) = oom.await {
            return Err(self.gpu_error(e));
        }
        Ok(value)
    }

    /// [`Gpu::capture`] on a thread of its own (natively, where the scopes' futures are ready
    /// once popped): error scopes belong to the thread that pushes them.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn capture_blocking<T>(&self, work: impl FnOnce() -> T) -> Result<T, MsmError> {
        pollster::block_on(self.capture(work))
    }

    /// `work` on each of `jobs` inside error scopes ([`Gpu::capture`]), the results in the jobs'
    /// order: the compilation of pipelines. Natively on as many threads as the machine has cores
    /// (at most one per job), each taking the next job when it finishes one, for drivers that
    /// compile a pipeline when it is created (so give the longest jobs first); in browsers one
    /// after the other.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) async fn capture_each<J: Sync, T: Send>(
        &self,
        jobs: &[J],
        work: impl Fn(&J) -> T + Sync,
    ) -> Result<Vec<T>, MsmError> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(jobs.len());
        let next = AtomicUsize::new(0);
        let done: Vec<Mutex<Option<Result<T, MsmError>>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(index) else { break };
                        let result = self.capture_blocking(|| work(job));
                        if let Ok(mut slot) = done[index].lock() {
                            *slot = Some(result);
                        }
                    })
                })
                .collect();
            // A worker that panicked leaves its job's slot empty: reported below.
            workers.into_iter().for_each(|worker| drop(worker.join()));
        });
        done.into_iter()
            .map(|slot| {
                slot.into_inner()
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| Err(MsmError::Gpu("pipeline compilation panicked".into())))
            })
            .collect()
    }

    /// `work` on each of `jobs` inside error scopes, one after the other (see the native
    /// version).
    #[cfg(target_arch = "wasm32")]
    pub(crate) async fn capture_each<J, T>(&self, jobs: &[J], work: impl Fn(&J) -> T) -> Result<Vec<T>, MsmError> {
        self.capture(|| jobs.iter().map(work).collect()).await
    }

    fn gpu_error(&self, e: wgpu::Error) -> MsmError {
        self.error(e.to_string())
    }

    /// `DeviceLost` if the device is lost (the likely cause of any failure then), else `Gpu`.
    pub(crate) fn error(&self, message: String) -> MsmError {
        self.check_alive().err().unwrap_or(MsmError::Gpu(message))
    }

    /// Copies `size` bytes of `source` (a COPY_SRC buffer) back to the host as `u32` words.
    pub(crate) async fn read_words(&self, source: &wgpu::Buffer, size: u64) -> Result<Vec<u32>, MsmError> {
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(source, 0, &staging, 0, size);
        let submission = self.queue.submit([encoder.finish()]);
        self.map_and_read(&staging, submission).await
    }

    /// Waits until the GPU has finished everything submitted so far.
    pub(crate) async fn finish_queue(&self) -> Result<(), MsmError> {
        let (sender, receiver) = futures_intrusive::channel::shared::oneshot_channel();
        self.queue.on_submitted_work_done(move || {
            let _ = sender.send(());
        });
        // Natively the device must be polled to make progress; on the web this is a no-op.
        if let Err(e) = self.device.poll(wgpu::PollType::Wait { submission_index: None, timeout: None }) {
            self.check_alive()?;
            return Err(MsmError::Gpu(e.to_string()));
        }
        match receiver.receive().await {
            Some(()) => self.check_alive(),
            None => Err(MsmError::Gpu("queue completion callback was dropped".into())),
        }
    }

    /// Waits until the GPU has finished `submission` and what came before it (natively; on the
    /// web, where no such wait exists, everything submitted so far), not the submissions of
    /// other calls made since.
    pub(crate) async fn finish(&self, submission: wgpu::SubmissionIndex) -> Result<(), MsmError> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.wait(submission)?;
            self.check_alive()
        }
        #[cfg(target_arch = "wasm32")]
        {
            let _ = submission;
            self.finish_queue().await
        }
    }

    /// Natively: blocks until `submission` is done and runs the callbacks it made ready (map
    /// callbacks included). On the web a no-op: the browser runs callbacks itself.
    fn wait(&self, submission: wgpu::SubmissionIndex) -> Result<(), MsmError> {
        let wait = wgpu::PollType::Wait { submission_index: Some(submission), timeout: None };
        self.device.poll(wait).map(drop).map_err(|e| self.error(e.to_string()))
    }

    /// Natively: maps a MAP_WRITE buffer for writing once `after` (the last submission that
    /// read it) is done, waiting for that submission only (for every submission when `after`
    /// is unknown).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) async fn map_for_write(
        &self,
        buffer: &wgpu::Buffer,
        after: Option<wgpu::SubmissionIndex>,
    ) -> Result<(), MsmError> {
        let (sender, receiver) = futures_intrusive::channel::shared::oneshot_channel();
        buffer.slice(..).map_async(wgpu::MapMode::Write, move |result| {
            let _ = sender.send(result);
        });
        let wait = wgpu::PollType::Wait { submission_index: after, timeout: None };
        self.device.poll(wait).map_err(|e| self.error(e.to_string()))?;
        match receiver.receive().await {
            Some(Ok(())) => Ok(()),
            Some(Err(e)) => Err(self.error(e.to_string())),
            None => Err(self.error("buffer mapping was dropped".into())),
        }
    }

    /// Maps a MAP_READ buffer that `submission` (a submission of this call) writes, waits for
    /// that submission only, and returns the buffer's contents.
    pub(crate) async fn map_and_read(
        &self,
        staging: &wgpu::Buffer,
        submission: wgpu::SubmissionIndex,
    ) -> Result<Vec<u32>, MsmError> {
        let (sender, receiver) = futures_intrusive::channel::shared::oneshot_channel();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |result| {
            let _ = sender.send(result);
        });
        self.wait(submission)?;
        match receiver.receive().await {
            Some(Ok(())) => {}
            Some(Err(e)) => return Err(self.error(e.to_string())),
            None => return Err(self.error("buffer mapping was dropped".into())),
        }
        let words = {
            // A device lost after the mapping completed destroys the buffer.
            let view = staging.slice(..).get_mapped_range().map_err(|e| self.error(e.to_string()))?;
            bytemuck::cast_slice(&view).to_vec()
        };
        staging.unmap();
        Ok(words)
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::{pass_limits, Gpu, MAX_BINDING_BYTES};
    use crate::MsmError;

    /// A context's device takes the adapter's larger buffers and bindings, up to 2 GiB, and
    /// WebGPU's defaults for every other limit; an adapter that allows only the defaults (a
    /// phone's browser) keeps them.
    #[test]
    fn devices_ask_for_the_adapters_large_bindings_and_defaults_for_the_rest() {
        let defaults = wgpu::Limits::default();
        assert_eq!(pass_limits(&defaults), defaults);
        let big = wgpu::Limits {
            max_storage_buffer_binding_size: 4 << 30,
            max_buffer_size: 1 << 40,
            max_compute_workgroup_size_x: 1024,
            ..defaults.clone()
        };
        let asked = pass_limits(&big);
        assert_eq!(
            (asked.max_storage_buffer_binding_size, asked.max_buffer_size),
            (MAX_BINDING_BYTES, MAX_BINDING_BYTES)
        );
        assert_eq!(asked.max_compute_workgroup_size_x, defaults.max_compute_workgroup_size_x);
        let middle = wgpu::Limits { max_storage_buffer_binding_size: 1 << 30, ..defaults.clone() };
        assert_eq!(pass_limits(&middle).max_storage_buffer_binding_size, 1 << 30);
        // And a device on the adapter here gets them.
        if crate::testing::shared_context().is_some() {
            let gpu = pollster::block_on(Gpu::new()).expect("adapter");
            assert!(gpu.limits.max_storage_buffer_binding_size >= defaults.max_storage_buffer_binding_size);
            assert!(gpu.limits.max_storage_buffer_binding_size <= MAX_BINDING_BYTES);
        }
    }

    /// A loss that wgpu reports itself (here a `destroy` behind the flag's back, reported at the
    /// next poll) reaches the flag through the device-lost callback, and a readback that was
    /// pending on the lost device returns `DeviceLost`, not a mapping error.
    #[test]
    fn a_loss_reported_by_wgpu_fails_a_pending_readback_with_device_lost() {
        if crate::testing::shared_context().is_none() {
            return; // no adapter (a failure when CI=true)
        }
        let gpu = pollster::block_on(Gpu::new()).expect("adapter");
        let buffer = |usage| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 16,
                usage,
                mapped_at_creation: false,
            })
        };
        let source = buffer(wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST);
        let staging = buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
        gpu.queue.write_buffer(&source, 0, &[7; 16]);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&source, 0, &staging, 0, 16);
        let submission = gpu.queue.submit([encoder.finish()]);
        assert_eq!(pollster::block_on(gpu.map_and_read(&staging, submission)), Ok(vec![0x0707_0707; 4]));

        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&source, 0, &staging, 0, 16);
        let submission = gpu.queue.submit([encoder.finish()]);
        gpu.device.destroy();
        assert_eq!(gpu.check_alive(), Ok(()), "wgpu has not reported the loss yet");
        match pollster::block_on(gpu.map_and_read(&staging, submission)) {
            Err(MsmError::DeviceLost(reason)) => assert!(reason.starts_with("Destroyed"), "{reason}"),
            other => panic!("expected DeviceLost, got {other:?}"),
        }
    }

    /// [`Gpu::destroy`] records the loss before wgpu reports it, so the very next check fails.
    #[test]
    fn destroy_is_reported_at_once() {
        if crate::testing::shared_context().is_none() {
            return;
        }
        let gpu = pollster::block_on(Gpu::new()).expect("adapter");
        gpu.destroy("test");
        assert_eq!(gpu.check_alive(), Err(MsmError::DeviceLost("Destroyed: test".into())));
    }
}
