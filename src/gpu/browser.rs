//! What the browser says of its WebGPU adapter (`GPUAdapter.info`), which wgpu's `AdapterInfo`
//! leaves out on the web: there it keeps only the description, which Chrome leaves empty.

use js_sys::{Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::MsmError;

/// "vendor / architecture / description" of the browser's default WebGPU adapter, which
/// chooses its device profile ([`crate::DeviceProfile::for_adapter`] gives examples). Fails with
/// [`MsmError::NoAdapter`],
/// saying why, where there is no WebGPU; it is asked before wgpu is, because wgpu reads
/// `navigator.gpu` only in a Window or a worker and traps (aborting the module) elsewhere.
pub(crate) async fn adapter_description() -> Result<String, MsmError> {
    let unavailable = |why: &str| MsmError::NoAdapter(why.to_string());
    let global = js_sys::global();
    let scope = |name: &str| Reflect::has(&global, &name.into()).unwrap_or(false);
    if !scope("Window") && !scope("WorkerGlobalScope") {
        return Err(unavailable(
            "neither Window nor WorkerGlobalScope is defined, and wgpu looks for navigator.gpu only there \
             (in Node.js define globalThis.WorkerGlobalScope; see the README)",
        ));
    }
    let navigator = Reflect::get(&global, &"navigator".into()).map_err(|_| unavailable("no navigator"))?;
    let gpu = Reflect::get(&navigator, &"gpu".into()).map_err(|_| unavailable("navigator.gpu is missing"))?;
    if gpu.is_undefined() || gpu.is_null() {
        return Err(unavailable("navigator.gpu is missing"));
    }
    let request: js_sys::Function = Reflect::get(&gpu, &"requestAdapter".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| unavailable("navigator.gpu.requestAdapter is missing"))?;
    let promise: Promise =
        request.call0(&gpu).ok().and_then(|p| p.dyn_into().ok()).ok_or_else(|| unavailable("requestAdapter failed"))?;
    let adapter = JsFuture::from(promise).await.map_err(|_| unavailable("requestAdapter rejected"))?;
    if adapter.is_null() || adapter.is_undefined() {
        return Err(unavailable("requestAdapter returned null"));
    }
    let info = Reflect::get(&adapter, &"info".into()).unwrap_or(JsValue::UNDEFINED);
    let field = |name: &str| Reflect::get(&info, &name.into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
    Ok(format!("{} / {} / {}", field("vendor"), field("architecture"), field("description")))
}
