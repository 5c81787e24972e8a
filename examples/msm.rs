//! The main job: one MSM on the default adapter, checked against arkworks, with timings: the
//! cold first call, then warm calls interleaved with arkworks on the same input (median of 3 up
//! to 2^18, one call above).
//!
//! `cargo run --release --example msm -- --curve bls12-377 --log-size 16 [--profile]`
//!
//! `--profile` adds the device's field-multiplication rate and a profiled run: each GPU step's
//! time, the multiplications the cost model counts for it and its efficiency. `--field narrow`
//! forces the 13-bit-limb form browsers run on software GPUs, `--field narrow-unbatched` the one
//! they run on hardware GPUs (packed, products one after another; `narrow-unbatched-inline` with
//! each Fp2 multiplication's base products inline, as SwiftShader runs the BLS12 G2 groups),
//! `narrow-loops` batched
//! products each in its own loop, `--field wide` the 32-bit one (`wide-unbatched` with products
//! one after another; `-R` after any: R rounds per loop); by default the context picks wide
//! where the device has 64-bit integers. `--device-profile hardware|llvmpipe|swiftshader` runs
//! that preset's device rules (`webgpu_msm::DeviceProfile`) on this adapter. `--accumulation
//! projective|edwards|edwards-affine` fixes stage 3's accumulation (BLS12-377's Weierstrass or
//! Edwards model). By default the context calibrates both on the curve's first use (the cold call) and prints what it
//! chose and measured; `--calibrate-all` times the accumulations on every device, slow ones too.
//! `--warm-calls N` adds N warm calls back to back (median, fastest and each one in order):
//! interleaved with arkworks, a hardware GPU idles between calls and may lower its clocks. The
//! cold call is also printed in parts: context and first MSM (which starts on the kernels chosen
//! by rule while calibration runs beside it); `--warm-up` calls `MsmContext::warm_up` between
//! them, as an app that compiles and calibrates at start-up would. `--prepared F` then
//! prepares the points once with precompute factor F (1: none) and times calls on them back to
//! back, as a prover over a fixed key runs (with `--profile`, one of those calls profiled too,
//! where the bases fit one pass). `--profile-cold` makes the first MSM a profiled one
//! and prints its steps' times: on a driver that compiles a pipeline at its first dispatch
//! (llvmpipe) each includes its compilation, so the cold call shows which kernel costs most.
//! `--check-subgroup` times `prepare` with `MsmConfig::check_subgroup` against a plain `prepare`
//! of the same points (its first run compiles the check, its second is reported as its cost).
//! `--blinding` times calls over prepared bases with and without `MsmConfig::blinding` on
//! uniform, all-zero and all-equal scalars (median of `--warm-calls`, at least 5, each, in
//! rotating rounds): blinded, the three should take the same time.
//! `--chunk-len N` makes hardware GPUs' plans accumulate N entries per thread (a power of two,
//! at least 16; `webgpu_msm::plan::force_hardware_chunk_len`), to measure on a device how the
//! accumulation's thread count matters.

mod cli;

use cli::{exit, Args};
use std::time::Instant;

use ark_ec::VariableBaseMSM;
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use webgpu_msm::inputs::random_points;
use webgpu_msm::{
    Accumulation, Bases, Bench, Calibration, ContextOptions, CurveFn, DeviceProfile, GpuCurve, MsmConfig, MsmContext,
    MsmError, MulForm, PreparedBases, Profile,
};

/// `--field`'s form families: the name and form of each, which `NAME-R` takes with R rounds per
/// loop. A family comes before those whose names begin its own. `narrow-subzero`, `narrow-gpu`
/// and `wide-gpu` are the earlier names of `narrow-loops`, `narrow-unbatched` and
/// `wide-unbatched`.
const FIELD_FAMILIES: [(&str, MulForm); 9] = [
    ("narrow-loops", MulForm::Rolled { rounds: 5, batched: true, interleaved: false, fp2_loop: false }),
    ("narrow-subzero", MulForm::Rolled { rounds: 5, batched: true, interleaved: false, fp2_loop: false }),
    ("narrow-unbatched-inline", MulForm::Rolled { rounds: 5, batched: false, interleaved: false, fp2_loop: false }),
    ("narrow-unbatched", MulForm::Rolled { rounds: 5, batched: false, interleaved: false, fp2_loop: true }),
    ("narrow-gpu", MulForm::Rolled { rounds: 5, batched: false, interleaved: false, fp2_loop: true }),
    ("narrow", MulForm::ROLLED),
    ("wide-unbatched", MulForm::Wide { rounds: 4, batched: false }),
    ("wide-gpu", MulForm::Wide { rounds: 4, batched: false }),
    ("wide", MulForm::WIDE),
];

