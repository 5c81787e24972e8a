//! A monotonic clock in seconds on both targets (`std::time::Instant` is unavailable on wasm32).

/// Seconds since an arbitrary fixed origin.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn now_seconds() -> f64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// Seconds since an arbitrary fixed origin (`performance.now()`, else `Date.now()`).
#[cfg(target_arch = "wasm32")]
pub(crate) fn now_seconds() -> f64 {
    use wasm_bindgen::JsCast;
    let performance = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok();
    let now = performance.as_ref().and_then(|p| {
        let f: js_sys::Function = js_sys::Reflect::get(p, &"now".into()).ok()?.dyn_into().ok()?;
        f.call0(p).ok()?.as_f64()
    });
    now.unwrap_or_else(js_sys::Date::now) / 1000.0
}
