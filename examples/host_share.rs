//! The host's share of one warm MSM call: CPU time of the calling thread per call, against a
//! plain memcpy of the same number of input bytes in the same run (BENCHMARKS.md, "Host share").
//!
//! `cargo run --release --example host_share -- --curve bls12-377 --log-size 20`
//!
//! On a real GPU a 2^20 MSM takes 5–25 ms, so whatever the calling thread does per element
//! before the GPU starts (and after it ends) adds directly to every call. The GPU's own work
//! runs on other threads (lavapipe's) or on the device, and a thread blocked waiting for it uses
//! no CPU time, so this measures the host's work, whatever the device. Both APIs are measured:
//! the Rust API (arkworks points and scalars) and the bytes API (the JS API's path), the latter
//! also with points in Montgomery form (snarkjs' keys) and through a `BaseCache` that finds its
//! bases cached (a later proof's call: the points are fingerprinted, only scalars uploaded).
//! Each figure is the median of 3 warm calls.

mod cli;

use std::time::Instant;

use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, Rng, SeedableRng};
use webgpu_msm::inputs::random_points;
use webgpu_msm::testing::encode_point;
use webgpu_msm::{BaseCache, CurveFn, GpuCurve, MsmConfig, MsmContext, PointForm};

const CALLS: usize = 3;

fn main() {
    let args = cli::Args::from_env();
    let curve = args.curve("bls12-377");
    let log_size = args.log_size(20);
    curve.call(HostShare { log_size });
}

struct HostShare {
    log_size: u32,
}

/// CPU time the calling thread has used, in seconds.
fn thread_cpu_seconds() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given; the clock id is a constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// Minor page faults of the calling thread so far (first touches of fresh memory).
fn thread_page_faults() -> f64 {
    // SAFETY: getrusage writes the rusage it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    assert_eq!(rc, 0, "getrusage(RUSAGE_THREAD)");
    usage.ru_minflt as f64
}

/// Medians over `CALLS` runs of `work`: thread CPU seconds, wall seconds, page faults.
fn measure(mut work: impl FnMut()) -> (f64, f64, f64) {
    let (mut cpu, mut wall, mut faults) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..CALLS {
        let (c, w, f) = (thread_cpu_seconds(), Instant::now(), thread_page_faults());
        work();
        cpu.push(thread_cpu_seconds() - c);
        wall.push(w.elapsed().as_secs_f64());
        faults.push(thread_page_faults() - f);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (median(cpu), median(wall), median(faults))
}

impl CurveFn for HostShare {
    type Output = ();
    fn call<G: GpuCurve>(self) {
        let n = 1usize << self.log_size;
        let mut rng = StdRng::seed_from_u64(1);
        let points: Vec<G> = random_points::<G, _>(n, &mut rng);
        let scalars: Vec<G::ScalarField> = (0..n).map(|_| G::ScalarField::rand(&mut rng)).collect();
        let point_bytes: Vec<u8> = points.iter().flat_map(|p| encode_point::<G>(&p.into_group())).collect();
        let montgomery: Vec<u8> =
            points.iter().flat_map(|p| PointForm::Montgomery.encode::<G>(&p.into_group())).collect();
        let scalar_bytes: Vec<u8> = (0..32 * n).map(|_| rng.gen()).collect();
        let ctx = pollster::block_on(MsmContext::new()).expect("a WebGPU adapter");
        let info = ctx.adapter_info();
        println!(
            "{} 2^{} on {} ({:?}), {:?}",
            G::ID,
            self.log_size,
            info.name,
            info.backend,
            pollster::block_on(ctx.warm_up(G::ID)).map(|c| c.kernels)
        );

        // A plain copy of as many bytes as each API's inputs occupy.
        let memcpy = |bytes: usize| {
            let source = vec![1u8; bytes];
            let mut target = vec![0u8; bytes];
            target.copy_from_slice(&source); // touch the pages once
            measure(|| {
                target.copy_from_slice(std::hint::black_box(&source));
                std::hint::black_box(&mut target);
            })
            .0
        };
        let rust_bytes = std::mem::size_of_val(points.as_slice()) + std::mem::size_of_val(scalars.as_slice());
        let api_bytes = point_bytes.len() + scalar_bytes.len();

        let bytes_msm = |points: &[u8], config: &MsmConfig| {
            pollster::block_on(ctx.msm_bytes(G::ID, points, &[&scalar_bytes], config)).map(|output| output.results)
        };
        let plain = MsmConfig::default();
        pollster::block_on(ctx.msm(&points, &scalars)).expect("warm-up");
        bytes_msm(&point_bytes, &plain).expect("warm-up");
        let (rust_cpu, rust_wall, rust_faults) = measure(|| {
            pollster::block_on(ctx.msm(&points, &scalars)).expect("msm");
        });
        let (bytes_cpu, bytes_wall, bytes_faults) = measure(|| {
            bytes_msm(&point_bytes, &plain).expect("msm_bytes");
        });
        let montgomery_form = MsmConfig { point_form: PointForm::Montgomery, ..MsmConfig::default() };
        bytes_msm(&montgomery, &montgomery_form).expect("warm-up");
        let montgomery_share = measure(|| {
            bytes_msm(&montgomery, &montgomery_form).expect("msm_bytes, Montgomery points");
        });
        let cache = BaseCache::new(None);
        let cached = MsmConfig { cache: Some(&cache), ..montgomery_form };
        bytes_msm(&montgomery, &cached).expect("the cache's first call uploads");
        let cached_share = measure(|| {
            bytes_msm(&montgomery, &cached).expect("msm_bytes on cached bases");
        });
        assert_eq!(cache.stats().uploads, 1, "later calls found the bases cached");
        let (rust_copy, bytes_copy) = (memcpy(rust_bytes), memcpy(api_bytes));
        let ms = |s: f64| s * 1e3;
        println!("| API | input MB | memcpy ms | call thread CPU ms | ÷ memcpy | page faults | call wall ms |");
        println!("|---|---|---|---|---|---|---|");
        for (api, bytes, copy, (cpu, wall, faults)) in [
            ("Rust", rust_bytes, rust_copy, (rust_cpu, rust_wall, rust_faults)),
            ("bytes", api_bytes, bytes_copy, (bytes_cpu, bytes_wall, bytes_faults)),
            ("bytes, Montgomery points", api_bytes, bytes_copy, montgomery_share),
            ("BaseCache hit (Montgomery)", api_bytes, bytes_copy, cached_share),
        ] {
            let (mb, copy_ms, cpu_ms, wall_ms) = (bytes as f64 / 1e6, ms(copy), ms(cpu), ms(wall));
            println!("| {api} | {mb:.1} | {copy_ms:.2} | {cpu_ms:.2} | {:.2} | {faults} | {wall_ms:.0} |", cpu / copy);
        }
    }
}
