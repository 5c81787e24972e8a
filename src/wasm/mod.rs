//! The JavaScript API (wasm-bindgen), compiled only for `wasm32`. It is a thin layer over
//! [`crate::MsmContext::msm_bytes`]: the encodings and every check live in [`crate::bytes`].
//!
//! ```ts
//! type Curve = "bls12-377" | "ed-on-bls12-377" | "bn254" | "bls12-381"; // this build's curves
//! export function curves(): Curve[];
//! export function msm(curve: Curve, points: Uint8Array, scalars: Uint8Array, options?: MsmOptions): Promise<Uint8Array>;
//! export class MsmContext {
//!   static create(): Promise<MsmContext>;
//!   msm(curve: Curve, points: Uint8Array, scalars: Uint8Array, options?: MsmOptions): Promise<Uint8Array>;
//!   msmBatch(curve: Curve, points: Uint8Array, sets: Uint8Array[]): Promise<Uint8Array[]>;
//!   prepare(curve: Curve, points: Uint8Array, options?: PrepareOptions): Promise<PreparedBases>;
//!   kernels(curve: Curve): Promise<Kernels>; // { limbBits, batched, accumulation }
//!   readonly adapterInfo: string;
//!   readonly backend: string;
//!   free(): void;
//! }
//! export class PreparedBases {
//!   msm(scalars: Uint8Array): Promise<Uint8Array>; // fewer scalars: the first bases
//!   msmBatch(sets: Uint8Array[]): Promise<Uint8Array[]>;
//!   readonly length: number;
//!   readonly gpuBytes: number;
//!   free(): void;
//! }
//! export class BaseCache { // bases recognised by content across calls (crate::BaseCache)
//!   constructor(context: MsmContext, options?: { maxGpuBytes?: number });
//!   msm(curve: Curve, points: Uint8Array, scalars: Uint8Array, options?: MsmOptions): Promise<Uint8Array>;
//!   stats(): CacheStats; // { hits, uploads, evictions, sets, gpuBytes }
//!   clear(): void;
//!   free(): void;
//! }
//! ```
//! With the cargo feature `demo` (the demo page, the browser tests and the Node/Deno tests build
//! with it; the package users install does not) also `randomInputs` and `arkworksMsm`
//! ([`demo`]), which ship arkworks' own MSM in the module.

use std::rc::Rc;

