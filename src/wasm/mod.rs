//! The JavaScript API (wasm-bindgen), compiled only for `wasm32`: the Rust API's shape over
//! byte buffers. `MsmContext.msm` is [`crate::MsmContext::msm_bytes`], whose options are
//! [`crate::MsmConfig`]'s; the encodings and every check live in [`crate::bytes`].
//!
//! ```ts
//! type Curve = "bls12-377" | "ed-on-bls12-377" | "bn254" | "bls12-381" | "bn254-g2" | "bls12-381-g2"
//!   | "bls12-377-g2" | "grumpkin" | "pallas" | "vesta" | "secp256k1"; // this build's curves
//! export function curves(): Curve[];
//! export function msm(curve: Curve, points: Uint8Array, scalars: Uint8Array, options?: MsmOptions): Promise<Uint8Array>;
//! export function msm(curve: Curve, points: Uint8Array, scalars: Uint8Array[], options?: MsmOptions): Promise<Uint8Array[]>;
//! export class MsmContext {
//!   static create(options?: { maxGpuBytes?: number }): Promise<MsmContext>;
//!   // One scalars buffer: one result; an array of them (a batch): one result each.
//!   msm(curve: Curve, points: Uint8Array | PreparedBases, scalars: Uint8Array, options?: MsmOptions): Promise<Uint8Array>;
//!   msm(curve: Curve, points: Uint8Array | PreparedBases, scalars: Uint8Array[], options?: MsmOptions): Promise<Uint8Array[]>;
//!   prepare(curve: Curve, points: Uint8Array, options?: MsmOptions): Promise<PreparedBases>;
//!   warmUp(curve: Curve): Promise<Kernels>; // compiles a curve now; { limbBits, batched, accumulation }
//!   readonly adapterInfo: string;
//!   readonly backend: string;
//!   free(): void;
//! }
//! interface MsmOptions { pointForm?: "canonical" | "montgomery"; precomputeFactor?: number; checkSubgroup?: boolean; blind?: boolean; cache?: BaseCache; profile?: boolean }
//! export class PreparedBases { readonly curve: Curve; readonly length: number; readonly gpuBytes: number; free(): void }
//! export class BaseCache { // bases recognised by content across calls (crate::BaseCache)
//!   constructor(options?: { maxGpuBytes?: number });
//!   stats(): CacheStats; // { hits, uploads, evictions, sets, gpuBytes }
//!   clear(): void;
//!   free(): void;
//! }
//! ```
//! With the cargo feature `demo` (the demo page, the browser tests and the Node/Deno tests build
//! with it; the package users install does not) also `randomInputs` and `arkworksMsm`
//! ([`demo`]), which ship arkworks' own MSM in the module.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use js_sys::{Array, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::bytes::{check_lengths_of, PointForm, PreparedBytes};
use crate::curve::CurveId;
use crate::{Bases, MsmConfig, MsmError};

#[cfg(feature = "demo")]
pub mod demo;
#[cfg(feature = "demo")]
pub use demo::{arkworks_msm, random_inputs};

