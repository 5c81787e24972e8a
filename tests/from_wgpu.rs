//! `MsmContext::from_wgpu`: a prover or renderer that already holds a wgpu device computes MSMs
//! on it, keeps using it for its own work with its own error handler, and a device whose limits
//! fall short is refused with an error naming the limit. Runs on the default adapter (lavapipe in
//! CI); without one it prints SKIPPED, and fails when `CI=true`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use pollster::block_on;
use webgpu_msm::testing::shared_context;
use webgpu_msm::{CurveFn, CurveId, GpuCurve, MsmConfig, MsmContext, MsmError};

/// The caller's device, as a renderer would create it, on the default adapter.
fn callers_device(limits: wgpu::Limits) -> (wgpu::Device, wgpu::Queue) {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = block_on(instance.request_adapter(&Default::default())).expect("adapter");
    let features = adapter.features() & wgpu::Features::SHADER_INT64;
    block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("the caller's device"),
        required_features: features,
        required_limits: limits,
        ..Default::default()
    }))
    .expect("device")
}

/// 100 random points and scalars from `seed`, and their MSM by arkworks.
fn inputs<G: GpuCurve>(seed: u64) -> (Vec<G>, Vec<G::ScalarField>, G::Group) {
    let mut rng = StdRng::seed_from_u64(seed);
    let points: Vec<G> = (0..100).map(|_| G::Group::rand(&mut rng).into_affine()).collect();
    let scalars: Vec<G::ScalarField> = (0..100).map(|_| G::ScalarField::rand(&mut rng)).collect();
    let expected = G::Group::msm(&points, &scalars).expect("same lengths");
    (points, scalars, expected)
}

/// One MSM of 100 random points on the context, against arkworks.
struct MatchesArkworks<'a>(&'a MsmContext);

impl CurveFn for MatchesArkworks<'_> {
    type Output = ();
    fn call<G: GpuCurve>(self) {
        let (points, scalars, expected) = inputs::<G>(21);
        assert_eq!(block_on(self.0.msm(&points, &scalars)), Ok(expected), "{}", G::ID);
    }
}

/// The calibration of a context on the caller's device measured both field forms where the
/// device has 64-bit integers (the second field) and chose one of them; without, it runs the
/// 13-bit form unmeasured.
struct CalibratesForms<'a>(&'a MsmContext, bool);

impl CurveFn for CalibratesForms<'_> {
    type Output = ();
    fn call<G: GpuCurve>(self) {
        let calibration = block_on(self.0.warm_up(G::ID)).expect("calibrates");
        let measured: Vec<_> = calibration.form_rates.iter().map(|(form, _)| *form).collect();
        if self.1 {
            assert_eq!(measured.len(), 2, "{calibration:?}");
            assert!(measured.contains(&calibration.kernels.form), "{calibration:?}");
        } else {
            assert!(measured.is_empty() && !calibration.kernels.form.needs_int64(), "{calibration:?}");
        }
    }
}

/// A profiled MSM of 100 random points matches arkworks; its steps were timed on the GPU in
/// one submission exactly when the second field says so, and each took a time.
struct ProfileTimes<'a>(&'a MsmContext, bool);

impl CurveFn for ProfileTimes<'_> {
    type Output = ();
    fn call<G: GpuCurve>(self) {
        let (points, scalars, expected) = inputs::<G>(22);
        let config = MsmConfig { profile: true, ..MsmConfig::default() };
        let output = block_on(self.0.msm_with(&points, &[&scalars], &config)).expect("profiled");
        assert_eq!(output.results, [expected], "{}", G::ID);
        let profile = output.profile.expect("a profile");
        assert_eq!(profile.steps_on_gpu, self.1, "{}", G::ID);
        assert!(profile.steps.iter().all(|s| s.seconds.is_finite() && s.seconds >= 0.0), "{:?}", profile.steps);
        let accumulation = profile.steps.iter().find(|s| s.field_muls > 0 && s.name.contains("chunks"));
        assert!(accumulation.is_some_and(|s| s.seconds > 0.0), "{:?}", profile.steps);
    }
}

/// Profiles time the steps with GPU timestamps, all in one submission, where the device has
/// `TIMESTAMP_QUERY` (the context's own device asks for it; lavapipe and SwiftShader have it),
/// and on a caller's device without it each step on its own, timed on the host.
#[test]
fn profiles_time_steps_on_the_gpu_where_the_device_has_timestamps() {
    let Some(ctx) = shared_context() else { return };
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = block_on(instance.request_adapter(&Default::default())).expect("adapter");
    let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
    CurveId::ALL[0].call(ProfileTimes(ctx, timestamps));
    let (device, queue) = callers_device(wgpu::Limits::default());
    assert!(!device.features().contains(wgpu::Features::TIMESTAMP_QUERY));
    let without = MsmContext::from_wgpu(device, queue).expect("a device with default limits suits");
    CurveId::ALL[0].call(ProfileTimes(&without, false));
}

#[test]
fn msm_runs_on_the_callers_device_which_stays_the_callers() {
    if shared_context().is_none() {
        return;
    }
    let (device, queue) = callers_device(wgpu::Limits::default());
    let caller_errors = Arc::new(AtomicUsize::new(0));
    let counter = caller_errors.clone();
    device.on_uncaptured_error(Arc::new(move |_: wgpu::Error| {
        counter.fetch_add(1, Ordering::SeqCst);
    }));

    let ctx = MsmContext::from_wgpu(device.clone(), queue.clone()).expect("a device with default limits suits");
    CurveId::ALL[0].call(CalibratesForms(&ctx, device.features().contains(wgpu::Features::SHADER_INT64)));
    CurveId::ALL[0].call(MatchesArkworks(&ctx));
    assert_eq!(caller_errors.load(Ordering::SeqCst), 0, "the MSM raised no error on the caller's handler");

    // The caller's own work afterwards: a copy round trip, and its error handler still gets its
    // uncaptured errors (a buffer both mappable for reading and a storage buffer is invalid).
    let source = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&source, 0, &[9; 16]);
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(&source, 0, &staging, 0, 16);
    queue.submit([encoder.finish()]);
    staging.slice(..).map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    assert_eq!(&staging.slice(..).get_mapped_range().expect("mapped")[..], &[9; 16]);
    let _invalid = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    assert_eq!(caller_errors.load(Ordering::SeqCst), 1, "the caller's handler got its own error");

    // And the context still works after the caller's error.
    CurveId::ALL[CurveId::ALL.len() - 1].call(MatchesArkworks(&ctx));
}

#[test]
fn a_device_below_the_needed_limits_is_refused_with_the_limit_named() {
    if shared_context().is_none() {
        return;
    }
    // wgpu's downlevel defaults allow 4 storage buffers per stage; the steps bind up to 7.
    let (device, queue) = callers_device(wgpu::Limits::downlevel_defaults());
    match MsmContext::from_wgpu(device, queue) {
        Err(MsmError::UnsuitableDevice(message)) => {
            assert!(message.contains("max_storage_buffers_per_shader_stage"), "{message}")
        }
        Err(e) => panic!("expected UnsuitableDevice, got {e}"),
        Ok(_) => panic!("a device with 4 storage buffers per stage was accepted"),
    }
}
