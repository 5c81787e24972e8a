//! GPU `msm` against arkworks' `VariableBaseMSM::msm` on the same inputs in the same run.
//!
//! `cargo bench --bench msm`; sizes from `WEBGPU_MSM_BENCH_LOG_SIZES` (comma-separated log2 n,
//! default `10,12,14`), curves from `WEBGPU_MSM_BENCH_CURVES` (default both). The cold time
//! (context creation, pipeline compilation and the first call) is printed once per curve.

use std::time::Instant;

use ark_ec::VariableBaseMSM;
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use webgpu_msm::inputs::random_points;
use webgpu_msm::{GpuCurve, MsmContext};

fn env_list(name: &str, default: &str) -> Vec<String> {
    std::env::var(name).unwrap_or_else(|_| default.into()).split(',').map(|s| s.trim().to_string()).collect()
}

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
        group.bench_with_input(BenchmarkId::new("arkworks_1_thread", format!("2^{log}")), &log, |b, _| {
            b.iter(|| G::Group::msm(&points, &scalars).expect("same lengths"))
        });
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let log_sizes: Vec<u32> =
        env_list("WEBGPU_MSM_BENCH_LOG_SIZES", "10,12,14").iter().map(|s| s.parse().expect("log2 sizes")).collect();
    for curve in env_list("WEBGPU_MSM_BENCH_CURVES", "ed-on-bls12-377,bls12-377") {
        match curve.as_str() {
            "bls12-377" => bench_curve::<ark_bls12_377::G1Affine>(c, &log_sizes),
            "ed-on-bls12-377" => bench_curve::<ark_ed_on_bls12_377::EdwardsAffine>(c, &log_sizes),
            other => panic!("unknown curve {other}"),
        }
    }
}

criterion_group!(msm, benches);
criterion_main!(msm);