// Each curve of the registry adds its name to `CurveNames` (src/curve/registry.rs).
#[wasm_bindgen(typescript_custom_section)]
const CURVE_TYPE: &str = r#"
/** The curves this build of the package supports. */
export type Curve = keyof CurveNames;
/** The kernels a curve runs on a device (`MsmContext.warmUp`). */
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
/** How an MSM runs, or how `MsmContext.prepare` keeps bases (the Rust API's `MsmConfig`). */
export interface MsmOptions {
  /**
   * The points' coordinate form, which results take too. Read where points are uploaded:
   * prepared bases keep the form they were prepared with.
   */
  pointForm?: PointForm;
  /**
   * Precompute factor F, 1 (default) to 16: each base is stored with F − 1 multiples, so F of
   * a scalar's windows share one set of buckets (F times the points' GPU memory; MSMs over such
   * bases take all their scalars). Read where points are uploaded (`prepare`, or an MSM over
   * points, which prepares them for that call only).
   */
  precomputeFactor?: number;
  /**
   * Reject points outside the curve's prime-order group ("point i is not in the prime-order
   * subgroup"), checked on the GPU where points are uploaded (`prepare`, once; an MSM over
   * points, every call): about one scalar multiplication per point. Nothing runs on curves of
   * cofactor 1. Default false.
   */
  checkSubgroup?: boolean;
  /**
   * Witness-independent timing for prepared bases: each base gets a random blinding factor
   * (from `crypto.getRandomValues`) that the GPU adds to its scalar, and calls subtract their
   * sum, so a call's work does not depend on the scalars. Implies `checkSubgroup`; costs one
   * MSM at `prepare` and 32 bytes of GPU memory per base. Read where points are uploaded.
   */
  blind?: boolean;
  /**
   * Bases kept on the GPU across calls and recognised by their bytes: an MSM over points that
   * the cache holds (or that begin its points) uploads only scalars; other points are prepared
   * and kept there.
   */
  cache?: BaseCache;
  /**
   * Time every GPU step on its own (slower than a plain call: for finding where time goes). The
   * promise then resolves to a `ProfiledMsm`. One scalar set only.
   */
  profile?: boolean;
}
/** One timed step of a profiled MSM. */
export interface StepProfile {
  /** The step's shader entry point, or "upload" / "readback". */
  name: string;
  /** Milliseconds from the previous step's end to this one's. */
  ms: number;
  /** Field multiplications the cost model counts for the step. */
  fieldMuls: number;
}
/** A profiled MSM's result and where its time went (the Rust API's `Profile`). */
export interface ProfiledMsm {
  result: Uint8Array;
  /** Window width c, windows and points of the call's plan. */
  windowBits: number;
  windows: number;
  points: number;
  /** Upload, each GPU step in order, and readback. */
  steps: StepProfile[];
  /** Host milliseconds after the readback (decoding, window sums, Horner). */
  hostMs: number;
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
export interface MsmContext {
  /**
   * Σ kᵢ·Pᵢ over a points buffer (checked and converted on the GPU) or over bases prepared on
   * this context (fewer scalars than bases take the first bases). See the crate README for the
   * byte encodings. Rejects on an unknown curve, a buffer of the wrong length, counts that
   * differ, a bad point (naming it), bases of another curve or context, a lost device.
   */
  msm(curve: Curve, points: Uint8Array | PreparedBases, scalars: Uint8Array, options?: MsmOptions & { profile?: false }): Promise<Uint8Array>;
  /** The same, with every GPU step timed (`MsmOptions.profile`). */
  msm(curve: Curve, points: Uint8Array | PreparedBases, scalars: Uint8Array, options: MsmOptions & { profile: true }): Promise<ProfiledMsm>;
  /**
   * One MSM per scalars buffer over the same points, computed together (one GPU submission and
   * readback per pass for all of them): one result per set, `[]` for no sets. Rejects before
   * any GPU work on a set that is not a `Uint8Array`, has a bad length, or holds another number
   * of scalars than the others (naming the set).
   */
  msm(curve: Curve, points: Uint8Array | PreparedBases, scalars: Uint8Array[], options?: MsmOptions): Promise<Uint8Array[]>;
}
/**
 * Σ kᵢ·Pᵢ on a context created on first use and shared afterwards, as `MsmContext.msm` computes
 * it over points.
 */
export function msm(curve: Curve, points: Uint8Array, scalars: Uint8Array, options?: MsmOptions & { profile?: false }): Promise<Uint8Array>;
export function msm(curve: Curve, points: Uint8Array, scalars: Uint8Array, options: MsmOptions & { profile: true }): Promise<ProfiledMsm>;
export function msm(curve: Curve, points: Uint8Array, scalars: Uint8Array[], options?: MsmOptions): Promise<Uint8Array[]>;
"#;

/// The names of the curves this build supports, in registry order.
#[wasm_bindgen(unchecked_return_type = "Curve[]")]
pub fn curves() -> Array {
    CurveId::ALL.iter().map(|c| JsValue::from_str(c.name())).collect()
}

fn js_error(e: MsmError) -> JsValue {
    JsError::new(&e.to_string()).into()
}

fn type_error(message: &str) -> JsValue {
    JsError::new(message).into()
}

/// 32 bytes from the platform's cryptographic generator (`crypto.getRandomValues`: browsers,
/// Workers, Node.js, Deno).
fn random_seed() -> Result<[u8; 32], JsValue> {
    let crypto = Reflect::get(&js_sys::global(), &"crypto".into())?;
    let fill = match crypto.is_object() {
        true => Reflect::get(&crypto, &"getRandomValues".into())?.dyn_into::<js_sys::Function>().ok(),
        false => None,
    };
    let fill = fill.ok_or_else(|| type_error("blind needs crypto.getRandomValues, which this runtime lacks"))?;
    let bytes = Uint8Array::new_with_length(32);
    fill.call1(&crypto, &bytes)?;
    let mut seed = [0u8; 32];
    bytes.copy_to(&mut seed);
    Ok(seed)
}

/// `options.maxGpuBytes`: `None` when there are no options or it is absent, an error unless it
/// is a non-negative integer.
fn max_gpu_bytes(options: Option<&js_sys::Object>) -> Result<Option<u64>, JsValue> {
    let Some(options) = options else { return Ok(None) };
    let bytes = Reflect::get(options, &"maxGpuBytes".into())?;
    if bytes.is_undefined() {
        return Ok(None);
    }
    let valid = bytes.as_f64().filter(|b| b.fract() == 0.0 && *b >= 0.0);
    Ok(Some(valid.ok_or_else(|| type_error("maxGpuBytes must be a non-negative integer"))? as u64))
}

/// The name of the hidden getter through which calls find the Rust objects of the JS
/// `PreparedBases` and `BaseCache` they are given: wasm-bindgen hands a Rust object over from a
/// JS value only by taking it from JS, and these stay the caller's.
const HANDLE: &str = "__webgpuMsmHandle";

/// A Rust object that JS passes back by its handle.
#[derive(Clone)]
enum Handle {
    Bases(Weak<PreparedBytes>),
    Cache(Weak<crate::BaseCache>),
}

thread_local! {
    /// The live handles, by number, and the next number.
    static HANDLES: RefCell<(u32, HashMap<u32, Handle>)> = RefCell::new((0, HashMap::new()));
}

fn register(handle: Handle) -> u32 {
    HANDLES.with(|h| {
        let (next, handles) = &mut *h.borrow_mut();
        *next += 1;
        handles.insert(*next, handle);
        *next
    })
}

fn unregister(id: u32) {
    HANDLES.with(|h| h.borrow_mut().1.remove(&id));
}

/// The handle of `value`, if it is one of this module's objects that has one; an error if it
/// was freed.
fn handle_of(value: &JsValue) -> Result<Option<Handle>, JsValue> {
    if !value.is_object() {
        return Ok(None);
    }
    // The getter throws once the object is freed (its Rust side is gone).
    let id = Reflect::get(value, &HANDLE.into()).map_err(|_| type_error("the object was freed"))?;
    let Some(id) = id.as_f64() else { return Ok(None) };
    let handle = HANDLES.with(|h| h.borrow().1.get(&(id as u32)).cloned());
    handle.map(Some).ok_or_else(|| type_error("the object was freed"))
}

/// A WebGPU device with compiled pipelines; create once, call `msm` many times.
#[wasm_bindgen(js_name = MsmContext)]
pub struct JsMsmContext {
    inner: Rc<crate::MsmContext>,
}

#[wasm_bindgen(js_class = MsmContext)]
impl JsMsmContext {
    /// Requests the adapter and device once. Rejects with "WebGPU unavailable: …" without WebGPU.
    /// `options.maxGpuBytes` bounds the GPU memory each curve's calls keep: passes are sized to
    /// fit it (more, smaller passes), and a call whose smallest pass does not fit rejects with
    /// "a GPU memory budget of … bytes holds no pass …" ([`crate::ContextOptions::max_gpu_bytes`]).
    #[wasm_bindgen(unchecked_return_type = "MsmContext")]
    pub async fn create(
        #[wasm_bindgen(unchecked_optional_param_type = "{ maxGpuBytes?: number }")] options: Option<js_sys::Object>,
    ) -> Result<JsMsmContext, JsValue> {
        let max_gpu_bytes = max_gpu_bytes(options.as_ref())?;
        let context = crate::MsmContext::new().await.map_err(js_error)?;
        let options = crate::ContextOptions { max_gpu_bytes, ..context.options() };
        let inner = Rc::new(context.with_options(options).map_err(js_error)?);
        Ok(JsMsmContext { inner })
    }