use js_sys::{Array, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::bytes::{check_lengths_of, PointForm, PreparedBytes};
use crate::curve::CurveId;
use crate::MsmError;

#[cfg(feature = "demo")]
pub mod demo;
#[cfg(feature = "demo")]
pub use demo::{arkworks_msm, random_inputs};

// Each curve of the registry adds its name to `CurveNames` (src/curve/registry.rs).
#[wasm_bindgen(typescript_custom_section)]
const CURVE_TYPE: &str = r#"
/** The curves this build of the package supports. */
export type Curve = keyof CurveNames;
/** The kernels a curve runs on a device (`MsmContext.kernels`). */
export interface Kernels {
  /** Bits per limb of field elements: 13, or 32 with 64-bit products (native devices only). */
  limbBits: 13 | 32;
  /** Whether independent products advance together (software GPUs) or one after another. */
  batched: boolean;
  /** How buckets are accumulated. */
  accumulation: "projective" | "edwards" | "edwards-affine";
}
/**
 * How a points buffer writes coordinates: "canonical" integers (the default) or "montgomery",
 * each component as a·R mod p with R = 2^256 (256-bit fields) or 2^384 (384-bit fields), as
 * arkworks and snarkjs' ffjavascript store them. Results come back in the same form.
 */
export type PointForm = "canonical" | "montgomery";
/** Options of an MSM over a points buffer. */
export interface MsmOptions {
  pointForm?: PointForm;
}
/** What a `BaseCache` has done and holds. */
export interface CacheStats {
  /** MSMs that ran on a cached set. */
  hits: number;
  /** MSMs that uploaded and prepared their bases. */
  uploads: number;
  /** Sets dropped for the budget or replaced by a longer set. */
  evictions: number;
  /** Sets held now. */
  sets: number;
  /** GPU bytes the sets hold now. */
  gpuBytes: number;
}
/** How `MsmContext.prepare` keeps bases on the GPU. */
export interface PrepareOptions {
  /** The points' coordinate form; MSMs over the bases return results in it. */
  pointForm?: PointForm;
  /**
   * Precompute factor F, 1 (default) to 16: each base is stored with F − 1 multiples, so F of
   * a scalar's windows share one set of buckets (F times the points' GPU memory).
   */
  precomputeFactor?: number;
}
"#;

/// The names of the curves this build supports, in registry order.
#[wasm_bindgen(unchecked_return_type = "Curve[]")]
pub fn curves() -> Array {
    CurveId::ALL.iter().map(|c| JsValue::from_str(c.name())).collect()
}

fn js_error(e: MsmError) -> JsValue {
    JsError::new(&e.to_string()).into()
}

/// A WebGPU device with compiled pipelines; create once, call `msm` many times.
#[wasm_bindgen(js_name = MsmContext)]
pub struct JsMsmContext {
    inner: Rc<crate::MsmContext>,
}

#[wasm_bindgen(js_class = MsmContext)]
impl JsMsmContext {
    /// Requests the adapter and device once. Rejects with "WebGPU unavailable: …" without WebGPU.
    #[wasm_bindgen(unchecked_return_type = "MsmContext")]
    pub async fn create() -> Result<JsMsmContext, JsValue> {
        let inner = Rc::new(crate::MsmContext::new().await.map_err(js_error)?);
        Ok(JsMsmContext { inner })
    }

    /// Σ kᵢ·Pᵢ; see the crate README for the byte encodings. `options.pointForm`: the
    /// points' coordinate form, which the result takes too.
    #[wasm_bindgen(unchecked_return_type = "Promise<Uint8Array>")]
    pub fn msm(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Curve")] curve: String,
        points: Vec<u8>,
        scalars: Vec<u8>,
        #[wasm_bindgen(unchecked_param_type = "MsmOptions")] options: Option<js_sys::Object>,
    ) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let form = point_form(options.as_ref())?;
            run_msm(&inner, &curve, &points, &scalars, form).await
        })
    }

    /// One MSM per scalars buffer of `sets` over the same `points`, computed together (one GPU
    /// submission and readback per pass for all of them); one result per set, `[]` for no sets.
    /// Rejects before any GPU work on a set that is not a `Uint8Array`, has a bad length, or
    /// holds another number of scalars than there are points (naming the set).
    #[wasm_bindgen(js_name = msmBatch, unchecked_return_type = "Promise<Uint8Array[]>")]
    pub fn msm_batch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Curve")] curve: String,
        points: Vec<u8>,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] sets: JsValue,
    ) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let curve = curve.parse().map_err(js_error)?;
            let sets = scalar_sets(&sets)?;
            let sets: Vec<&[u8]> = sets.iter().map(Vec::as_slice).collect();
            results(inner.msm_bytes_batch(curve, &points, &sets).await.map_err(js_error)?)
        })
    }

    /// Uploads and converts `points` once; the returned bases take any number of `msm(scalars)`
    /// calls. `options.precomputeFactor` stores multiples of each base
    /// ([`crate::PrepareOptions`]). Rejects on bad points (the same errors as `msm`) and on a
    /// factor that is not an integer from 1 to 16.
    #[wasm_bindgen(unchecked_return_type = "Promise<PreparedBases>")]
    pub fn prepare(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Curve")] curve: String,
        points: Vec<u8>,
        #[wasm_bindgen(unchecked_param_type = "PrepareOptions")] options: Option<js_sys::Object>,
    ) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let options = prepare_options(options)?;
            let curve = curve.parse().map_err(js_error)?;
            let bases = inner.prepare_bytes_with(curve, &points, options).await.map_err(js_error)?;
            Ok(JsPreparedBases { context: inner, bases: Rc::new(bases) }.into())
        })
    }

    /// The kernels `curve` runs on this device, chosen by calibration on its first use (which
    /// this call starts, compiling the curve's shaders): `{ limbBits: 13 | 32, batched: boolean,
    /// accumulation: "projective" | "edwards" | "edwards-affine" }`. Browsers lack 64-bit
    /// integers, so `limbBits` is 13; products are batched on software GPUs, one after another
    /// on hardware GPUs (the device profile's, [`crate::DeviceProfile::batch_products`]).
    #[wasm_bindgen(unchecked_return_type = "Promise<Kernels>")]
    pub fn kernels(&self, #[wasm_bindgen(unchecked_param_type = "Curve")] curve: String) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let kernels = inner.calibration_of(curve.parse().map_err(js_error)?).await.map_err(js_error)?.kernels;
            let object = js_sys::Object::new();
            Reflect::set(&object, &"limbBits".into(), &kernels.form.limb_bits().into())?;
            Reflect::set(&object, &"batched".into(), &kernels.form.batched().into())?;
            let accumulation = match kernels.accumulation {
                crate::step::Accumulation::Projective => "projective",
                crate::step::Accumulation::Edwards => "edwards",
                crate::step::Accumulation::EdwardsAffine => "edwards-affine",
            };
            Reflect::set(&object, &"accumulation".into(), &accumulation.into())?;
            Ok(object.into())
        })
    }

    /// Vendor / architecture / description of the adapter.
    #[wasm_bindgen(getter, js_name = adapterInfo)]
    pub fn adapter_info(&self) -> String {
        self.inner.gpu().description.clone()
    }

    /// The wgpu backend computing the results ("BrowserWebGpu" in a browser).
    #[wasm_bindgen(getter)]
    pub fn backend(&self) -> String {
        format!("{:?}", self.inner.adapter_info().backend)
    }

    /// Destroys the context's `GPUDevice`, as a GPU reset would lose it: later `msm` promises
    /// reject with "GPU device lost: …". For tests of device loss; not part of the API.
    #[cfg(feature = "test-hooks")]
    #[doc(hidden)]
    #[wasm_bindgen(js_name = loseDeviceForTests, skip_typescript)]
    pub fn lose_device_for_tests(&self) {
        self.inner.lose_device_for_tests();
    }
}