/// The form `--field NAME` names, or `None` for no family of [`FIELD_FAMILIES`].
fn field_form(name: &str) -> Option<MulForm> {
    FIELD_FAMILIES.iter().find_map(|&(family, form)| {
        if name == family {
            return Some(form);
        }
        let rounds = name.strip_prefix(family)?.strip_prefix('-')?;
        let rounds = rounds.parse().unwrap_or_else(|_| panic!("--field {family}-R: R rounds per loop"));
        Some(form.with_rounds(rounds))
    })
}

fn main() {
    quiet_headless_vulkan_layer();
    let args = Args::from_env();
    let curve = args.curve("bls12-377");
    let log_size = args.log_size(16);
    let profile = args.flag("--profile");
    let form = args.value("--field").map(|name| {
        field_form(name).unwrap_or_else(|| exit(&format!("unknown --field {name}: use narrow, narrow-R (R rounds per loop), narrow-loops or narrow-loops-R (each batched product in its own loop), narrow-unbatched or narrow-unbatched-R (packed, products one after another), narrow-unbatched-inline[-R] (the same with each Fp2 product's base products inline), wide, wide-R (R rounds per loop), wide-unbatched or wide-unbatched-R (products one after another)")))
    });
    let calibrate_all = args.flag("--calibrate-all");
    let device_profile = args.value("--device-profile").map(|name| {
        DeviceProfile::ALL
            .into_iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| exit(&format!("unknown --device-profile {name}: use hardware, llvmpipe or swiftshader")))
    });
    let profile_cold = args.flag("--profile-cold");
    let warm_up_first = args.flag("--warm-up");
    let warm_calls: usize = args.parsed("--warm-calls", "an integer").unwrap_or(0);
    let prepared: Option<u32> = args.parsed("--prepared", "a precompute factor");
    let check_subgroup = args.flag("--check-subgroup");
    let blinding = args.flag("--blinding");
    if let Some(len) = args.value("--chunk-len") {
        let len = len.parse().ok().filter(|&len| webgpu_msm::plan::force_hardware_chunk_len(Some(len)));
        if len.is_none() {
            exit(&format!("--chunk-len takes a power of two of at least {}", webgpu_msm::plan::MIN_CHUNK_LEN));
        }
    }
    let accumulation = match args.value("--accumulation") {
        None => None,
        Some("projective") => Some(Accumulation::Projective),
        Some("edwards") => Some(Accumulation::Edwards),
        Some("edwards-affine") => Some(Accumulation::EdwardsAffine),
        Some(other) => exit(&format!("unknown --accumulation {other}: use projective, edwards or edwards-affine")),
    };
    let ok = curve.call(Run {
        log_size,
        profile,
        profile_cold,
        warm_up_first,
        form,
        device_profile,
        accumulation,
        calibrate_all,
        warm_calls,
        prepared,
        check_subgroup,
        blinding,
    });
    std::process::exit(if ok { 0 } else { 1 });
}

/// The run's settings; [`CurveFn::call`] runs it on the chosen curve.
struct Run {
    log_size: u32,
    profile: bool,
    profile_cold: bool,
    warm_up_first: bool,
    form: Option<MulForm>,
    device_profile: Option<DeviceProfile>,
    accumulation: Option<Accumulation>,
    calibrate_all: bool,
    warm_calls: usize,
    prepared: Option<u32>,
    check_subgroup: bool,
    blinding: bool,
}

impl CurveFn for Run {
    type Output = bool;
    fn call<G: GpuCurve>(self) -> bool {
        run::<G>(&self)
    }
}

/// Mesa's Vulkan device-select layer (an implicit layer Debian installs) asks Wayland for the
/// display's GPU, and libwayland prints "XDG_RUNTIME_DIR is invalid or not set" twice when there
/// is no session. On a headless machine there is no display to prefer, so the layer is switched
/// off with its documented variable; wgpu still picks the adapter by power preference.
fn quiet_headless_vulkan_layer() {
    let headless = std::env::var_os("WAYLAND_DISPLAY").is_none() && std::env::var_os("XDG_RUNTIME_DIR").is_none();
    if headless && std::env::var_os("NODEVICE_SELECT").is_none() {
        // Before any other thread exists.
        std::env::set_var("NODEVICE_SELECT", "1");
    }
}

