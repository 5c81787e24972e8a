//! Reliability: many calls in flight on one context (threads and joined futures) each get their
//! own right result without deadlock, and a lost device gives `DeviceLost` promptly, after which
//! a new context, and the shared default context, work again. Every GPU step runs under a
//! watchdog that fails the test instead of hanging CI. Runs on the default adapter (lavapipe in
//! CI); without one it prints SKIPPED, and fails when `CI=true`. The tests mix the two
//! BLS12-377 curves (a large and a small field), so they need both features.
#![cfg(all(feature = "bls12-377", feature = "ed-on-bls12-377"))]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Barrier};
use std::task::Poll;
use std::thread;
use std::time::{Duration, Instant};

use ark_bls12_377::G1Affine;
use ark_ec::VariableBaseMSM;
use ark_ed_on_bls12_377::EdwardsAffine;
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use webgpu_msm::{GpuCurve, MsmConfig, MsmContext, MsmError};

/// Longest any test here may take before it counts as hung (the first bls12-377 compile takes
/// ~40 s on lavapipe with 2 cores, everything else seconds).
const WATCHDOG: Duration = Duration::from_secs(600);

/// Longest a call on a lost device may take: it must fail fast, not wait for the GPU.
const PROMPT: Duration = Duration::from_secs(5);

// Compile-time: a context can be shared between threads, directly or in an `Arc`, and the
// futures of `msm` can be sent to other threads (e.g. spawned on a multi-threaded executor).
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<MsmContext>();
    send_sync::<Arc<MsmContext>>();
};

#[allow(dead_code, reason = "never called: it compiles only if the futures are Send")]
fn msm_futures_are_send(ctx: &MsmContext, points: &[EdwardsAffine], scalars: &[ark_ed_on_bls12_377::Fr]) {
    fn send<T: Send>(_: T) {}
    send(ctx.msm(points, scalars));
    send(webgpu_msm::msm(points, scalars));
}

/// A context of its own (fresh pipelines and buffers), or `None` without an adapter, which
/// `shared_context` turns into a failure when `CI=true`.
fn fresh_context() -> Option<MsmContext> {
    webgpu_msm::testing::shared_context()?;
    Some(pollster::block_on(MsmContext::new()).expect("a second context on the same adapter"))
}

/// Runs `f` on a thread of its own and returns its result, or fails the test if it takes longer
/// than [`WATCHDOG`] (the hung thread is left behind; the test binary still exits).
fn with_watchdog<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, receiver) = mpsc::channel();
    let worker = thread::Builder::new()
        .name(what.to_string())
        .spawn(move || {
            let _ = sender.send(f());
        })
        .expect("spawn");
    match receiver.recv_timeout(WATCHDOG) {
        Ok(value) => {
            worker.join().expect("finished");
            value
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: no result after {WATCHDOG:?}: deadlock or hang"),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            std::panic::resume_unwind(worker.join().expect_err("sender dropped without a result"))
        }
    }
}

/// Joins the threads, re-raising the first panic.
fn join_all_threads(threads: Vec<thread::JoinHandle<()>>) {
    for t in threads {
        if let Err(panic) = t.join() {
            std::panic::resume_unwind(panic);
        }
    }
}

/// `n` random points and scalars from `seed`, and their MSM by arkworks.
struct Case<G: GpuCurve> {
    points: Vec<G>,
    scalars: Vec<G::ScalarField>,
    expected: G::Group,
}

impl<G: GpuCurve> Case<G> {
    fn new(n: usize, seed: u64) -> Self {
        let mut rng = StdRng::seed_from_u64(seed);
        let points = webgpu_msm::inputs::random_points::<G, _>(n, &mut rng);
        let scalars: Vec<G::ScalarField> = (0..n).map(|_| G::ScalarField::rand(&mut rng)).collect();
        let expected = G::Group::msm(&points, &scalars).expect("same lengths");
        Case { points, scalars, expected }
    }

    /// The same points with new scalars from `seed` (for prepared bases).
    fn rescaled(&self, seed: u64) -> Self {
        let mut rng = StdRng::seed_from_u64(seed);
        let scalars: Vec<G::ScalarField> = self.points.iter().map(|_| G::ScalarField::rand(&mut rng)).collect();
        let expected = G::Group::msm(&self.points, &scalars).expect("same lengths");
        Case { points: self.points.clone(), scalars, expected }
    }

    /// Runs the case on `ctx` and asserts the result equals arkworks.
    fn check(&self, ctx: &MsmContext, what: &str) {
        let got = pollster::block_on(ctx.msm(&self.points, &self.scalars));
        assert_eq!(got, Ok(self.expected), "{what}: {} n = {}", G::spec().name, self.points.len());
    }
}

