//! Profiling: where one MSM spends its time. The device's field-multiplication rate (a
//! microbenchmark of the generated `field_mul`), the seconds of every GPU step (each submitted and
//! waited for on its own), and each step's efficiency under the cost model of [`crate::cost`]:
//! (counted multiplications ÷ measured rate) ÷ measured time.

use crate::calibrate::Microbenchmark;
use crate::clock::now_seconds;
use crate::combine::{combine_windows, sum_without_image};
use crate::cost::step_field_muls;
use crate::cpu_model::decompose;
use crate::curve::registry::with_curve;
use crate::curve::{CurveId, GpuCurve};
use crate::gpu::device_profile::Bench;
use crate::gpu::run::{PointSource, Timings};
use crate::plan::Plan;
use crate::point_model::RunningCurve;
use crate::step::Step;
use crate::upload::{Points, Scalars};
use crate::{MsmContext, MsmError};

/// One timed step of a profiled run.
#[derive(Clone, Debug, PartialEq)]
pub struct StepProfile {
    /// The step's name (its shader entry point), or "upload" / "readback".
    pub name: &'static str,
    /// Wall time from the previous step's end to this one's, GPU work included.
    pub seconds: f64,
    /// Field multiplications the cost model counts for the step.
    pub field_muls: u64,
}

impl StepProfile {
    /// (field_muls ÷ rate) ÷ seconds: the share of the device's multiplication throughput the
    /// step achieves. `None` for steps without multiplications.
    pub fn efficiency(&self, field_muls_per_second: f64) -> Option<f64> {
        (self.field_muls > 0 && self.seconds > 0.0)
            .then(|| self.field_muls as f64 / field_muls_per_second / self.seconds)
    }
}

/// Where a profiled MSM ([`MsmConfig::profile`](crate::MsmConfig::profile)) spent its time:
/// its plan and its steps.
#[derive(Clone, Debug)]
pub struct Profile {
    /// Window width and thread counts used.
    pub plan: Plan,
    /// Upload, each GPU pipeline in order, and readback.
    pub steps: Vec<StepProfile>,
    /// Host time after the readback (decoding, window sums, Horner).
    pub host_seconds: f64,
    /// Whether the GPU steps were timed on the GPU (timestamp queries), all in one submission;
    /// else each was submitted and waited for on its own, its time measured on the host.
    pub steps_on_gpu: bool,
}

/// Throughput of the device on the generated code of one curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeviceRates {
    /// Montgomery multiplications of the base field per second.
    pub field_muls_per_second: f64,
    /// Mixed additions (a stored input point into a bucket) per second.
    pub add_stored_per_second: f64,
    /// Base-field multiplications of one of those mixed additions, by the cost model, in the
    /// point model and stored form the context runs: 11 on the short Weierstrass curves (G1),
    /// 7 or 8 on BLS12-377's Edwards model (affine or extended stored points). So
    /// `add_stored_per_second · add_stored_muls / field_muls_per_second` is the share of the
    /// multiplication rate that the additions reach.
    pub add_stored_muls: u64,
    /// Threads of the runs that measured the two rates, in that order: as many as raised the
    /// rate (a large GPU fills only with tens of thousands).
    pub threads: [u32; 2],
}

impl MsmContext {
    /// Measures `curve`'s [`DeviceRates`] on this device, in the field form calibration chose
    /// for it: chains of 256 dependent `field_mul` (of 32 mixed additions) per thread, over as
    /// many threads as calibration's microbenchmarks run (on hardware GPUs, until more threads
    /// no longer raise the rate).
    pub async fn device_rates(&self, curve: CurveId) -> Result<DeviceRates, MsmError> {
        with_curve!(curve, G => self.device_rates_of::<G>().await)
    }

    async fn device_rates_of<G: GpuCurve>(&self) -> Result<DeviceRates, MsmError> {
        let runner = self.runner::<G>().await?;
        let (gpu, curve, form) = (self.gpu(), runner.curve, runner.kernels().form);
        let (field_muls_per_second, mul_threads) =
            Microbenchmark::new(gpu, curve, form, Bench::FieldMul).await?.rate().await?;
        let (add_stored_per_second, add_threads) =
            Microbenchmark::new(gpu, curve, form, Bench::AddStored).await?.rate().await?;
        Ok(DeviceRates {
            field_muls_per_second,
            add_stored_per_second,
            add_stored_muls: curve.op_muls().add_stored,
            threads: [mul_threads, add_threads],
        })
    }

    /// The MSM of points and one scalar set with every GPU step submitted and timed on its own,
    /// and the cost model's multiplication count of each step (slower than a plain call: for
    /// finding where time goes). One pass only: `InputTooLarge` for more points than
    /// [`MsmContext::max_pass_points`] (or none).
    pub(crate) async fn msm_profiled<G: GpuCurve>(
        &self,
        points: Points<'_, G>,
        scalars: Scalars<'_, G>,
    ) -> Result<(G::Group, Profile), MsmError> {
        if points.len() != scalars.len() {
            return Err(MsmError::LengthMismatch { points: points.len(), scalars: scalars.len() });
        }
        let n = points.len();
        self.gpu().check_alive()?;
        self.checked_pass_points::<G>(1)?; // before any compilation
        let runner = self.runner::<G>().await?; // chooses the kernels, which set the pass size
        let max = self.pass_points::<G>();
        if n == 0 || n > max {
            return Err(MsmError::InputTooLarge { n, max });
        }
        let curve = runner.curve;
        let plan = Plan::choose(n as u32, scalars.bits())
            .with_inputs(points.plan_inputs() | scalars.plan_inputs())
            .shaped(runner.kernels().plan);
        let halves = points.raw_halves();
        let source = PointSource::upload(&halves, 0);
        let pass = self.run::<G>(&runner, &plan, source, &scalars, true).await?;
        let started = now_seconds();
        let mut result = combine_windows(&pass.window_sums, &plan);
        if let Some(from) = pass.no_image {
            result += sum_without_image(&points, &scalars, from)?;
        }
        let host_seconds = now_seconds() - started;
        let skip: Vec<bool> = (0..n).map(|i| points.is_identity(i)).collect();
        Ok((result, Profile::of_pass::<G>(curve, plan, pass.timings, &scalars, &skip, host_seconds)))
    }
}

impl Profile {
    /// The profile of a pass run with timings for `plan`, whose result took the host
    /// `host_seconds`: each step's time, and its multiplications by the cost model, whose bucket
    /// sizes come from `scalars` decomposed on the host (profiling only) for points of which
    /// `skip` marks the identities.
    pub(crate) fn of_pass<G: GpuCurve>(
        curve: RunningCurve,
        plan: Plan,
        timings: Option<Timings>,
        scalars: &Scalars<'_, G>,
        skip: &[bool],
        host_seconds: f64,
    ) -> Self {
        let (_, counts) = decompose(&scalars.words(), skip, &plan);
        let muls = step_field_muls(curve, &plan, &counts);
        let muls_of = |step: Step| muls.iter().find(|(s, _)| *s == step).map_or(0, |(_, m)| *m);
        let timings = timings.expect("profiled runs are timed");
        let steps_on_gpu = timings.steps_on_gpu;
        let untimed = |name, seconds| StepProfile { name, seconds, field_muls: 0 };
        let steps = std::iter::once(untimed("upload", timings.upload))
            .chain(timings.steps.into_iter().map(|(step, seconds)| StepProfile {
                name: step.name(),
                seconds,
                field_muls: muls_of(step),
            }))
            .chain([untimed("readback", timings.readback)])
            .collect();
        Profile { plan, steps, host_seconds, steps_on_gpu }
    }
}
