//! Compiles shader pipelines one at a time on the default adapter and prints how long each took
//! and the process's peak memory after it: which entry point a driver's compiler struggles with.
//!
//! `cargo run --example compile_entry -- --curve bls12-377 [--field narrow|wide] [--stage FILE]
//! [--entry NAME] [--dump DIR]`
//!
//! `--curve bls12-377-edwards` compiles BLS12-377 on its twisted Edwards model,
//! `bls12-377-edwards-affine` the same with affine stored points.
//!
//! `--field narrow|wide` compiles the form a context would use on this adapter (its
//! [`DeviceProfile`]'s: products one after another on hardware GPUs, batched on software
//! ones); `narrow-batched` and `wide-batched` force the batched forms. `--rounds R` sets that
//! form's Montgomery rounds per loop iteration (what a smaller loop body costs the compiler).
//!
//! Without `--entry` every entry point of every stage of the curve (or of `--stage`) is compiled in
//! turn in this process; run one `--entry` per process to measure each one's peak alone.
//! `--dump DIR` also writes each composed WGSL module there.

mod cli;

use std::time::Instant;

use webgpu_msm::point_model::RunningCurve;
use webgpu_msm::wgsl::{compose, MulForm, Stage};
use webgpu_msm::{Accumulation, CurveId, DeviceProfile};

fn peak_rss_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap_or(0);
    kib / 1024
}

fn main() {
    let args = cli::Args::from_env();
    let value = |flag: &str| args.value(flag).map(str::to_owned);
    // `NAME-edwards` is curve NAME on its twisted Edwards model (the default kernels of
    // bls12-377 on hardware GPUs), `NAME-edwards-affine` the same with affine stored points
    // (software GPUs); NAME alone is its own model.
    let name = value("--curve").unwrap_or_else(|| "bls12-377".into());
    let (name, model) = match (name.strip_suffix("-edwards-affine"), name.strip_suffix("-edwards")) {
        (Some(n), _) => (n, "edwards-affine"),
        (None, Some(n)) => (n, "edwards"),
        (None, None) => (name.as_str(), ""),
    };
    let curve: CurveId = name.parse().unwrap_or_else(|e| panic!("{e}"));
    let spec = curve.spec();
    let accumulation = match model {
        "edwards" => Accumulation::Edwards,
        "edwards-affine" => Accumulation::EdwardsAffine,
        _ => Accumulation::Projective,
    };
    if accumulation.on(spec) != accumulation {
        panic!("{curve} has no Edwards model");
    }
    let running = RunningCurve::new(spec, accumulation);
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).expect("an adapter");
    let info = adapter.get_info();
    let profile = DeviceProfile::for_adapter(info.device_type, &info.name, true);
    let form = match value("--field").as_deref().unwrap_or("narrow") {
        "narrow" => profile.narrow_form(spec),
        "wide" => profile.wide_form(),
        "narrow-batched" => MulForm::ROLLED,
        "wide-batched" => MulForm::WIDE,
        other => panic!("unknown --field {other}"),
    };
    let form = match value("--rounds") {
        Some(r) => form.with_rounds(r.parse().expect("--rounds N")),
        None => form,
    };
    let stages: Vec<Stage> =
        Stage::ALL.into_iter().filter(|s| value("--stage").is_none_or(|f| s.file() == f)).collect();

    let features = if form.needs_int64() { wgpu::Features::SHADER_INT64 } else { wgpu::Features::empty() };
    let (device, _queue) = pollster::block_on(
        adapter.request_device(&wgpu::DeviceDescriptor { required_features: features, ..Default::default() }),
    )
    .expect("a device");
    println!("adapter: {} ({:?})", adapter.get_info().name, form);

    for stage in stages {
        let source = match value("--wgsl") {
            Some(file) => std::fs::read_to_string(file).expect("--wgsl FILE"),
            None => compose(running, stage, form),
        };
        if let Some(dir) = value("--dump") {
            std::fs::write(
                format!("{dir}/{}{}{}-{}", spec.name, if model.is_empty() { "" } else { "-" }, model, stage.file()),
                &source,
            )
            .expect("dump");
        }
        let parsed = naga::front::wgsl::parse_str(&source).expect("valid WGSL");
        let entries: Vec<String> = parsed
            .entry_points
            .iter()
            .map(|e| e.name.clone())
            .filter(|name| value("--entry").is_none_or(|wanted| *name == wanted))
            .collect();
        if entries.is_empty() {
            continue;
        }
        let start = Instant::now();
        let descriptor =
            wgpu::ShaderModuleDescriptor { label: Some(stage.file()), source: wgpu::ShaderSource::Wgsl(source.into()) };
        let module = if args.flag("--unchecked") {
            // SAFETY: a diagnostic of compile time only; nothing is dispatched.
            unsafe { device.create_shader_module_trusted(descriptor, wgpu::ShaderRuntimeChecks::unchecked()) }
        } else {
            device.create_shader_module(descriptor)
        };
        println!("{} module: {:.2} s, peak {} MiB", stage.file(), start.elapsed().as_secs_f64(), peak_rss_mib());
        for entry in entries {
            let start = Instant::now();
            let _pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&entry),
                layout: None,
                module: &module,
                entry_point: Some(&entry),
                compilation_options: Default::default(),
                cache: None,
            });
            println!("{} {entry}: {:.2} s, peak {} MiB", stage.file(), start.elapsed().as_secs_f64(), peak_rss_mib());
        }
    }
}