    /// Σ kᵢ·Pᵢ over `points` (a `Uint8Array`, or a `PreparedBases` of this context) and
    /// `scalars` (a `Uint8Array`, or an array of them: one result each), as `options` say
    /// (`MsmOptions`: [`crate::MsmConfig`]). The typed signatures are in the TypeScript section
    /// above.
    #[wasm_bindgen(skip_typescript)]
    pub fn msm(&self, curve: String, points: JsValue, scalars: JsValue, options: Option<js_sys::Object>) -> Promise {
        let inner = self.inner.clone();
        msm_promise(async move { Ok(inner) }, curve, points, scalars, options, false)
    }

    /// Uploads and converts `points` once; the returned bases take any number of
    /// `msm(curve, bases, scalars)` calls on this context. `options.precomputeFactor` stores
    /// multiples of each base, `options.pointForm` is the points' form and their results'.
    /// Rejects on bad points (the same errors as `msm`) and on a factor that is not an integer
    /// from 1 to 16.
    #[wasm_bindgen(unchecked_return_type = "Promise<PreparedBases>")]
    pub fn prepare(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Curve")] curve: String,
        points: Vec<u8>,
        #[wasm_bindgen(unchecked_optional_param_type = "MsmOptions")] options: Option<js_sys::Object>,
    ) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let options = Options::parse(options.as_ref())?;
            let curve = curve.parse().map_err(js_error)?;
            let bases = inner.prepare_bytes(curve, &points, &options.config()).await.map_err(js_error)?;
            Ok(JsPreparedBases::new(bases).into())
        })
    }

    /// Compiles `curve`'s kernels now (at page load, say), so that its first `msm` does not
    /// wait for them, and resolves to the kernels it runs: `{ limbBits: 13 | 32, batched:
    /// boolean, accumulation: "projective" | "edwards" | "edwards-affine" }`. Browsers lack
    /// 64-bit integers, so `limbBits` is 13; products are batched on software GPUs, one after
    /// another on hardware GPUs (the device profile's, [`crate::DeviceProfile::batch_products`]).
    /// The Rust API's [`crate::MsmContext::warm_up`].
    #[wasm_bindgen(js_name = warmUp, unchecked_return_type = "Promise<Kernels>")]
    pub fn warm_up(&self, #[wasm_bindgen(unchecked_param_type = "Curve")] curve: String) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let kernels = inner.warm_up(curve.parse().map_err(js_error)?).await.map_err(js_error)?.kernels;
            let object = js_sys::Object::new();
            Reflect::set(&object, &"limbBits".into(), &kernels.form.limb_bits().into())?;
            Reflect::set(&object, &"batched".into(), &kernels.form.batched().into())?;
            let accumulation = match kernels.accumulation {
                crate::Accumulation::Projective => "projective",
                crate::Accumulation::Edwards => "edwards",
                crate::Accumulation::EdwardsAffine => "edwards-affine",
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
    /// reject with "GPU device lost: …". For tests of device loss (the demo build is the tests'
    /// build); not part of the API.
    #[cfg(feature = "demo")]
    #[doc(hidden)]
    #[wasm_bindgen(js_name = loseDeviceForTests, skip_typescript)]
    pub fn lose_device_for_tests(&self) {
        self.inner.gpu().destroy("lose_device_for_tests");
    }
}

/// Points prepared on a context's GPU by `MsmContext.prepare`.
#[wasm_bindgen(js_name = PreparedBases)]
pub struct JsPreparedBases {
    bases: Rc<PreparedBytes>,
    handle: u32,
}

impl JsPreparedBases {
    fn new(bases: PreparedBytes) -> Self {
        let bases = Rc::new(bases);
        let handle = register(Handle::Bases(Rc::downgrade(&bases)));
        JsPreparedBases { bases, handle }
    }
}

impl Drop for JsPreparedBases {
    fn drop(&mut self) {
        unregister(self.handle);
    }
}

#[wasm_bindgen(js_class = PreparedBases)]
impl JsPreparedBases {
    /// The curve of the points.
    #[wasm_bindgen(getter, unchecked_return_type = "Curve")]
    pub fn curve(&self) -> String {
        self.bases.curve().name().into()
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

    /// The number calls find these bases by.
    #[doc(hidden)]
    #[wasm_bindgen(getter = __webgpuMsmHandle, skip_typescript)]
    pub fn handle(&self) -> u32 {
        self.handle
    }
}

/// Bases kept on the GPU between calls and recognised by their bytes ([`crate::BaseCache`]),
/// for the MSMs given it in `options.cache`: a prover that reads the same bases anew for every
/// proof uploads them once, and MSMs over their first points run on them too.
#[wasm_bindgen(js_name = BaseCache)]
pub struct JsBaseCache {
    cache: Rc<crate::BaseCache>,
    handle: u32,
}

impl Drop for JsBaseCache {
    fn drop(&mut self) {
        unregister(self.handle);
    }
}

#[wasm_bindgen(js_class = BaseCache)]
impl JsBaseCache {
    /// An empty cache; `options.maxGpuBytes` bounds the GPU memory its sets hold (least
    /// recently used ones are dropped), unbounded when absent.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "{ maxGpuBytes?: number }")] options: Option<js_sys::Object>,
    ) -> Result<JsBaseCache, JsValue> {
        let cache = Rc::new(crate::BaseCache::new(max_gpu_bytes(options.as_ref())?));
        let handle = register(Handle::Cache(Rc::downgrade(&cache)));
        Ok(JsBaseCache { cache, handle })
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

    /// The number calls find this cache by.
    #[doc(hidden)]
    #[wasm_bindgen(getter = __webgpuMsmHandle, skip_typescript)]
    pub fn handle(&self) -> u32 {
        self.handle
    }
}

/// The bases of a call, out of JS: a points buffer (copied) or prepared bases.
enum JsBases {
    Points(Vec<u8>),
    Prepared(Rc<PreparedBytes>),
}

impl JsBases {
    fn from_js(value: &JsValue) -> Result<Self, JsValue> {
        if let Some(bytes) = value.dyn_ref::<Uint8Array>() {
            return Ok(JsBases::Points(bytes.to_vec()));
        }
        match handle_of(value)? {
            Some(Handle::Bases(bases)) => {
                bases.upgrade().map(JsBases::Prepared).ok_or_else(|| type_error("the bases were freed"))
            }
            _ => Err(type_error("points must be a Uint8Array or a PreparedBases")),
        }
    }

    fn as_bases(&self) -> Bases<'_, u8, PreparedBytes> {
        match self {
            JsBases::Points(points) => Bases::Points(points),
            JsBases::Prepared(bases) => Bases::Prepared(bases),
        }
    }
}

/// The scalars of a call, copied out of JS: one buffer, or (`true`) an array of them.
fn scalar_sets(scalars: &JsValue) -> Result<(Vec<Vec<u8>>, bool), JsValue> {
    if let Some(bytes) = scalars.dyn_ref::<Uint8Array>() {
        return Ok((vec![bytes.to_vec()], false));
    }
    if !Array::is_array(scalars) {
        return Err(type_error("scalars must be a Uint8Array or an array of Uint8Array"));
    }
    let sets = Array::from(scalars)
        .iter()
        .enumerate()
        .map(|(i, set)| match set.dyn_into::<Uint8Array>() {
            Ok(bytes) => Ok(bytes.to_vec()),
            Err(_) => Err(type_error(&format!("scalar set {i} is not a Uint8Array"))),
        })
        .collect::<Result<_, JsValue>>()?;
    Ok((sets, true))
}

/// `MsmOptions` out of JS: what [`MsmConfig`] holds, owned (the cache apart, which the config
/// borrows).
struct Options {
    config: MsmConfig<'static>,
    cache: Option<Rc<crate::BaseCache>>,
}

impl Options {
    /// `pointForm`: "canonical" (also when absent) or "montgomery"; `precomputeFactor`: an
    /// integer (its range is checked where it is used), 1 when absent; `checkSubgroup`: a
    /// boolean; `blind`: a boolean (a seed drawn here when true); `cache`: a `BaseCache`.
    fn parse(options: Option<&js_sys::Object>) -> Result<Self, JsValue> {
        let mut parsed = Options { config: MsmConfig::default(), cache: None };
        let Some(options) = options else { return Ok(parsed) };
        let form = Reflect::get(options, &"pointForm".into())?;
        parsed.config.point_form = match form.as_string().as_deref() {
            None if form.is_undefined() => PointForm::Canonical,
            Some("canonical") => PointForm::Canonical,
            Some("montgomery") => PointForm::Montgomery,
            _ => return Err(type_error("pointForm must be \"canonical\" or \"montgomery\"")),
        };
        let factor = Reflect::get(options, &"precomputeFactor".into())?;
        if !factor.is_undefined() {
            let integer = factor.as_f64().filter(|f| f.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(f));
            parsed.config.precompute_factor =
                integer.ok_or_else(|| type_error("precomputeFactor must be an integer"))? as u32;
        }
        let check = Reflect::get(options, &"checkSubgroup".into())?;
        if !check.is_undefined() {
            parsed.config.check_subgroup =
                check.as_bool().ok_or_else(|| type_error("checkSubgroup must be a boolean"))?;
        }
        let blind = Reflect::get(options, &"blind".into())?;
        if !blind.is_undefined() && blind.as_bool().ok_or_else(|| type_error("blind must be a boolean"))? {
            parsed.config.blinding = Some(random_seed()?);
        }
        let profile = Reflect::get(options, &"profile".into())?;
        if !profile.is_undefined() {
            parsed.config.profile = profile.as_bool().ok_or_else(|| type_error("profile must be a boolean"))?;
        }
        let cache = Reflect::get(options, &"cache".into())?;
        if !cache.is_undefined() {
            parsed.cache = match handle_of(&cache)? {
                Some(Handle::Cache(cache)) => Some(cache.upgrade().ok_or_else(|| type_error("the cache was freed"))?),
                _ => return Err(type_error("cache must be a BaseCache")),
            };
        }
        Ok(parsed)
    }

    fn config(&self) -> MsmConfig<'_> {
        MsmConfig { cache: self.cache.as_deref(), ..self.config }
    }
}

