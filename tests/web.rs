//! Browser tests: the JS API (`webgpu_msm::wasm`) in headless Chromium with WebGPU on
//! SwiftShader, checked against arkworks compiled into the same WASM module.
//! Run with `bash scripts/test-web.sh`.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use webgpu_msm::wasm::{arkworks_msm, curves, msm, random_inputs, JsMsmContext};

#[path = "support/curve_names.rs"]
mod curve_names;
use curve_names::DOCUMENTED_NAMES;

wasm_bindgen_test_configure!(run_in_browser);

/// The curves of this build, as the JS API lists them.
fn all_curves() -> Vec<String> {
    curves().iter().map(|c| c.as_string().expect("curve names are strings")).collect()
}

/// The curves the loops below run: one of each family the kernels have, twisted Edwards
/// (ed-on-bls12-377) and short Weierstrass (bn254, which snarkjs' proofs use). Every compile on
/// SwiftShader takes minutes, and the other curves run their JS API in Chromium elsewhere:
/// bls12-377 in the Web Worker and demo page steps, bls12-381's G1 in the Node lane's snarkjs
/// proofs on the same Dawn and SwiftShader, every G1 curve in Deno, and every group natively
/// (`tests/msm.rs`). A G2 group's 13-bit Fp2 pipelines take longer still; bn254-g2 runs in
/// the Node lane's Groth16 proofs.
fn tested_curves() -> Vec<String> {
    all_curves().into_iter().filter(|c| ["ed-on-bls12-377", "bn254"].contains(&c.as_str())).collect()
}

#[wasm_bindgen_test]
fn curves_lists_every_curve_of_the_build() {
    assert_eq!(all_curves(), DOCUMENTED_NAMES);
}

fn inputs(curve: &str, n: usize, seed: u64) -> (Vec<u8>, Vec<u8>) {
    let pair: Array = random_inputs(curve, n, seed).expect("random inputs");
    let bytes = |i: u32| pair.get(i).dyn_into::<Uint8Array>().expect("Uint8Array").to_vec();
    (bytes(0), bytes(1))
}

/// A buffer as the JS API takes it.
fn bytes(buffer: &[u8]) -> JsValue {
    Uint8Array::from(buffer).into()
}

fn reference(curve: &str, points: &[u8], scalars: &[u8]) -> Vec<u8> {
    arkworks_msm(curve, points, scalars).expect("arkworks").to_vec()
}

thread_local! {
    static SHARED: RefCell<Option<Rc<JsMsmContext>>> = const { RefCell::new(None) };
}

/// One context for the tests that loop over curves: each context compiles a curve's pipelines
/// on its first use, which takes up to two minutes a curve on SwiftShader. Tests that need a
/// context of their own (a lost device, calls racing a compile) create one.
async fn shared_context() -> Rc<JsMsmContext> {
    if let Some(ctx) = SHARED.with(|c| c.borrow().clone()) {
        return ctx;
    }
    let ctx = Rc::new(JsMsmContext::create(None).await.unwrap_or_else(|e| panic!("WebGPU context: {e:?}")));
    SHARED.with(|c| c.borrow_mut().get_or_insert(ctx).clone())
}

/// The bytes of a resolved promise, or the message of its rejection.
async fn settled(promise: Promise) -> Result<Vec<u8>, String> {
    match JsFuture::from(promise).await {
        Ok(value) => Ok(value.dyn_into::<Uint8Array>().expect("Uint8Array").to_vec()),
        Err(e) => Err(e.dyn_into::<js_sys::Error>().map(|e| String::from(e.message())).unwrap_or_default()),
    }
}

/// `msm` on the shared context.
async fn gpu_msm(curve: &str, points: &[u8], scalars: &[u8]) -> Result<Vec<u8>, String> {
    settled(shared_context().await.msm(curve.into(), bytes(points), bytes(scalars), None)).await
}

/// `msm` on the shared context, or (`on_context` false) the top-level `msm`, which creates a
/// context of its own on first use.
async fn msm_on(on_context: bool, curve: &str, points: &[u8], scalars: &[u8]) -> Result<Vec<u8>, String> {
    match on_context {
        true => gpu_msm(curve, points, scalars).await,
        false => settled(msm(curve.into(), bytes(points), bytes(scalars), None)).await,
    }
}