/// Asserts `result` is `DeviceLost` with the reason `lose_device_for_tests` gives.
fn assert_lost<T: std::fmt::Debug>(result: Result<T, MsmError>, what: &str) {
    match result {
        Err(e @ MsmError::DeviceLost(_)) => {
            let message = e.to_string();
            assert!(message.contains("device lost") && message.contains("lose_device_for_tests"), "{what}: {message}");
        }
        other => panic!("{what}: expected DeviceLost, got {other:?}"),
    }
}

/// Asserts `call` returns `DeviceLost` within [`PROMPT`].
fn assert_lost_promptly<T: std::fmt::Debug>(what: &str, call: impl FnOnce() -> Result<T, MsmError>) {
    let started = Instant::now();
    assert_lost(call(), what);
    assert!(started.elapsed() < PROMPT, "{what}: DeviceLost took {:?}", started.elapsed());
}

/// Four threads share one new context, each running several calls of different sizes; one
/// thread uses the other curve, so one curve compiles while the other runs, and the sizes rise
/// on every thread so the shared workspace grows while other calls wait for it or use it.
#[test]
fn threads_share_one_context_and_each_gets_its_own_result() {
    let Some(ctx) = fresh_context() else { return };
    let ctx = Arc::new(ctx);
    let started = Instant::now();
    with_watchdog("threads on one context", move || {
        let ed_sizes: [&[usize]; 3] = [&[1, 40, 300, 5], &[2, 100, 250, 0], &[3, 150, 299, 64]];
        let barrier = Arc::new(Barrier::new(4));
        let mut threads = Vec::new();
        for (t, sizes) in ed_sizes.into_iter().enumerate() {
            let (ctx, barrier) = (ctx.clone(), barrier.clone());
            let cases: Vec<Case<EdwardsAffine>> =
                sizes.iter().enumerate().map(|(i, &n)| Case::new(n, 100 * t as u64 + i as u64)).collect();
            threads.push(thread::spawn(move || {
                barrier.wait();
                for (i, case) in cases.iter().enumerate() {
                    case.check(&ctx, &format!("thread {t} call {i}"));
                }
            }));
        }
        let cases: Vec<Case<G1Affine>> = [2, 120, 30].iter().map(|&n| Case::new(n, 900 + n as u64)).collect();
        threads.push(thread::spawn(move || {
            barrier.wait();
            for (i, case) in cases.iter().enumerate() {
                case.check(&ctx, &format!("bls12-377 thread call {i}"));
            }
        }));
        join_all_threads(threads);
    });
    eprintln!("4 threads, 15 calls on one context: {:?}", started.elapsed());
}

/// Six threads on one context with two workspaces per curve and passes of at most 128 points:
/// four threads on ed-on-bls12-377 (more calls than workspaces), two of them on prepared bases
/// that they prepare meanwhile, and two on bls12-377, one of them prepared; sizes vary, and
/// calls above 128 points run as passes that each lease a workspace, so passes of different
/// calls interleave on the pool and workspaces grow while other calls hold theirs.
#[test]
fn more_calls_than_workspaces_with_prepared_bases_and_split_passes() {
    let Some(ctx) = fresh_context() else { return };
    let ctx = Arc::new(ctx.with_pass_limit(128));
    assert_eq!(ctx.options().max_workspaces, 2);
    with_watchdog("more calls than workspaces", move || {
        let barrier = Arc::new(Barrier::new(6));
        let mut threads = Vec::new();
        let ed_sizes: [&[usize]; 2] = [&[300, 40, 129, 1], &[5, 256, 77, 200]];
        for (t, sizes) in ed_sizes.into_iter().enumerate() {
            let (ctx, barrier) = (ctx.clone(), barrier.clone());
            let cases: Vec<Case<EdwardsAffine>> =
                sizes.iter().enumerate().map(|(i, &n)| Case::new(n, 600 + 10 * t as u64 + i as u64)).collect();
            threads.push(thread::spawn(move || {
                barrier.wait();
                for (i, case) in cases.iter().enumerate() {
                    case.check(&ctx, &format!("ed thread {t} call {i}"));
                }
            }));
        }
        fn prepared<G: GpuCurve>(
            ctx: Arc<MsmContext>,
            barrier: Arc<Barrier>,
            n: usize,
            seed: u64,
        ) -> thread::JoinHandle<()> {
            let first = Case::<G>::new(n, seed);
            let cases: Vec<Case<G>> = (1..4).map(|i| first.rescaled(seed + i)).collect();
            thread::spawn(move || {
                barrier.wait();
                let bases = pollster::block_on(ctx.prepare(&first.points, &MsmConfig::default())).expect("prepare");
                for (i, case) in cases.iter().enumerate() {
                    let got = pollster::block_on(ctx.msm(&bases, &case.scalars));
                    assert_eq!(got, Ok(case.expected), "prepared {} n = {n} call {i}", G::spec().name);
                }
            })
        }
        threads.push(prepared::<EdwardsAffine>(ctx.clone(), barrier.clone(), 290, 700));
        threads.push(prepared::<EdwardsAffine>(ctx.clone(), barrier.clone(), 60, 710));
        threads.push(prepared::<G1Affine>(ctx.clone(), barrier.clone(), 150, 720));
        let cases: Vec<Case<G1Affine>> = [130, 20, 64].iter().map(|&n| Case::new(n, 730 + n as u64)).collect();
        threads.push(thread::spawn(move || {
            barrier.wait();
            for (i, case) in cases.iter().enumerate() {
                case.check(&ctx, &format!("bls12-377 thread call {i}"));
            }
        }));
        join_all_threads(threads);
    });
}

