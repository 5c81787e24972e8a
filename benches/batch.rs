//! Batch MSM (several scalar sets over the same points) against the same MSMs one call at a
//! time, and against arkworks' `VariableBaseMSM::msm` per set, in the same run.
//!
//! `cargo bench --bench batch`; batches from `WEBGPU_MSM_BENCH_BATCHES` (comma-separated
//! `SETSxLOG2N`, default `32x10,8x14`), curves from `WEBGPU_MSM_BENCH_CURVES` (default: every
//! curve of the build). Each benchmark computes every set of the batch once:
//! - `batch_prepared`: `msm_with` of the sets over bases prepared once (a prover's SRS);
//! - `batch`: `msm_with` of the sets over points, which uploads and converts them in every call;
//! - `single_prepared_calls`, `single_calls`: one `msm` call per set, over the prepared bases or
//!   the points;
//! - `arkworks_1_thread` (or `arkworks_parallel` with `--features arkworks-parallel`): one
//!   arkworks MSM per set.

use ark_ec::VariableBaseMSM;
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use common::{bench_curves, env_list, ARKWORKS};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use webgpu_msm::inputs::random_points;
use webgpu_msm::{CurveFn, GpuCurve, MsmConfig, MsmContext};

mod common;

fn bench_curve<G: GpuCurve>(c: &mut Criterion, batches: &[(usize, u32)]) {
    let ctx = pollster::block_on(MsmContext::new()).expect("a GPU adapter");
    let mut group = c.benchmark_group(format!("{}/batch", G::spec().name));
    group.sample_size(10);
    for &(sets, log) in batches {
        let n = 1usize << log;
        let mut rng = StdRng::seed_from_u64(n as u64);
        let points = random_points::<G, _>(n, &mut rng);
        let scalars: Vec<Vec<G::ScalarField>> =
            (0..sets).map(|_| (0..n).map(|_| G::ScalarField::rand(&mut rng)).collect()).collect();
        let sets_ref: Vec<&[G::ScalarField]> = scalars.iter().map(Vec::as_slice).collect();
        let expected: Vec<G::Group> = scalars.iter().map(|s| G::Group::msm(&points, s).expect("lengths")).collect();
        let bases = pollster::block_on(ctx.prepare(&points, &MsmConfig::default())).expect("prepare");
        assert_eq!(
            pollster::block_on(ctx.msm_with(&points, &sets_ref, &MsmConfig::default())).map(|o| o.results),
            Ok(expected.clone()),
            "batch"
        );
        assert_eq!(
            pollster::block_on(ctx.msm_with(&bases, &sets_ref, &MsmConfig::default())).map(|o| o.results),
            Ok(expected),
            "prepared batch"
        );
        let id = |name: &str| BenchmarkId::new(name, format!("{sets}x2^{log}"));
        group.bench_function(id("batch_prepared"), |b| {
            b.iter(|| {
                pollster::block_on(ctx.msm_with(&bases, &sets_ref, &MsmConfig::default()))
                    .map(|o| o.results)
                    .expect("GPU batch")
            })
        });
        group.bench_function(id("batch"), |b| {
            b.iter(|| {
                pollster::block_on(ctx.msm_with(&points, &sets_ref, &MsmConfig::default()))
                    .map(|o| o.results)
                    .expect("GPU batch")
            })
        });
        group.bench_function(id("single_prepared_calls"), |b| {
            b.iter(|| {
                for set in &sets_ref {
                    pollster::block_on(ctx.msm(&bases, set)).expect("GPU msm");
                }
            })
        });
        group.bench_function(id("single_calls"), |b| {
            b.iter(|| {
                for set in &sets_ref {
                    pollster::block_on(ctx.msm(&points, set)).expect("GPU msm");
                }
            })
        });
        group.bench_function(id(ARKWORKS), |b| {
            b.iter(|| {
                for set in &sets_ref {
                    G::Group::msm(&points, set).expect("lengths");
                }
            })
        });
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let batches: Vec<(usize, u32)> = env_list("WEBGPU_MSM_BENCH_BATCHES", "32x10,8x14")
        .iter()
        .map(|b| {
            let (sets, log) = b.split_once('x').expect("WEBGPU_MSM_BENCH_BATCHES: SETSxLOG2N");
            (sets.parse().expect("sets"), log.parse().expect("log2 n"))
        })
        .collect();
    for curve in bench_curves() {
        curve.call(Bench { c: &mut *c, batches: &batches });
    }
}

/// One curve's batch group; [`CurveFn::call`] runs it on the curve named at run time.
struct Bench<'a> {
    c: &'a mut Criterion,
    batches: &'a [(usize, u32)],
}

impl CurveFn for Bench<'_> {
    type Output = ();
    fn call<G: GpuCurve>(self) {
        bench_curve::<G>(self.c, self.batches)
    }
}

criterion_group!(batch, benches);
criterion_main!(batch);
