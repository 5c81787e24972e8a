//! GPU `msm` against arkworks' `VariableBaseMSM::msm` on the same inputs in the same run.
//!
//! `cargo bench --bench msm`; sizes from `WEBGPU_MSM_BENCH_LOG_SIZES` (comma-separated log2 n,
//! default `10,12,14`), curves from `WEBGPU_MSM_BENCH_CURVES` (default: every curve of the build). The cold time
//! (context creation, pipeline compilation and the first call) is printed once per curve.
//! `gpu_warm` uploads and converts the points in every call; `gpu_prepared_bases` uses points
//! prepared once (`MsmContext::prepare`). `--features arkworks-parallel` runs arkworks with its `parallel` feature (all cores).
//!
//! Skewed scalars: `WEBGPU_MSM_BENCH_SKEW_LOG_SIZE` (default 12) times the GPU on the same points
//! with uniform scalars, 90% equal scalars, scalars in {0, 1}, scalars in the lowest window only
//! and half zero scalars (group `<curve>/skew`).

use std::time::Instant;

use ark_ec::VariableBaseMSM;
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use common::{bench_curves, env_list, ARKWORKS};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use webgpu_msm::inputs::random_points;
use webgpu_msm::{CurveFn, GpuCurve, MsmConfig, MsmContext};

mod common;

/// `n` random points and scalars.
fn inputs<G: GpuCurve>(n: usize) -> (Vec<G>, Vec<G::ScalarField>) {
    let mut rng = StdRng::seed_from_u64(n as u64);
    let points = random_points::<G, _>(n, &mut rng);
    (points, (0..n).map(|_| G::ScalarField::rand(&mut rng)).collect())
}

fn bench_curve<G: GpuCurve>(c: &mut Criterion, log_sizes: &[u32]) {
    let name = G::spec().name;
    let started = Instant::now();
    let ctx = pollster::block_on(MsmContext::new()).expect("a GPU adapter");
    let (points, scalars) = inputs::<G>(1 << log_sizes[0]);
    pollster::block_on(ctx.msm(&points, &scalars)).expect("GPU msm");
    let info = ctx.adapter_info();
    println!(
        "{name}: cold (context + pipelines + first call, 2^{}) {:.2?} on {}",
        log_sizes[0],
        started.elapsed(),
        info.name
    );

    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for &log in log_sizes {
        let (points, scalars) = inputs::<G>(1 << log);
        let expected = G::Group::msm(&points, &scalars).expect("same lengths");
        assert_eq!(pollster::block_on(ctx.msm(&points, &scalars)), Ok(expected), "GPU result at 2^{log}");
        group.bench_with_input(BenchmarkId::new("gpu_warm", format!("2^{log}")), &log, |b, _| {
            b.iter(|| pollster::block_on(ctx.msm(&points, &scalars)).expect("GPU msm"))
        });
        let bases = pollster::block_on(ctx.prepare(&points, &MsmConfig::default())).expect("prepare");
        assert_eq!(pollster::block_on(ctx.msm(&bases, &scalars)), Ok(expected), "prepared result at 2^{log}");
        group.bench_with_input(BenchmarkId::new("gpu_prepared_bases", format!("2^{log}")), &log, |b, _| {
            b.iter(|| pollster::block_on(ctx.msm(&bases, &scalars)).expect("GPU msm"))
        });
        group.bench_with_input(BenchmarkId::new(ARKWORKS, format!("2^{log}")), &log, |b, _| {
            b.iter(|| G::Group::msm(&points, &scalars).expect("same lengths"))
        });
    }
    group.finish();
    bench_skew::<G>(c, &ctx);
}

/// GPU time on skewed scalar distributions against uniform ones, same points and n.
fn bench_skew<G: GpuCurve>(c: &mut Criterion, ctx: &MsmContext) {
    let log: u32 = std::env::var("WEBGPU_MSM_BENCH_SKEW_LOG_SIZE").map_or(12, |v| v.parse().expect("log2 size"));
    let n = 1usize << log;
    let (points, uniform) = inputs::<G>(n);
    let pick = |f: &dyn Fn(usize) -> G::ScalarField| (0..n).map(f).collect::<Vec<_>>();
    let lowest_window = (G::spec().scalar_bits / 32).max(2) as u64;
    let distributions: [(&str, Vec<G::ScalarField>); 5] = [
        ("uniform", uniform.clone()),
        ("90pct_equal", pick(&|i| if i % 10 == 0 { uniform[i] } else { uniform[0] })),
        ("zero_or_one", pick(&|i| G::ScalarField::from((i % 2) as u64))),
        ("lowest_window_only", pick(&|i| G::ScalarField::from(i as u64 % (1 << lowest_window)))),
        ("half_zero", pick(&|i| if i % 2 == 0 { uniform[i] } else { G::ScalarField::from(0u64) })),
    ];
    let mut group = c.benchmark_group(format!("{}/skew", G::spec().name));
    group.sample_size(10);
    for (name, scalars) in &distributions {
        let expected = G::Group::msm(&points, scalars).expect("same lengths");
        assert_eq!(pollster::block_on(ctx.msm(&points, scalars)), Ok(expected), "GPU result, {name}");
        group.bench_with_input(BenchmarkId::new(*name, format!("2^{log}")), name, |b, _| {
            b.iter(|| pollster::block_on(ctx.msm(&points, scalars)).expect("GPU msm"))
        });
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let log_sizes: Vec<u32> =
        env_list("WEBGPU_MSM_BENCH_LOG_SIZES", "10,12,14").iter().map(|s| s.parse().expect("log2 sizes")).collect();
    for curve in bench_curves() {
        curve.call(Bench { c: &mut *c, log_sizes: &log_sizes });
    }
}

/// One curve's benchmark group; [`CurveFn::call`] runs it on the curve named at run time.
struct Bench<'a> {
    c: &'a mut Criterion,
    log_sizes: &'a [u32],
}

impl CurveFn for Bench<'_> {
    type Output = ();
    fn call<G: GpuCurve>(self) {
        bench_curve::<G>(self.c, self.log_sizes)
    }
}

criterion_group!(msm, benches);
criterion_main!(msm);