/// A minimal `join_all`: polls every future on the current thread until all are ready.
fn join_all<'a, T: 'a>(futures: Vec<Pin<Box<dyn Future<Output = T> + 'a>>>) -> impl Future<Output = Vec<T>> + 'a {
    let mut pending: Vec<Option<_>> = futures.into_iter().map(Some).collect();
    let mut outputs: Vec<Option<T>> = pending.iter().map(|_| None).collect();
    std::future::poll_fn(move |cx| {
        for (slot, output) in pending.iter_mut().zip(outputs.iter_mut()) {
            if let Some(future) = slot {
                if let Poll::Ready(value) = future.as_mut().poll(cx) {
                    *output = Some(value);
                    *slot = None;
                }
            }
        }
        if pending.iter().all(Option::is_none) {
            Poll::Ready(outputs.iter_mut().map(|o| o.take().expect("ready")).collect())
        } else {
            Poll::Pending
        }
    })
}

/// Several `msm` futures on one context, created together and polled together on one thread
/// (as JS promises are), each get their own result, sizes rising and falling.
#[test]
fn futures_joined_on_one_thread_each_get_their_own_result() {
    let Some(ctx) = fresh_context() else { return };
    with_watchdog("futures joined on one thread", move || {
        let cases: Vec<Case<EdwardsAffine>> =
            [0, 1, 50, 300, 120, 7].iter().enumerate().map(|(i, &n)| Case::new(n, 200 + i as u64)).collect();
        let futures = cases
            .iter()
            .map(|case| Box::pin(ctx.msm(&case.points, &case.scalars)) as Pin<Box<dyn Future<Output = _> + '_>>)
            .collect();
        let results = pollster::block_on(join_all(futures));
        for (case, got) in cases.iter().zip(results) {
            assert_eq!(got, Ok(case.expected), "joined future, n = {}", case.points.len());
        }
    });
}

/// After `lose_device_for_tests`, every call returns `DeviceLost` at once, whatever it would have
/// done first: compile a curve never used, grow the workspace, reuse it, or nothing (n = 0).
/// A new context then works.
#[test]
fn a_lost_device_gives_device_lost_and_a_new_context_works() {
    let Some(ctx) = fresh_context() else { return };
    with_watchdog("device loss", move || {
        let small = Case::<EdwardsAffine>::new(50, 300);
        small.check(&ctx, "before the loss");
        ctx.lose_device_for_tests();
        let bls = Case::<G1Affine>::new(10, 301);
        let large = Case::<EdwardsAffine>::new(300, 302);
        use pollster::block_on;
        assert_lost_promptly("bls12-377, never compiled", || block_on(ctx.msm(&bls.points, &bls.scalars)));
        assert_lost_promptly("larger input", || block_on(ctx.msm(&large.points, &large.scalars)));
        assert_lost_promptly("same input again", || block_on(ctx.msm(&small.points, &small.scalars)));
        assert_lost_promptly("no points", || block_on(ctx.msm::<EdwardsAffine>(&[], &[])));
        ctx.lose_device_for_tests(); // twice is harmless
        assert_lost(pollster::block_on(ctx.msm(&small.points, &small.scalars)), "after a second loss");
        drop(ctx);

        let fresh = pollster::block_on(MsmContext::new()).expect("a new context after the loss");
        small.check(&fresh, "new context after the loss");
        large.check(&fresh, "new context after the loss");
    });
}

/// Calls running on three threads when the device is lost each end promptly with their right
/// result or `DeviceLost` (never another error, a wrong result, a hang or a panic); every call
/// started after the loss returns `DeviceLost`.
#[test]
fn calls_in_flight_when_the_device_is_lost_end_with_their_result_or_device_lost() {
    let Some(ctx) = fresh_context() else { return };
    let ctx = Arc::new(ctx);
    with_watchdog("device loss with calls in flight", move || {
        let cases: Arc<Vec<Case<EdwardsAffine>>> =
            Arc::new([300, 120, 260, 30].iter().enumerate().map(|(i, &n)| Case::new(n, 400 + i as u64)).collect());
        cases[0].check(&ctx, "warm-up");
        let lost = Arc::new(AtomicBool::new(false));
        let calls_done = Arc::new(AtomicUsize::new(0));
        let lost_in_flight = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..3)
            .map(|t| {
                let (ctx, cases, lost, calls_done, lost_in_flight) =
                    (ctx.clone(), cases.clone(), lost.clone(), calls_done.clone(), lost_in_flight.clone());
                thread::spawn(move || {
                    let mut after_loss = 0;
                    for i in 0..10_000 {
                        let case = &cases[(t + i) % cases.len()];
                        let started_after_loss = lost.load(Ordering::SeqCst);
                        let started = Instant::now();
                        let result = pollster::block_on(ctx.msm(&case.points, &case.scalars));
                        calls_done.fetch_add(1, Ordering::SeqCst);
                        match result {
                            Ok(got) if !started_after_loss => assert_eq!(got, case.expected, "thread {t} call {i}"),
                            Err(MsmError::DeviceLost(_)) if !started_after_loss => {
                                lost_in_flight.fetch_add(1, Ordering::SeqCst);
                            }
                            result => {
                                let when = if started_after_loss { "after" } else { "before" };
                                assert_lost(result, &format!("thread {t} call {i}, started {when} the loss"))
                            }
                        }
                        if started_after_loss {
                            assert!(started.elapsed() < PROMPT, "thread {t}: DeviceLost took {:?}", started.elapsed());
                            after_loss += 1;
                            if after_loss == 3 {
                                return;
                            }
                        }
                    }
                    panic!("thread {t}: the device was never lost");
                })
            })
            .collect();
        // Lose the device once the threads are well into their calls.
        while calls_done.load(Ordering::SeqCst) < 6 {
            thread::sleep(Duration::from_millis(1));
        }
        ctx.lose_device_for_tests();
        lost.store(true, Ordering::SeqCst);
        assert_lost(pollster::block_on(ctx.msm(&cases[1].points, &cases[1].scalars)), "right after the loss");
        join_all_threads(threads);
        eprintln!("calls in flight that ended with DeviceLost: {}", lost_in_flight.load(Ordering::SeqCst));
    });
}

/// The free `msm` on the shared default context: right from several threads at once on first
/// use, and right again after the default context's device is lost (it replaces itself), while
/// the lost context itself keeps returning `DeviceLost`.
#[test]
fn the_default_context_replaces_itself_after_a_loss() {
    if webgpu_msm::testing::shared_context().is_none() {
        return;
    }
    with_watchdog("default context", || {
        let cases: Arc<Vec<Case<EdwardsAffine>>> =
            Arc::new([20, 90, 200].iter().enumerate().map(|(i, &n)| Case::new(n, 500 + i as u64)).collect());
        let threads = (0..3)
            .map(|t| {
                let cases = cases.clone();
                thread::spawn(move || {
                    let case = &cases[t];
                    let got = pollster::block_on(webgpu_msm::msm(&case.points, &case.scalars));
                    assert_eq!(got, Ok(case.expected), "free msm on thread {t}");
                })
            })
            .collect();
        join_all_threads(threads);

        let old = pollster::block_on(MsmContext::default_for_tests()).expect("default context");
        old.lose_device_for_tests();
        for case in cases.iter() {
            let got = pollster::block_on(webgpu_msm::msm(&case.points, &case.scalars));
            assert_eq!(got, Ok(case.expected), "free msm after the default device was lost");
        }
        let new = pollster::block_on(MsmContext::default_for_tests()).expect("default context");
        assert!(!Arc::ptr_eq(&old, &new), "the lost default context must be replaced");
        assert_lost(pollster::block_on(old.msm(&cases[0].points, &cases[0].scalars)), "the old default context");
    });
}