/// The promise of an MSM on the context `context` resolves to: the arguments are read out of JS
/// first (so a bad one rejects before the context is created), with the lengths of a points
/// buffer checked too where `check_first` (the top-level `msm`, whose context is created on
/// first use); then one result, or an array of them for an array of scalars buffers.
fn msm_promise<C: std::ops::Deref<Target = crate::MsmContext>>(
    context: impl std::future::Future<Output = Result<C, MsmError>> + 'static,
    curve: String,
    points: JsValue,
    scalars: JsValue,
    options: Option<js_sys::Object>,
    check_first: bool,
) -> Promise {
    let read = || -> Result<_, JsValue> {
        let curve: CurveId = curve.parse().map_err(js_error)?;
        let bases = JsBases::from_js(&points)?;
        let (sets, batch) = scalar_sets(&scalars)?;
        let options = Options::parse(options.as_ref())?;
        Ok((curve, bases, sets, batch, options))
    };
    let read = read();
    future_to_promise(async move {
        let (curve, bases, sets, batch, options) = read?;
        let sets: Vec<&[u8]> = sets.iter().map(Vec::as_slice).collect();
        if let (true, JsBases::Points(points)) = (check_first, &bases) {
            check_lengths_of(curve, points, &sets).map_err(js_error)?;
        }
        let ctx = context.await.map_err(js_error)?;
        let output = ctx.msm_bytes(curve, bases.as_bases(), &sets, &options.config()).await.map_err(js_error)?;
        let mut results: Vec<JsValue> = output.results.iter().map(|r| Uint8Array::from(r.as_slice()).into()).collect();
        match (batch, output.profile) {
            (true, _) => Ok(results.into_iter().collect::<Array>().into()),
            (false, Some(profile)) => profiled(results.pop().expect("one result for one set"), &profile),
            (false, None) => Ok(results.pop().expect("one result for one set")),
        }
    })
}