#[wasm_bindgen_test]
async fn context_runs_on_browser_webgpu() {
    let ctx = shared_context().await;
    assert_eq!(ctx.backend(), "BrowserWebGpu", "the result must come from WebGPU, not a CPU path");
    assert!(!ctx.adapter_info().trim_matches(|c| c == ' ' || c == '/').is_empty());
    let (points, scalars) = inputs("ed-on-bls12-377", 20, 1);
    let got =
        JsFuture::from(ctx.msm("ed-on-bls12-377".into(), bytes(&points), bytes(&scalars), None)).await.expect("msm");
    assert_eq!(got.dyn_into::<Uint8Array>().expect("bytes").to_vec(), reference("ed-on-bls12-377", &points, &scalars));
}

#[wasm_bindgen_test]
async fn msm_matches_arkworks_at_several_sizes() {
    for curve in &tested_curves() {
        for (n, seed) in [(0, 2), (1, 3), (33, 4), (300, 5)] {
            let (points, scalars) = inputs(curve, n, seed);
            let got = gpu_msm(curve, &points, &scalars).await.unwrap_or_else(|e| panic!("{curve} n={n}: {e}"));
            assert_eq!(got, reference(curve, &points, &scalars), "{curve} n = {n}");
        }
    }
}

#[wasm_bindgen_test]
async fn msm_edge_cases_match_arkworks() {
    for curve in &tested_curves() {
        let (mut points, mut scalars) = inputs(curve, 40, 6);
        let point_size = points.len() / 40;
        // Scalars 2^256 − 1 and 0, repeated points, identity points.
        scalars[..32].fill(0xff);
        scalars[32..64].fill(0);
        let first = points[..point_size].to_vec();
        points[point_size..2 * point_size].copy_from_slice(&first);
        let identity = reference(curve, &[], &[]);
        points[2 * point_size..3 * point_size].copy_from_slice(&identity);
        let got = gpu_msm(curve, &points, &scalars).await.unwrap_or_else(|e| panic!("{curve}: {e}"));
        assert_eq!(got, reference(curve, &points, &scalars), "{curve} edge cases");
    }
}

#[wasm_bindgen_test]
async fn bad_input_rejects_with_a_named_error() {
    let curve = "ed-on-bls12-377";
    let (points, scalars) = inputs(curve, 2, 7);
    let expect = |result: Result<Vec<u8>, String>, needle: &str| {
        let message = result.expect_err("bad input must reject");
        assert!(message.contains(needle), "{message:?} should mention {needle:?}");
    };
    // The top-level function, then a context: the same errors.
    for on_context in [false, true] {
        expect(msm_on(on_context, "bn255", &points, &scalars).await, "unknown curve");
        expect(msm_on(on_context, curve, &points[..63], &scalars[..32]).await, "points buffer of 63 bytes");
        expect(msm_on(on_context, curve, &points, &scalars[..33]).await, "scalars buffer of 33 bytes");
        expect(msm_on(on_context, curve, &points, &scalars[..32]).await, "length mismatch");
        let mut out_of_range = points.clone();
        out_of_range[..32].fill(0xff);
        expect(
            msm_on(on_context, curve, &out_of_range, &scalars).await,
            "point 0: coordinate is not below the field modulus",
        );
        let mut off_curve = points.clone();
        off_curve[64] ^= 1;
        expect(msm_on(on_context, curve, &off_curve, &scalars).await, "point 1 is not on the curve");
    }
    // Every curve's inputs are validated the same way, in its own point size.
    for curve in &tested_curves() {
        let (points, scalars) = inputs(curve, 2, 8);
        let size = points.len() / 2;
        let short = format!("points buffer of {} bytes", 2 * size - 1);
        expect(gpu_msm(curve, &points[..2 * size - 1], &scalars).await, &short);
        let mut off_curve = points.clone();
        off_curve[size] ^= 1;
        expect(gpu_msm(curve, &off_curve, &scalars).await, "point 1 is not on the curve");
    }
}