/// The median of `times` (sorted in place).
fn median(times: &mut [std::time::Duration]) -> std::time::Duration {
    times.sort();
    times[times.len() / 2]
}

fn run<G: GpuCurve>(settings: &Run) -> bool {
    let Run {
        log_size,
        profile,
        profile_cold,
        warm_up_first,
        form,
        device_profile,
        accumulation,
        calibrate_all,
        warm_calls,
        prepared,
        check_subgroup,
        blinding,
    } = *settings;
    // Large inputs take seconds per call: one round there.
    let rounds = if log_size <= 18 { 3 } else { 1 };
    let n = 1usize << log_size;
    println!("curve {}, n = 2^{log_size} = {n}", G::spec().name);
    let mut rng = StdRng::seed_from_u64(log_size as u64);
    let started = Instant::now();
    let points: Vec<G> = random_points::<G, _>(n, &mut rng);
    let scalars: Vec<G::ScalarField> = (0..n).map(|_| G::ScalarField::rand(&mut rng)).collect();
    println!("inputs generated in {:.2?}", started.elapsed());

    let started = Instant::now();
    let options = ContextOptions {
        mul_form: form,
        accumulation,
        calibration_budget: if calibrate_all { f64::INFINITY } else { ContextOptions::default().calibration_budget },
        ..ContextOptions::default()
    };
    let ctx = pollster::block_on(MsmContext::new()).and_then(|ctx| ctx.with_options(options)).map(|ctx| {
        match device_profile {
            // The preset's rules, with 64-bit integers where the device has them.
            Some(device_profile) => ctx.with_profile(device_profile.with_int64(true)),
            None => ctx,
        }
    });
    let ctx = match ctx {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("error: {e}");
            return false;
        }
    };
    let info = ctx.adapter_info();
    println!("adapter: {} ({:?}, {:?})", info.name, info.backend, info.device_type);
    // The cold call as a user's first call runs: the context, then the first MSM, which starts
    // on the kernels chosen by rule while any calibration runs beside it (with `--warm-up`, an
    // explicit warm-up first: compilation and calibration, timed apart).
    let context_time = started.elapsed();
    let warm_up = warm_up_first.then(|| pollster::block_on(ctx.warm_up(G::ID)));
    let warm_up_time = started.elapsed() - context_time;
    let cold = match profile_cold {
        // Each step waited for on its own: its time includes compiling its pipeline wherever the
        // driver compiles at the first dispatch.
        true => profiled(&ctx, &points, &scalars).map(|(result, profile)| {
            let steps: Vec<String> =
                profile.steps.iter().map(|step| format!("{} {:.0} ms", step.name, step.seconds * 1e3)).collect();
            println!("cold call's steps: {}", steps.join(", "));
            result
        }),
        false => pollster::block_on(ctx.msm(&points, &scalars)),
    };
    let cold_time = started.elapsed();
    // Waits for the calibration beside the cold call, so that the warm calls run its choice.
    let waited = Instant::now();
    match warm_up.unwrap_or_else(|| pollster::block_on(ctx.warm_up(G::ID))) {
        Ok(calibration) => print_calibration(&calibration),
        Err(e) => eprintln!("error: {e}"),
    }
    let waited = waited.elapsed();
    // Warm calls interleaved with arkworks on the same input: the median of each.
    let mut warm = Vec::new();
    let mut warm_times = Vec::new();
    let mut ark_times = Vec::new();
    let mut expected = None;
    for _ in 0..rounds {
        let started = Instant::now();
        warm.push(pollster::block_on(ctx.msm(&points, &scalars)));
        warm_times.push(started.elapsed());
        let started = Instant::now();
        expected = Some(G::Group::msm(&points, &scalars).expect("lengths match"));
        ark_times.push(started.elapsed());
    }
    let expected = expected.expect("at least one round");
    let (warm_time, ark_time) = (median(&mut warm_times), median(&mut ark_times));

    let cold = match cold {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return false;
        }
    };
    let warm: Vec<G::Group> = match warm.into_iter().collect() {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            return false;
        }
    };
    println!("GPU cold (context + pipelines + first MSM): {cold_time:.2?}");
    let first_msm = cold_time - context_time - warm_up_time;
    match warm_up_first {
        true => println!(
            "cold call's parts: context {context_time:.2?}, warm-up {warm_up_time:.2?}, first MSM {first_msm:.2?}"
        ),
        false => println!(
            "cold call's parts: context {context_time:.2?}, first MSM {first_msm:.2?}; then {waited:.2?} more for \
             the calibration beside it"
        ),
    }
    println!("GPU warm (median of {rounds}): {warm_time:.2?}");
    let passes = n.div_ceil(ctx.max_pass_points(G::ID)).max(1);
    let pass = n.div_ceil(passes).max(1);
    let bytes = ctx.gpu_memory_bytes(G::ID, pass);
    println!(
        "GPU buffers: {:.1} MiB for a pass of {pass} points ({} bytes per point), {passes} pass(es)",
        bytes as f64 / (1u64 << 20) as f64,
        bytes / pass as u64,
    );
    println!("arkworks VariableBaseMSM::msm (same input, this build's threads, median of {rounds}): {ark_time:.2?}");
    println!("warm GPU / arkworks = {:.2}", warm_time.as_secs_f64() / ark_time.as_secs_f64());
    let mut verified = cold == expected && warm.iter().all(|w| *w == expected);
    if warm_calls > 0 {
        verified &= time_calls::<G>("GPU warm back to back", warm_calls, &expected, || {
            pollster::block_on(ctx.msm(&points, &scalars))
        });
    }
    if let Some(factor) = prepared {
        verified &= print_prepared(&ctx, &points, &scalars, &expected, factor, warm_calls.max(3), profile);
    }
    if check_subgroup {
        verified &= print_subgroup_check(&ctx, &points, warm_time);
    }
    if blinding {
        verified &= print_blinding(&ctx, &points, &scalars, warm_calls.max(5));
    }
    println!("result {}", if verified { "VERIFIED against arkworks" } else { "MISMATCH with arkworks" });
    if profile {
        // The profiled run takes one pass: the first pass's points of a larger input.
        let pass = n.min(ctx.max_pass_points(G::ID));
        let expected =
            if pass == n { expected } else { G::Group::msm(&points[..pass], &scalars[..pass]).expect("same lengths") };
        let profiled = print_profile(&ctx, &points[..pass], &scalars[..pass], &expected);
        println!("profiled result {}", if profiled { "VERIFIED against arkworks" } else { "MISMATCH with arkworks" });
        verified &= profiled;
    }
    verified
}