/// Points prepared on a context's GPU by `MsmContext.prepare`.
#[wasm_bindgen(js_name = PreparedBases)]
pub struct JsPreparedBases {
    context: Rc<crate::MsmContext>,
    bases: Rc<PreparedBytes>,
}

#[wasm_bindgen(js_class = PreparedBases)]
impl JsPreparedBases {
    /// Σ kᵢ·Pᵢ over these points; rejects on a scalars buffer of the wrong length.
    #[wasm_bindgen(unchecked_return_type = "Promise<Uint8Array>")]
    pub fn msm(&self, scalars: Vec<u8>) -> Promise {
        let (context, bases) = (self.context.clone(), self.bases.clone());
        future_to_promise(async move {
            let result = context.msm_prepared_bytes(&bases, &scalars).await.map_err(js_error)?;
            Ok(Uint8Array::from(result.as_slice()).into())
        })
    }

    /// One MSM per scalars buffer over these points, computed together as in
    /// `MsmContext.msmBatch`; one result per set.
    #[wasm_bindgen(js_name = msmBatch, unchecked_return_type = "Promise<Uint8Array[]>")]
    pub fn msm_batch(&self, #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] sets: JsValue) -> Promise {
        let (context, bases) = (self.context.clone(), self.bases.clone());
        future_to_promise(async move {
            let sets = scalar_sets(&sets)?;
            let sets: Vec<&[u8]> = sets.iter().map(Vec::as_slice).collect();
            results(context.msm_prepared_bytes_batch(&bases, &sets).await.map_err(js_error)?)
        })
    }

    /// Number of points.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.bases.len()
    }

    /// Bytes of GPU memory the points hold.
    #[wasm_bindgen(getter, js_name = gpuBytes)]
    pub fn gpu_bytes(&self) -> f64 {
        self.bases.gpu_bytes() as f64
    }
}

/// MSMs whose bases stay on the GPU between calls, recognised by their bytes
/// ([`crate::BaseCache`]): a prover that reads the same bases anew for every proof uploads them
/// once, and MSMs over their first points run on them too.
#[wasm_bindgen(js_name = BaseCache)]
pub struct JsBaseCache {
    context: Rc<crate::MsmContext>,
    cache: Rc<crate::BaseCache>,
}

#[wasm_bindgen(js_class = BaseCache)]
impl JsBaseCache {
    /// A cache over `context`'s device; `options.maxGpuBytes` bounds the GPU memory its sets
    /// hold (least recently used ones are dropped), unbounded when absent.
    #[wasm_bindgen(constructor)]
    pub fn new(
        context: &JsMsmContext,
        #[wasm_bindgen(unchecked_param_type = "{ maxGpuBytes?: number }")] options: Option<js_sys::Object>,
    ) -> Result<JsBaseCache, JsValue> {
        let mut budget = None;
        if let Some(options) = options {
            let bytes = Reflect::get(&options, &"maxGpuBytes".into())?;
            if !bytes.is_undefined() {
                let valid = bytes.as_f64().filter(|b| b.fract() == 0.0 && *b >= 0.0);
                budget = Some(valid.ok_or_else(|| JsError::new("maxGpuBytes must be a non-negative integer"))? as u64);
            }
        }
        Ok(JsBaseCache { context: context.inner.clone(), cache: Rc::new(crate::BaseCache::new(budget)) })
    }

    /// Σ kᵢ·Pᵢ as `MsmContext.msm` computes it, on cached bases where these points (or points
    /// they begin with) were seen before.
    #[wasm_bindgen(unchecked_return_type = "Promise<Uint8Array>")]
    pub fn msm(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Curve")] curve: String,
        points: Vec<u8>,
        scalars: Vec<u8>,
        #[wasm_bindgen(unchecked_param_type = "MsmOptions")] options: Option<js_sys::Object>,
    ) -> Promise {
        let (context, cache) = (self.context.clone(), self.cache.clone());
        future_to_promise(async move {
            let form = point_form(options.as_ref())?;
            let curve = curve.parse().map_err(js_error)?;
            let result = cache.msm_bytes(&context, curve, &points, &scalars, form).await.map_err(js_error)?;
            Ok(Uint8Array::from(result.as_slice()).into())
        })
    }