/// Prepared bases in JS: two scalar vectors over the same prepared points, both at once, and a
/// wrong-length scalars buffer rejected with its error.
#[wasm_bindgen_test]
async fn prepared_bases_match_arkworks() {
    let ctx = shared_context().await;
    for curve in &tested_curves() {
        let curve = curve.as_str();
        let (points, _) = inputs(curve, 50, 11);
        let bases = JsFuture::from(ctx.prepare(curve.into(), points.clone(), None)).await.expect("prepare");
        assert_eq!(js_sys::Reflect::get(&bases, &"length".into()).expect("length").as_f64(), Some(50.0));
        let mut sets = Vec::new();
        for seed in [12, 13] {
            let (_, scalars) = inputs(curve, 50, seed);
            let got = JsFuture::from(ctx.msm(curve.into(), bases.clone(), bytes(&scalars), None)).await.expect("msm");
            assert_eq!(got.dyn_into::<Uint8Array>().expect("bytes").to_vec(), reference(curve, &points, &scalars));
            sets.push(scalars);
        }
        let batch: Array = sets.iter().map(|set| bytes(set)).collect();
        let got: Array = JsFuture::from(ctx.msm(curve.into(), bases.clone(), batch.into(), None))
            .await
            .expect("batch")
            .dyn_into()
            .expect("an array of results");
        for (i, set) in sets.iter().enumerate() {
            let result = got.get(i as u32).dyn_into::<Uint8Array>().expect("bytes").to_vec();
            assert_eq!(result, reference(curve, &points, set), "set {i}");
        }
        let error = JsFuture::from(ctx.msm(curve.into(), bases.clone(), bytes(&[0; 31]), None)).await;
        let message = rejection_message(error.expect_err("bad length"));
        assert!(message.contains("scalars"), "{message}");
    }
}

/// The message of a rejected promise's `Error`.
fn rejection_message(e: wasm_bindgen::JsValue) -> String {
    e.dyn_into::<js_sys::Error>().map(|e| String::from(e.message())).unwrap_or_else(|e| format!("{e:?}"))
}

#[wasm_bindgen_test]
async fn promises_in_flight_on_one_context_each_get_their_own_result() {
    let ctx = JsMsmContext::create(None).await.unwrap_or_else(|e| panic!("WebGPU context: {e:?}"));
    // Rising and falling sizes, so the workspace grows while other calls wait for it, and the
    // other curve compiling meanwhile.
    let calls: Vec<(&str, usize)> = vec![
        ("ed-on-bls12-377", 5),
        ("ed-on-bls12-377", 200),
        ("bn254", 12),
        ("ed-on-bls12-377", 0),
        ("ed-on-bls12-377", 60),
        ("ed-on-bls12-377", 300),
        ("ed-on-bls12-377", 1),
    ];
    let inputs: Vec<(Vec<u8>, Vec<u8>)> =
        calls.iter().enumerate().map(|(i, &(curve, n))| inputs(curve, n, 100 + i as u64)).collect();
    let promises: Array = calls
        .iter()
        .zip(&inputs)
        .map(|(&(curve, _), (points, scalars))| ctx.msm(curve.into(), bytes(points), bytes(scalars), None))
        .collect();
    let results: Array = JsFuture::from(Promise::all(&promises))
        .await
        .unwrap_or_else(|e| panic!("msm: {}", rejection_message(e)))
        .dyn_into()
        .expect("array");
    assert_eq!(results.length() as usize, calls.len());
    for (i, (&(curve, n), (points, scalars))) in calls.iter().zip(&inputs).enumerate() {
        let got = results.get(i as u32).dyn_into::<Uint8Array>().expect("Uint8Array").to_vec();
        assert_eq!(got, reference(curve, points, scalars), "promise {i}: {curve} n = {n}");
    }
}

