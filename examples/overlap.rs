//! Overlapping calls: k MSMs of the same size on one context, started together on k threads,
//! against the same k calls one after another on the same context. Each repetition runs both
//! (one after the other, so machine load hits both alike) and checks every result against
//! arkworks; the medians are printed.
//!
//! `cargo run --release --example overlap -- --curve ed-on-bls12-377 --log-size 16 --k 2,4`
//! `[--workspaces N]` (workspaces per curve, default the context's 2) `[--reps R]` (default 3).
//!
//! Natively a call blocks its thread while it waits for the GPU, so overlapping calls need
//! threads (or a multi-threaded executor); futures joined on one thread run one after another.

mod cli;

use std::time::{Duration, Instant};

use ark_ec::VariableBaseMSM;
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use webgpu_msm::inputs::random_points;
use webgpu_msm::{ContextOptions, CurveFn, GpuCurve, MsmContext};

fn main() {
    let args = cli::Args::from_env();
    let curve = args.curve("ed-on-bls12-377");
    let log_size = args.log_size(16);
    let ks: Vec<usize> = args
        .value("--k")
        .unwrap_or("2,4")
        .split(',')
        .map(|k| k.parse().unwrap_or_else(|_| cli::exit("--k takes integers separated by commas")))
        .collect();
    let workspaces: Option<usize> = args.parsed("--workspaces", "an integer");
    let reps: usize = args.parsed("--reps", "an integer").unwrap_or(3);
    curve.call(Run { log_size, ks, workspaces, reps: reps.max(1) });
}

/// The run's settings; [`CurveFn::call`] runs it on the chosen curve.
struct Run {
    log_size: u32,
    ks: Vec<usize>,
    workspaces: Option<usize>,
    reps: usize,
}

impl CurveFn for Run {
    type Output = ();
    fn call<G: GpuCurve>(self) {
        run::<G>(self)
    }
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn run<G: GpuCurve>(run: Run) {
    let n = 1usize << run.log_size;
    let k_max = run.ks.iter().copied().max().unwrap_or(1);
    let mut rng = StdRng::seed_from_u64(u64::from(run.log_size));
    // One set of points, a scalar set per call (the GPU's work does not depend on the points).
    let points = random_points::<G, _>(n, &mut rng);
    let scalars: Vec<Vec<G::ScalarField>> =
        (0..k_max).map(|_| (0..n).map(|_| G::ScalarField::rand(&mut rng)).collect()).collect();
    let expected: Vec<G::Group> = scalars.iter().map(|s| G::Group::msm(&points, s).expect("same lengths")).collect();

    let ctx = pollster::block_on(MsmContext::new()).expect("a GPU adapter");
    let ctx = match run.workspaces {
        Some(max_workspaces) => {
            ctx.with_options(ContextOptions { max_workspaces, ..ContextOptions::default() }).expect("options")
        }
        None => ctx,
    };
    let check = |i: usize, got: Result<G::Group, _>| {
        assert_eq!(got, Ok(expected[i]), "call {i}: the GPU result differs from arkworks");
    };
    let sequential = |k: usize| {
        let started = Instant::now();
        for (i, s) in scalars.iter().enumerate().take(k) {
            check(i, pollster::block_on(ctx.msm(&points, s)));
        }
        started.elapsed()
    };
    let concurrent = |k: usize| {
        let started = Instant::now();
        std::thread::scope(|scope| {
            let calls: Vec<_> = (0..k)
                .map(|i| {
                    let (ctx, points, scalars) = (&ctx, &points, &scalars[i]);
                    scope.spawn(move || pollster::block_on(ctx.msm(points, scalars)))
                })
                .collect();
            for (i, call) in calls.into_iter().enumerate() {
                check(i, call.join().expect("call thread"));
            }
        });
        started.elapsed()
    };
    // Warm-up: compiles the curve and allocates the workspaces the concurrent runs use.
    sequential(1);
    concurrent(k_max);

    let info = ctx.adapter_info();
    println!(
        "{} n = 2^{} on {} ({:?}), {} workspaces per curve ({:.1} MiB each), median of {}",
        G::spec().name,
        run.log_size,
        info.name,
        info.backend,
        ctx.options().max_workspaces,
        ctx.gpu_memory_bytes(G::ID, n) as f64 / (1 << 20) as f64,
        run.reps
    );
    println!("| k | one after another | k at once | at once / after another | per call at once |");
    for &k in &run.ks {
        let (mut seq, mut conc) = (Vec::new(), Vec::new());
        for _ in 0..run.reps {
            seq.push(sequential(k));
            conc.push(concurrent(k));
        }
        let (seq, conc) = (median(&mut seq), median(&mut conc));
        println!(
            "| {k} | {:.0} ms | {:.0} ms | {:.2} | {:.0} ms |",
            ms(seq),
            ms(conc),
            conc.as_secs_f64() / seq.as_secs_f64(),
            ms(conc) / k as f64
        );
    }
}
