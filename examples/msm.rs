//! The main job: one MSM on the default adapter, checked against arkworks, with timings.
//!
//! `cargo run --release --example msm -- --curve bls12-377 --log-size 16`

use std::time::Instant;

use ark_ec::VariableBaseMSM;
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use webgpu_msm::inputs::random_points;
use webgpu_msm::{GpuCurve, MsmContext};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let curve = value("--curve").unwrap_or_else(|| "bls12-377".into());
    let log_size: u32 = value("--log-size").map_or(16, |v| v.parse().expect("--log-size takes an integer"));
    let ok = match curve.as_str() {
        "bls12-377" => run::<ark_bls12_377::G1Affine>(log_size),
        "ed-on-bls12-377" => run::<ark_ed_on_bls12_377::EdwardsAffine>(log_size),
        other => {
            eprintln!("unknown curve {other}: use bls12-377 or ed-on-bls12-377");
            false
        }
    };
    std::process::exit(if ok { 0 } else { 1 });
}

fn run<G: GpuCurve>(log_size: u32) -> bool {
    let n = 1usize << log_size;
    println!("curve {}, n = 2^{log_size} = {n}", G::spec().name);
    let mut rng = StdRng::seed_from_u64(log_size as u64);
    let started = Instant::now();
    let points: Vec<G> = random_points::<G, _>(n, &mut rng);
    let scalars: Vec<G::ScalarField> = (0..n).map(|_| G::ScalarField::rand(&mut rng)).collect();
    println!("inputs generated in {:.2?}", started.elapsed());

    let started = Instant::now();
    let ctx = match pollster::block_on(MsmContext::new()) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("error: {e}");
            return false;
        }
    };
    let info = ctx.adapter_info();
    println!("adapter: {} ({:?}, {:?})", info.name, info.backend, info.device_type);
    let cold = pollster::block_on(ctx.msm(&points, &scalars));
    let cold_time = started.elapsed();
    let started = Instant::now();
    let warm = pollster::block_on(ctx.msm(&points, &scalars));
    let warm_time = started.elapsed();

    let started = Instant::now();
    let expected = G::Group::msm(&points, &scalars).expect("lengths match");
    let ark_time = started.elapsed();

    let (cold, warm) = match (cold, warm) {
        (Ok(c), Ok(w)) => (c, w),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return false;
        }
    };
    println!("GPU cold (context + pipelines + first MSM): {cold_time:.2?}");
    println!("GPU warm: {warm_time:.2?}");
    println!("arkworks VariableBaseMSM::msm (same input, this build's threads): {ark_time:.2?}");
    println!("warm GPU / arkworks = {:.2}", warm_time.as_secs_f64() / ark_time.as_secs_f64());
    let verified = cold == expected && warm == expected;
    println!("result {}", if verified { "VERIFIED against arkworks" } else { "MISMATCH with arkworks" });
    verified
}
