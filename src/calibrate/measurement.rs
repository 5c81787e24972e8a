//! Measurements that run beside the calls (natively): a curve's first call starts on the rule's
//! kernels, and once its first pass is done a thread of its own measures the candidates (see the
//! parent module), so that the measurement neither delays nor competes with that pass.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use super::{measure, Calibration, Candidates};
use crate::curve::GpuCurve;
use crate::gpu::device::Gpu;
use crate::MsmError;

/// What a measurement's thread runs.
type Job = Box<dyn FnOnce() -> Result<Calibration, MsmError> + Send>;

/// One curve's measurement on one adapter: waiting to begin, running or finished.
pub(crate) struct Measurement {
    /// Until it begins.
    job: Mutex<Option<Job>>,
    result: Mutex<Option<Result<Calibration, MsmError>>>,
    finished: Condvar,
}

impl Measurement {
    /// A measurement that runs `job` when it begins (`None`: one finished, or never begun).
    fn new(job: Option<Job>) -> Self {
        Measurement { job: Mutex::new(job), result: Mutex::new(None), finished: Condvar::new() }
    }

    /// Starts it on a thread of its own, unless it has started.
    pub(crate) fn begin(self: &Arc<Self>) {
        let Some(job) = self.job.lock().ok().and_then(|mut job| job.take()) else { return };
        let measurement = self.clone();
        let thread = std::thread::Builder::new().name("webgpu-msm calibration".into()).spawn(move || {
            let result = job();
            measurement.finish(result);
        });
        if let Err(e) = thread {
            self.finish(Err(MsmError::Gpu(format!("no thread for calibration: {e}"))));
        }
    }

    /// Its result once finished; `None` until then.
    pub(crate) fn finished(&self) -> Option<Result<Calibration, MsmError>> {
        self.result.lock().ok().and_then(|result| result.clone())
    }

    /// Its result, beginning it if needed and waiting for it.
    pub(crate) fn wait(self: &Arc<Self>) -> Result<Calibration, MsmError> {
        self.begin();
        let poisoned = || MsmError::Gpu("a calibration thread panicked".into());
        let mut result = self.result.lock().map_err(|_| poisoned())?;
        while result.is_none() {
            result = self.finished.wait(result).map_err(|_| poisoned())?;
        }
        result.clone().ok_or_else(poisoned)?
    }

    /// A measurement that has already finished with `result` (the test of what a context does
    /// with one, which runs on bn254).
    #[cfg(all(test, feature = "bn254"))]
    pub(crate) fn finished_with(result: Result<Calibration, MsmError>) -> Arc<Self> {
        let measurement = Measurement::new(None);
        measurement.finish(result);
        Arc::new(measurement)
    }

    fn finish(&self, result: Result<Calibration, MsmError>) {
        if let Ok(mut slot) = self.result.lock() {
            *slot = Some(result);
        }
        self.finished.notify_all();
    }
}

/// The measurements of this process not finished yet, by calibration key: contexts on the same
/// adapter share one.
fn registry() -> &'static Mutex<HashMap<String, Arc<Measurement>>> {
    static REGISTRY: OnceLock<Mutex<HashMap<String, Arc<Measurement>>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

/// The measurement of `candidates` of curve `G` under `key`, not begun yet, or the one of `key`
/// already registered. Its result is also kept in the process's calibrations under `key`
/// before it leaves the registry, so a context starting later finds one or the other.
pub(super) fn register<G: GpuCurve>(gpu: &Gpu, candidates: Candidates, key: String, budget: f64) -> Arc<Measurement> {
    let gpu = gpu.clone();
    let registered = key.clone();
    let job: Job = Box::new(move || {
        let result = pollster::block_on(measure::<G>(&gpu, &candidates, &key, budget));
        if let Ok(mut registry) = registry().lock() {
            registry.remove(&key);
        }
        result
    });
    let measurement = Arc::new(Measurement::new(Some(job)));
    match registry().lock() {
        Ok(mut registry) => registry.entry(registered).or_insert(measurement).clone(),
        Err(_) => measurement,
    }
}
