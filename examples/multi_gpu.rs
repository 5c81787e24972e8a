//! One MSM split over every adapter of the process (`MultiGpu::all_adapters`): each device's
//! share, and the warm time of the split call against each device alone, on the same input.
//!
//! `VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json:/usr/lib/chromium/vk_swiftshader_icd.json \
//!  cargo run --release --example multi_gpu -- --log-size 16` (lavapipe and SwiftShader; the
//! curve is ed-on-bls12-377). Each time is the median of 3 warm calls.

mod cli;

use std::time::{Duration, Instant};

use ark_ec::VariableBaseMSM;
use ark_ed_on_bls12_377::{EdwardsAffine as G, EdwardsProjective, Fr};
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use webgpu_msm::inputs::random_points;
use webgpu_msm::{GpuCurve, MultiGpu};

fn median_of_3(mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..3)
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed()
        })
        .collect();
    times.sort();
    times[1]
}

fn main() {
    let log_size = cli::Args::from_env().log_size(16);
    let n = 1usize << log_size;
    let mut rng = StdRng::seed_from_u64(n as u64);
    let points = random_points::<G, _>(n, &mut rng);
    let scalars: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let expected = EdwardsProjective::msm(&points, &scalars).expect("lengths");

    let multi = pollster::block_on(MultiGpu::all_adapters()).expect("adapters");
    for (name, cost, points) in pollster::block_on(multi.shares(G::ID, n)).expect("costs") {
        println!(
            "{name}: {points} points ({:.1}%); measured {:.1} ms + {:.2} µs per point",
            100.0 * points as f64 / n as f64,
            cost.fixed * 1e3,
            cost.per_point * 1e6
        );
    }
    assert_eq!(pollster::block_on(multi.msm(&points, &scalars)), Ok(expected), "split result");
    let split = median_of_3(|| {
        let _ = pollster::block_on(multi.msm(&points, &scalars)).expect("split msm");
    });
    println!("ed-on-bls12-377 2^{log_size}, all devices: {:.1} ms", split.as_secs_f64() * 1e3);
    for ctx in multi.contexts() {
        assert_eq!(pollster::block_on(ctx.msm(&points, &scalars)), Ok(expected), "one device's result");
        let alone = median_of_3(|| {
            let _ = pollster::block_on(ctx.msm(&points, &scalars)).expect("msm");
        });
        println!("  {} alone: {:.1} ms", ctx.adapter_info().name, alone.as_secs_f64() * 1e3);
    }
    println!("results VERIFIED against arkworks");
}
