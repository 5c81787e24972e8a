//! Pipeline compilation off the browser's GPU-process main thread.
//!
//! wgpu creates pipelines with the synchronous `createComputePipeline`, which Chromium's Dawn
//! compiles on the thread that also composites the page: the first call on a curve froze the page
//! for seconds (on a software GPU), even with the package in a Worker. Asking first for the same
//! pipelines with `createComputePipelineAsync` (same code, entry point and automatic layout) lets
//! Dawn compile them on its worker threads and keep them; wgpu's synchronous requests then find
//! them compiled. Failures are ignored here: the synchronous creation reports them.

use js_sys::{Array, Object, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// `target[method](argument)`, or `None` if it is missing or throws.
fn call(target: &JsValue, method: &str, argument: &JsValue) -> Option<JsValue> {
    let function: js_sys::Function = Reflect::get(target, &method.into()).ok()?.dyn_into().ok()?;
    function.call1(target, argument).ok()
}

/// A plain JS object with these properties.
fn object(properties: &[(&str, &JsValue)]) -> JsValue {
    let object = Object::new();
    for (name, value) in properties {
        let _ = Reflect::set(&object, &(*name).into(), value);
    }
    object.into()
}

/// Compiles the pipelines of every `(WGSL module, entry points)` asynchronously on the device's
/// browser side, all requested at once so the browser may compile them in parallel, and waits
/// for them (no-op off the WebGPU backend).
pub(crate) async fn precompile(device: &wgpu::Device, modules: &[(&str, Vec<&str>)]) {
    let Some(gpu_device) = device.as_webgpu() else { return };
    let gpu_device: &JsValue = gpu_device.as_ref();
    let pending = Array::new();
    for (code, entry_points) in modules {
        let Some(module) = call(gpu_device, "createShaderModule", &object(&[("code", &(*code).into())])) else {
            return;
        };
        for entry in entry_points {
            let compute = object(&[("module", &module), ("entryPoint", &(*entry).into())]);
            let descriptor = object(&[("layout", &"auto".into()), ("compute", &compute)]);
            if let Some(promise) = call(gpu_device, "createComputePipelineAsync", &descriptor) {
                pending.push(&promise);
            }
        }
    }
    let _ = JsFuture::from(Promise::all_settled(&pending)).await;
}
