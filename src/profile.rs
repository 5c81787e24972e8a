//! Profiling: where one MSM spends its time. The device's field-multiplication rate (a
//! microbenchmark of the generated `field_mul`), the seconds of every GPU step (each submitted and
//! waited for on its own), and each step's efficiency under the cost model of [`crate::cost`]:
//! (counted multiplications ÷ measured rate) ÷ measured time.

use num_bigint::BigUint;

use crate::clock::now_seconds;
use crate::combine::combine_windows;
use crate::cost::step_field_muls;
use crate::cpu_model::decompose;
use crate::curve::{scalar_words, GpuCurve};
use crate::gpu::pipelines::stage_pipelines;
use crate::gpu::run::{dispatch_size, submit_pass, PointSource};
use crate::plan::Plan;
use crate::step::Step;
use crate::upload::{Points, Scalars};
use crate::wgsl::Stage;
use crate::{MsmContext, MsmError};

/// Threads of the microbenchmark.
const BENCH_THREADS: u32 = 16_384;
/// Dependent multiplications per thread (`CHAIN` in `shaders/benchmarks.wgsl`).
const BENCH_CHAIN: u64 = 256;
/// Timed runs of the microbenchmark; the fastest counts (the first also compiles).
const BENCH_RUNS: usize = 3;

/// One timed step of a profiled run.
#[derive(Clone, Debug, PartialEq)]
pub struct StepProfile {
    /// [`Step::name`], or "upload" / "readback".
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

/// A profiled MSM: its result, its plan and its steps.
#[derive(Clone, Debug)]
pub struct Profile<R> {
    /// The MSM result (the same as [`MsmContext::msm`]'s).
    pub result: R,
    /// Window width and thread counts used.
    pub plan: Plan,
    /// Upload, each GPU pipeline in order, and readback.
    pub steps: Vec<StepProfile>,
    /// Host time after the readback (decoding, window sums, Horner).
    pub host_seconds: f64,
}

/// Throughput of the device on the generated code of one curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeviceRates {
    /// Montgomery multiplications of the base field per second.
    pub field_muls_per_second: f64,
    /// Mixed additions (a stored input point into a bucket) per second.
    pub add_stored_per_second: f64,
}

impl MsmContext {
    /// Measures curve `G`'s [`DeviceRates`] on this device: chains of 256 dependent `field_mul`
    /// (of 32 mixed additions) in each of 16,384 threads, fastest of three runs each.
    pub async fn device_rates<G: GpuCurve>(&self) -> Result<DeviceRates, MsmError> {
        use wgpu::util::DeviceExt;
        let gpu = self.gpu();
        let spec = G::spec();
        let field = spec.field_for(self.mul_form());
        let value = |i: u32| field.limbs_to_storage(&field.limbs_of(&(BigUint::from(i) + (1u64 << 13))));
        let values: Vec<u32> = (0..BENCH_THREADS).flat_map(value).collect();
        let stored: Vec<u32> =
            values.chunks(field.storage_words()).flat_map(|v| v.repeat(spec.stored_coords())).collect();
        let usage = wgpu::BufferUsages::STORAGE;
        let buffer = |contents: &[u32]| {
            gpu.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("microbenchmark"),
                contents: bytemuck::cast_slice(contents),
                usage,
            })
        };
        let (pipelines, bind_groups) = gpu
            .capture(|| {
                let entries = ["bench_field_mul", "bench_add_stored"];
                let pipelines = stage_pipelines(&gpu.device, spec, self.mul_form(), Stage::Benchmarks, entries);
                let (values, stored) = (buffer(&values), buffer(&stored));
                let bind_groups = [(&pipelines[0], &values, None), (&pipelines[1], &values, Some(&stored))].map(
                    |(pipeline, values, stored)| {
                        let mut entries =
                            vec![wgpu::BindGroupEntry { binding: 0, resource: values.as_entire_binding() }];
                        if let Some(stored) = stored {
                            entries.push(wgpu::BindGroupEntry { binding: 1, resource: stored.as_entire_binding() });
                        }
                        gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                            label: Some("microbenchmark"),
                            layout: &pipeline.get_bind_group_layout(0),
                            entries: &entries,
                        })
                    },
                );
                (pipelines, bind_groups)
            })
            .await?;
        let mut seconds = [f64::INFINITY; 2];
        for ((pipeline, bind_group), best) in pipelines.iter().zip(&bind_groups).zip(&mut seconds) {
            for _ in 0..BENCH_RUNS {
                let started = now_seconds();
                gpu.capture(|| submit_pass(gpu, pipeline, bind_group, dispatch_size(BENCH_THREADS))).await?;
                gpu.finish_queue().await?;
                *best = best.min(now_seconds() - started);
            }
        }
        let threads = BENCH_THREADS as f64;
        Ok(DeviceRates {
            field_muls_per_second: threads * BENCH_CHAIN as f64 / seconds[0],
            add_stored_per_second: threads * (BENCH_CHAIN / 8) as f64 / seconds[1],
        })
    }

    /// [`MsmContext::msm`] with every GPU step submitted and timed on its own, and the cost
    /// model's multiplication count of each step (slower than `msm`: for finding where time goes).
    pub async fn msm_profiled<G: GpuCurve>(
        &self,
        points: &[G],
        scalars: &[G::ScalarField],
    ) -> Result<Profile<G::Group>, MsmError> {
        if points.len() != scalars.len() {
            return Err(MsmError::LengthMismatch { points: points.len(), scalars: scalars.len() });
        }
        let n = points.len();
        let max = self.max_pass_points::<G>();
        if n == 0 || n > max {
            return Err(MsmError::InputTooLarge { n, max });
        }
        let spec = G::spec();
        let (points_upload, scalars_upload) = (Points::Arkworks(points), Scalars::<G>::Arkworks(scalars));
        let plan = Plan::choose(n as u32, spec.scalar_bits)
            .with_inputs(points_upload.plan_inputs() | scalars_upload.plan_inputs());
        let source = PointSource::Upload { points: &points_upload, first: 0 };
        let (partials, timings) = self.run::<G>(&plan, source, &scalars_upload, true).await?;
        let started = now_seconds();
        let result = combine_windows(&partials, &plan);
        let host_seconds = now_seconds() - started;

        // The cost model's bucket sizes, from scalars converted on the host (profiling only).
        let skip: Vec<bool> = points.iter().map(|p| p.is_zero()).collect();
        let (_, counts) = decompose(&scalar_words(scalars), &skip, &plan);
        let muls = step_field_muls(spec, &plan, &counts);
        let muls_of = |step: Step| muls.iter().find(|(s, _)| *s == step).map_or(0, |(_, m)| *m);
        let timings = timings.expect("profiled runs are timed");
        let untimed = |name, seconds| StepProfile { name, seconds, field_muls: 0 };
        let steps = std::iter::once(untimed("upload", timings.upload))
            .chain(timings.steps.into_iter().map(|(step, seconds)| StepProfile {
                name: step.name(),
                seconds,
                field_muls: muls_of(step),
            }))
            .chain([untimed("readback", timings.readback)])
            .collect();
        Ok(Profile { result, plan, steps, host_seconds })
    }
}
