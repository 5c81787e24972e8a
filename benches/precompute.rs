//! Prepared bases with stored multiples (`MsmConfig::precompute_factor`) against the same
//! bases prepared without them and against arkworks' `VariableBaseMSM::msm`, in the same run.
//!
//! `cargo bench --bench precompute`; sizes from `WEBGPU_MSM_BENCH_LOG_SIZES` (default
//! `10,12,16`), factors from `WEBGPU_MSM_BENCH_FACTORS` (default `1,2,4,8`; 1 is prepared
//! without multiples), curves from `WEBGPU_MSM_BENCH_CURVES` (default: every curve of the
//! build). Each benchmark is one `msm` call over the prepared bases (`factor_F`) or one arkworks MSM
//! (`arkworks_1_thread`, or `arkworks_parallel` with `--features arkworks-parallel`); the time
//! to prepare, and the chosen window, are printed once per factor.

use std::time::Instant;

use ark_ec::VariableBaseMSM;
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use common::{bench_curves, env_list, ARKWORKS};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use webgpu_msm::inputs::random_points;
use webgpu_msm::plan::Plan;
use webgpu_msm::{CurveFn, GpuCurve, MsmConfig, MsmContext};

mod common;

fn bench_curve<G: GpuCurve>(c: &mut Criterion, logs: &[u32], factors: &[u32]) {
    let ctx = pollster::block_on(MsmContext::new()).expect("a GPU adapter");
    let mut group = c.benchmark_group(format!("{}/precompute", G::spec().name));
    group.sample_size(10);
    for &log in logs {
        let n = 1usize << log;
        let mut rng = StdRng::seed_from_u64(n as u64);
        let points = random_points::<G, _>(n, &mut rng);
        let scalars: Vec<G::ScalarField> = (0..n).map(|_| G::ScalarField::rand(&mut rng)).collect();
        let expected = G::Group::msm(&points, &scalars).expect("lengths");
        let id = |name: String| BenchmarkId::new(name, format!("2^{log}"));
        for &factor in factors {
            let started = Instant::now();
            let options = MsmConfig { precompute_factor: factor, ..MsmConfig::default() };
            let bases = pollster::block_on(ctx.prepare(&points, &options)).expect("prepare");
            let seconds = started.elapsed().as_secs_f64();
            assert_eq!(pollster::block_on(ctx.msm(&bases, &scalars)), Ok(expected), "factor {factor}");
            let bits = if factor == 1 { G::spec().scalar_bits } else { 256 };
            let plan = Plan::folded(n as u32, bits, factor);
            println!(
                "{} 2^{log} factor {factor}: prepared in {seconds:.3} s; window {} bits, {} windows",
                G::spec().name,
                plan.window_bits,
                plan.num_windows
            );
            group.bench_function(id(format!("factor_{factor}")), |b| {
                b.iter(|| pollster::block_on(ctx.msm(&bases, &scalars)).expect("GPU msm"))
            });
        }
        group.bench_function(id(ARKWORKS.to_string()), |b| {
            b.iter(|| G::Group::msm(&points, &scalars).expect("lengths"))
        });
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let parse = |name, default| -> Vec<u32> {
        env_list(name, default).iter().map(|v| v.parse().unwrap_or_else(|_| panic!("{name}: {v}"))).collect()
    };
    let (logs, factors) =
        (parse("WEBGPU_MSM_BENCH_LOG_SIZES", "10,12,16"), parse("WEBGPU_MSM_BENCH_FACTORS", "1,2,4,8"));
    for curve in bench_curves() {
        curve.call(Bench { c: &mut *c, logs: &logs, factors: &factors });
    }
}

struct Bench<'a> {
    c: &'a mut Criterion,
    logs: &'a [u32],
    factors: &'a [u32],
}

impl CurveFn for Bench<'_> {
    type Output = ();
    fn call<G: GpuCurve>(self) {
        bench_curve::<G>(self.c, self.logs, self.factors);
    }
}

criterion_group!(group, benches);
criterion_main!(group);