/// Times `calls` calls of `call` back to back and prints each (in order: a real GPU's clocks and
/// a host's scheduling show as slow calls among fast ones), their median and the fastest, after
/// `label`; whether every result equalled `expected`.
fn time_calls<G: GpuCurve>(
    label: &str,
    calls: usize,
    expected: &G::Group,
    mut call: impl FnMut() -> Result<G::Group, MsmError>,
) -> bool {
    let mut times = Vec::new();
    let mut right = true;
    for _ in 0..calls {
        let started = Instant::now();
        let result = call();
        times.push(started.elapsed());
        right &= result.as_ref() == Ok(expected);
    }
    let fastest = *times.iter().min().expect("at least one call");
    let each: Vec<String> = times.iter().map(|t| format!("{:.2}", t.as_secs_f64() * 1e3)).collect();
    println!("{label}, each call in ms: {}", each.join(" "));
    println!("{label} (median of {calls}): {:.2?}, fastest {fastest:.2?}", median(&mut times));
    right
}

/// Prepares `points` once (precompute factor `factor`), then times `calls` calls on them back to
/// back: what a prover pays per MSM over a fixed key, with only the scalars uploaded. Whether
/// every result was right.
fn print_prepared<G: GpuCurve>(
    ctx: &MsmContext,
    points: &[G],
    scalars: &[G::ScalarField],
    expected: &G::Group,
    factor: u32,
    calls: usize,
    profile: bool,
) -> bool {
    let started = Instant::now();
    let options = MsmConfig { precompute_factor: factor, ..MsmConfig::default() };
    let bases = match pollster::block_on(ctx.prepare(points, &options)) {
        Ok(bases) => bases,
        Err(e) => {
            eprintln!("error: {e}");
            return false;
        }
    };
    let kernels = bases.kernels();
    println!(
        "prepared bases (precompute factor {factor}, {:?} accumulation) in {:.2?}",
        kernels.accumulation,
        started.elapsed()
    );
    let right = time_calls::<G>("GPU warm on prepared bases back to back", calls, expected, || {
        pollster::block_on(ctx.msm(&bases, scalars))
    });
    if !profile {
        return right;
    }
    let profiled = pollster::block_on(ctx.device_rates(G::ID))
        .and_then(|rates| Ok((profiled(ctx, &bases, scalars)?, rates.field_muls_per_second)));
    match profiled {
        Ok(((result, profile), rate)) => {
            print_steps("profiled call on prepared bases", &profile, rate);
            let verified = result == *expected;
            println!(
                "profiled prepared result {}",
                if verified { "VERIFIED against arkworks" } else { "MISMATCH with arkworks" }
            );
            right && verified
        }
        // Bases of several passes are not profiled.
        Err(e @ MsmError::InputTooLarge { .. }) => {
            println!("profiled call on prepared bases: not run ({e})");
            right
        }
        Err(e) => {
            eprintln!("error: {e}");
            false
        }
    }
}