    /// What the cache has done and holds: `{ hits, uploads, evictions, sets, gpuBytes }`.
    #[wasm_bindgen(unchecked_return_type = "CacheStats")]
    pub fn stats(&self) -> Result<JsValue, JsValue> {
        let stats = self.cache.stats();
        let object = js_sys::Object::new();
        Reflect::set(&object, &"hits".into(), &(stats.hits as f64).into())?;
        Reflect::set(&object, &"uploads".into(), &(stats.uploads as f64).into())?;
        Reflect::set(&object, &"evictions".into(), &(stats.evictions as f64).into())?;
        Reflect::set(&object, &"sets".into(), &(stats.sets as f64).into())?;
        Reflect::set(&object, &"gpuBytes".into(), &(stats.gpu_bytes as f64).into())?;
        Ok(object.into())
    }

    /// Drops every cached set.
    pub fn clear(&self) {
        self.cache.clear();
    }
}

/// The scalars buffers of a batch, copied out of JS; rejects on anything but an array of
/// `Uint8Array`s.
fn scalar_sets(sets: &JsValue) -> Result<Vec<Vec<u8>>, JsValue> {
    if !Array::is_array(sets) {
        return Err(JsError::new("scalar sets must be an array of Uint8Array").into());
    }
    Array::from(sets)
        .iter()
        .enumerate()
        .map(|(i, set)| match set.dyn_into::<Uint8Array>() {
            Ok(bytes) => Ok(bytes.to_vec()),
            Err(_) => Err(JsError::new(&format!("scalar set {i} is not a Uint8Array")).into()),
        })
        .collect()
}

/// The options of `prepare`: `precomputeFactor` (an integer; its range is checked by
/// `prepare_bytes_with`), 1 when absent.
fn prepare_options(options: Option<js_sys::Object>) -> Result<crate::PrepareOptions, JsValue> {
    let mut parsed = crate::PrepareOptions::default();
    let Some(options) = options else { return Ok(parsed) };
    parsed.point_form = point_form(Some(&options))?;
    let factor = Reflect::get(&options, &"precomputeFactor".into())?;
    if !factor.is_undefined() {
        let integer = factor.as_f64().filter(|f| f.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(f));
        let factor = integer.ok_or_else(|| JsError::new("precomputeFactor must be an integer"))?;
        parsed.precompute_factor = factor as u32;
    }
    Ok(parsed)
}

/// `options.pointForm`: "canonical" (also when absent) or "montgomery".
fn point_form(options: Option<&js_sys::Object>) -> Result<PointForm, JsValue> {
    let Some(options) = options else { return Ok(PointForm::Canonical) };
    let form = Reflect::get(options, &"pointForm".into())?;
    match form.as_string().as_deref() {
        None if form.is_undefined() => Ok(PointForm::Canonical),
        Some("canonical") => Ok(PointForm::Canonical),
        Some("montgomery") => Ok(PointForm::Montgomery),
        _ => Err(JsError::new("pointForm must be \"canonical\" or \"montgomery\"").into()),
    }
}

/// Encoded points as a JS array of `Uint8Array`s.
fn results(points: Vec<Vec<u8>>) -> Result<JsValue, JsValue> {
    Ok(points.iter().map(|p| JsValue::from(Uint8Array::from(p.as_slice()))).collect::<Array>().into())
}

async fn run_msm(
    ctx: &crate::MsmContext,
    curve: &str,
    points: &[u8],
    scalars: &[u8],
    form: PointForm,
) -> Result<JsValue, JsValue> {
    let result = ctx.msm_bytes_with(curve.parse().map_err(js_error)?, points, scalars, form).await.map_err(js_error)?;
    Ok(Uint8Array::from(result.as_slice()).into())
}

/// Σ kᵢ·Pᵢ on a context created on first use and shared afterwards (`options` as for
/// `MsmContext.msm`).
#[wasm_bindgen(unchecked_return_type = "Promise<Uint8Array>")]
pub fn msm(
    #[wasm_bindgen(unchecked_param_type = "Curve")] curve: String,
    points: Vec<u8>,
    scalars: Vec<u8>,
    #[wasm_bindgen(unchecked_param_type = "MsmOptions")] options: Option<js_sys::Object>,
) -> Promise {
    future_to_promise(async move {
        let form = point_form(options.as_ref())?;
        // The curve name and the buffers' lengths are checked before touching WebGPU, so they
        // are reported as such everywhere; points are checked by the GPU.
        check_lengths_of(curve.parse().map_err(js_error)?, &points, &scalars).map_err(js_error)?;
        let ctx = crate::context::default_context().await.map_err(js_error)?;
        run_msm(&ctx, &curve, &points, &scalars, form).await
    })
}