/// Promises on one curve started together (more than the curve's two workspaces) give the
/// results of arkworks, as the same calls one after another do; both times are logged (see
/// them with `bash scripts/test-web.sh overlapping -- --nocapture`).
#[wasm_bindgen_test]
async fn overlapping_promises_give_the_results_of_calls_one_after_another() {
    let (curve, log_size, k) = ("ed-on-bls12-377", 14, 4);
    let ctx = shared_context().await;
    let inputs: Vec<(Vec<u8>, Vec<u8>)> = (0..k).map(|i| inputs(curve, 1 << log_size, 900 + i as u64)).collect();
    let expected: Vec<Vec<u8>> = inputs.iter().map(|(p, s)| reference(curve, p, s)).collect();
    let start = |i: usize| ctx.msm(curve.into(), bytes(&inputs[i].0), bytes(&inputs[i].1), None);
    let bytes = |value: wasm_bindgen::JsValue| value.dyn_into::<Uint8Array>().expect("Uint8Array").to_vec();
    let at_once = || async {
        let promises: Array = (0..k).map(start).collect();
        let results: Array = JsFuture::from(Promise::all(&promises))
            .await
            .unwrap_or_else(|e| panic!("msm: {}", rejection_message(e)))
            .dyn_into()
            .expect("array");
        results.iter().map(bytes).collect::<Vec<_>>()
    };
    assert_eq!(at_once().await, expected, "warm-up: compiles and allocates the workspaces");
    let started = js_sys::Date::now();
    let mut one_after_another = Vec::new();
    for i in 0..k {
        let result = JsFuture::from(start(i)).await.unwrap_or_else(|e| panic!("msm: {}", rejection_message(e)));
        one_after_another.push(bytes(result));
    }
    let sequential_ms = js_sys::Date::now() - started;
    let started = js_sys::Date::now();
    let overlapped = at_once().await;
    let overlapped_ms = js_sys::Date::now() - started;
    assert_eq!(one_after_another, expected, "one after another");
    assert_eq!(overlapped, expected, "at once");
    console_log!(
        "{curve} 2^{log_size}, {k} calls: one after another {sequential_ms:.0} ms, at once {overlapped_ms:.0} ms ({:.2})",
        overlapped_ms / sequential_ms
    );
}

#[wasm_bindgen_test]
async fn a_lost_device_rejects_with_device_lost_and_a_new_context_works() {
    let curve = "ed-on-bls12-377";
    let ctx = JsMsmContext::create(None).await.unwrap_or_else(|e| panic!("WebGPU context: {e:?}"));
    let (points, scalars) = inputs(curve, 40, 9);
    let expected = reference(curve, &points, &scalars);
    let call = |ctx: &JsMsmContext| JsFuture::from(ctx.msm(curve.into(), bytes(&points), bytes(&scalars), None));
    let got = call(&ctx).await.unwrap_or_else(|e| panic!("msm before the loss: {}", rejection_message(e)));
    assert_eq!(got.dyn_into::<Uint8Array>().expect("bytes").to_vec(), expected);

    // One call in flight (started, then a turn of the event loop), one started after the loss.
    let in_flight = call(&ctx);
    JsFuture::from(Promise::resolve(&wasm_bindgen::JsValue::NULL)).await.expect("resolved");
    ctx.lose_device_for_tests();
    let after = call(&ctx);
    match in_flight.await {
        Ok(value) => assert_eq!(value.dyn_into::<Uint8Array>().expect("bytes").to_vec(), expected),
        Err(e) => {
            let message = rejection_message(e);
            assert!(message.contains("device lost"), "in flight: {message:?}");
        }
    }
    let message = rejection_message(after.await.expect_err("msm on a lost device must reject"));
    assert!(message.contains("GPU device lost"), "{message:?}");
    let (bls_points, bls_scalars) = inputs("bls12-377", 3, 10);
    let never_compiled =
        JsFuture::from(ctx.msm("bls12-377".into(), bytes(&bls_points), bytes(&bls_scalars), None)).await;
    let message = rejection_message(never_compiled.expect_err("a curve never compiled rejects too"));
    assert!(message.contains("GPU device lost"), "{message:?}");

    let fresh = JsMsmContext::create(None).await.unwrap_or_else(|e| panic!("a new context after the loss: {e:?}"));
    let got = call(&fresh).await.unwrap_or_else(|e| panic!("msm on the new context: {}", rejection_message(e)));
    assert_eq!(got.dyn_into::<Uint8Array>().expect("bytes").to_vec(), expected);
}