/// Times `prepare` of `points` with and without `MsmConfig::check_subgroup` (each twice, the
/// second reported: the first check compiles its kernel), against a warm MSM call `warm`.
/// Whether the points passed the check.
fn print_subgroup_check<G: GpuCurve>(ctx: &MsmContext, points: &[G], warm: std::time::Duration) -> bool {
    let prepare = |check_subgroup: bool| {
        let config = MsmConfig { check_subgroup, ..MsmConfig::default() };
        let mut seconds = 0.0;
        for _ in 0..2 {
            let started = Instant::now();
            if let Err(e) = pollster::block_on(ctx.prepare(points, &config)) {
                eprintln!("error: {e}");
                return None;
            }
            seconds = started.elapsed().as_secs_f64();
        }
        Some(seconds)
    };
    let (Some(plain), Some(checked)) = (prepare(false), prepare(true)) else { return false };
    if G::spec().prime_order {
        println!("subgroup check: none on a curve of cofactor 1 (prepare {:.2} ms)", plain * 1e3);
        return true;
    }
    println!(
        "subgroup check: prepare {:.2} ms, with the check {:.2} ms: the check costs {:.2} warm calls",
        plain * 1e3,
        checked * 1e3,
        (checked - plain) / warm.as_secs_f64()
    );
    true
}

/// Times `calls` calls over `points` prepared plainly and blinded, on `uniform`, all-zero and
/// all-equal scalars, and checks each result against arkworks. Whether every result was right.
fn print_blinding<G: GpuCurve>(ctx: &MsmContext, points: &[G], uniform: &[G::ScalarField], calls: usize) -> bool {
    let started = Instant::now();
    let blinded_config = MsmConfig { blinding: Some([0x5a; 32]), ..MsmConfig::default() };
    let prepared = pollster::block_on(ctx.prepare(points, &MsmConfig::default()))
        .and_then(|plain| Ok((plain, pollster::block_on(ctx.prepare(points, &blinded_config))?)));
    let (plain, blinded) = match prepared {
        Ok(bases) => bases,
        Err(e) => {
            eprintln!("error: {e}");
            return false;
        }
    };
    println!("blinding: both sets of bases prepared in {:.2?}", started.elapsed());
    let zeros = vec![G::ScalarField::from(0u64); uniform.len()];
    let equal = vec![uniform[0]; uniform.len()];
    let kinds = [("uniform", uniform), ("all zero", &zeros[..]), ("all equal", &equal[..])];
    let expected: Vec<G::Group> = kinds.iter().map(|(_, s)| G::Group::msm(points, s).expect("same lengths")).collect();
    // Rounds of every (bases, scalars) pair, so that drift in the machine's speed falls on all
    // of them alike: the blinded calls together, then the plain ones, each round starting from
    // the next kind of scalars (no kind always follows the same call).
    let mut times = vec![Vec::new(); 2 * kinds.len()];
    let mut right = true;
    for round in 0..calls {
        for (b, bases) in [&plain, &blinded].into_iter().enumerate().rev() {
            for j in 0..kinds.len() {
                let k = (round + j) % kinds.len();
                let started = Instant::now();
                right &= pollster::block_on(ctx.msm(bases, kinds[k].1)).as_ref() == Ok(&expected[k]);
                times[2 * k + b].push(started.elapsed());
            }
        }
    }
    let medians: Vec<f64> = times.iter_mut().map(|t| median(t).as_secs_f64() * 1e3).collect();
    for (k, (kind, _)) in kinds.iter().enumerate() {
        let (plain, blinded) = (medians[2 * k], medians[2 * k + 1]);
        println!(
            "blinding, {kind} scalars (median of {calls}): plain {plain:.2} ms, blinded {blinded:.2} ms ({:.2}×)",
            blinded / plain
        );
    }
    right
}