/// A `ProfiledMsm`: `result` and the profile's plan and steps, in milliseconds.
fn profiled(result: JsValue, profile: &crate::Profile) -> Result<JsValue, JsValue> {
    let object = js_sys::Object::new();
    let set = |key: &str, value: &JsValue| Reflect::set(&object, &key.into(), value).map(|_| ());
    set("result", &result)?;
    set("windowBits", &profile.plan.window_bits.into())?;
    set("windows", &profile.plan.num_windows.into())?;
    set("points", &profile.plan.n.into())?;
    let steps = Array::new();
    for step in &profile.steps {
        let entry = js_sys::Object::new();
        Reflect::set(&entry, &"name".into(), &step.name.into())?;
        Reflect::set(&entry, &"ms".into(), &(step.seconds * 1e3).into())?;
        Reflect::set(&entry, &"fieldMuls".into(), &(step.field_muls as f64).into())?;
        steps.push(&entry);
    }
    set("steps", &steps)?;
    set("hostMs", &(profile.host_seconds * 1e3).into())?;
    Ok(object.into())
}

/// Σ kᵢ·Pᵢ on a context created on first use and shared afterwards (the arguments of
/// `MsmContext.msm`, over a points buffer). The typed signatures are in the TypeScript section
/// above.
#[wasm_bindgen(skip_typescript)]
pub fn msm(curve: String, points: JsValue, scalars: JsValue, options: Option<js_sys::Object>) -> Promise {
    // The curve name and the buffers' lengths are checked before touching WebGPU, so they are
    // reported as such everywhere; points are checked by the GPU.
    msm_promise(crate::context::default_context(), curve, points, scalars, options, true)
}
