//! arkworks 0.6 `VariableBaseMSM::msm` on BN254 G1, single-threaded (no `parallel` feature),
//! on the inputs `peer_inputs` makes (the same ones the browser harness makes).
//! Usage: ark-bn254-ref [log_size] [reps]
use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{CurveGroup, PrimeGroup, VariableBaseMSM};
use ark_ff::{PrimeField, UniformRand};
use std::time::Instant;

/// Same generator as scripts/peer/icme-harness/src/lib.rs: uniform scalars from
/// ark_std::test_rng(); points start + i*step (start, step random multiples of the generator),
/// cheap to make and as good as independent points for an MSM's cost.
fn peer_inputs(n: usize) -> (Vec<G1Affine>, Vec<Fr>) {
    let mut rng = ark_std::test_rng();
    let start = G1Projective::generator() * Fr::rand(&mut rng);
    let step = G1Projective::generator() * Fr::rand(&mut rng);
    let mut acc = start;
    let mut proj = Vec::with_capacity(n);
    for _ in 0..n {
        proj.push(acc);
        acc += step;
    }
    let points = G1Projective::normalize_batch(&proj);
    let scalars = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    (points, scalars)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let log_size: u32 = args.get(1).map_or(16, |s| s.parse().unwrap());
    let reps: usize = args.get(2).map_or(5, |s| s.parse().unwrap());
    let n = 1usize << log_size;
    let (points, scalars) = peer_inputs(n);
    let mut times = Vec::new();
    let mut result = G1Affine::default();
    for _ in 0..reps {
        let t = Instant::now();
        let r = G1Projective::msm(&points, &scalars).unwrap();
        times.push(t.elapsed().as_secs_f64() * 1e3);
        result = r.into_affine();
    }
    let first = times[0];
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = times[times.len() / 2];
    println!(
        "ARK_NATIVE n=2^{log_size} reps={reps} first_ms={first:.1} median_ms={median:.1} min_ms={:.1} x={} y={}",
        times[0],
        result.x.into_bigint(),
        result.y.into_bigint()
    );
}