/// Prints the field-multiplication rate and a profiled run; whether its result was right.
fn print_profile<G: GpuCurve>(ctx: &MsmContext, points: &[G], scalars: &[G::ScalarField], expected: &G::Group) -> bool {
    let rates = match pollster::block_on(ctx.device_rates(G::ID)) {
        Ok(rates) => rates,
        Err(e) => {
            eprintln!("error: {e}");
            return false;
        }
    };
    let rate = rates.field_muls_per_second;
    println!(
        "device: {:.1} M field multiplications/s; {:.2} M mixed additions/s ({:.0}% of the rate their {} multiplications allow; over {} and {} threads)",
        rate / 1e6,
        rates.add_stored_per_second / 1e6,
        100.0 * rates.add_stored_per_second * rates.add_stored_muls as f64 / rate,
        rates.add_stored_muls,
        rates.threads[0],
        rates.threads[1]
    );
    let (result, profile) = match profiled(ctx, points, scalars) {
        Ok(profiled) => profiled,
        Err(e) => {
            eprintln!("error: {e}");
            return false;
        }
    };
    print_steps("profiled run", &profile, rate);
    result == *expected
}

/// One MSM profiled (`msm_with` with `MsmConfig::profile`): its result and its profile.
fn profiled<'a, G: GpuCurve>(
    ctx: &MsmContext,
    bases: impl Into<Bases<'a, G, PreparedBases<G>>>,
    scalars: &[G::ScalarField],
) -> Result<(G::Group, Profile), MsmError> {
    let config = MsmConfig { profile: true, ..MsmConfig::default() };
    let mut output = pollster::block_on(ctx.msm_with(bases, &[scalars], &config))?;
    Ok((output.results.pop().expect("one result"), output.profile.expect("a profile")))
}

/// A profile's plan and its steps' times, multiplications and efficiencies at `rate`.
fn print_steps(label: &str, profile: &Profile, rate: f64) {
    let plan = &profile.plan;
    println!(
        "{label} of {} points (precompute factor {}): c = {}, {} windows, {} buckets/window, {} entries per accumulation thread ({} threads), {} reduction threads per window",
        plan.n,
        plan.fold,
        plan.window_bits,
        plan.num_windows,
        plan.num_buckets,
        plan.chunk_len,
        plan.total_chunks(),
        plan.segments
    );
    println!(
        "steps {}",
        match profile.steps_on_gpu {
            true => "timed on the GPU (timestamp queries), all in one submission",
            false => "each submitted and waited for on its own, timed on the host",
        }
    );
    println!("{:<24} {:>10} {:>14} {:>11}", "step", "time", "field muls", "efficiency");
    for step in &profile.steps {
        let efficiency = step.efficiency(rate).map_or("-".to_string(), |e| format!("{:.0}%", 100.0 * e));
        println!("{:<24} {:>8.1}ms {:>14} {:>11}", step.name, step.seconds * 1e3, step.field_muls, efficiency);
    }
    let gpu: f64 = profile.steps.iter().map(|s| s.seconds).sum();
    let muls: u64 = profile.steps.iter().map(|s| s.field_muls).sum();
    println!(
        "{:<24} {:>8.1}ms {:>14} {:>10.0}%   (+ host {:.1} ms)",
        "total",
        gpu * 1e3,
        muls,
        100.0 * muls as f64 / rate / gpu,
        profile.host_seconds * 1e3
    );
}

/// The kernels the context chose for the curve, and what it measured to choose them.
fn print_calibration(calibration: &Calibration) {
    let kernels = calibration.kernels;
    println!("kernels: field form {:?}, {:?} accumulation", kernels.form, kernels.accumulation);
    let unit = match calibration.form_benchmark {
        Bench::FieldMul => "field multiplications",
        Bench::AddStored => "mixed additions",
    };
    for (form, rate) in &calibration.form_rates {
        println!("  calibration: {form:?}: {:.2} M {unit}/s", rate / 1e6);
    }
    for (accumulation, seconds) in &calibration.accumulation_seconds {
        println!("  calibration: {accumulation:?}: {:.2} ms per pass of 2^14", seconds * 1e3);
    }
}
