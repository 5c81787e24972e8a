//! One page, one session: arkworks BN254 MSM in WASM (single thread, the common reference), then
//! the peer's `compute_msm` called PEER_CALLS times on the same inputs. The first peer call is
//! the cold one (it creates the adapter, device and pipelines; the peer does that in every
//! call, so later calls gain only what the browser caches); each result is checked against
//! arkworks. Lines starting with PEER_BENCH are what scripts/bench-peer.sh collects.
use ark_bn254::G1Projective;
use ark_ec::VariableBaseMSM;
use peer_harness::{peer_inputs, same_point, to_halo2};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const LOG_SIZE: u32 = match option_env!("PEER_LOG_SIZE") {
    Some(s) => parse(s),
    None => 16,
};
const PEER_CALLS: u32 = match option_env!("PEER_CALLS") {
    Some(s) => parse(s),
    None => 3,
};
const ARK_REPS: u32 = 3;

const fn parse(s: &str) -> u32 {
    let b = s.as_bytes();
    let mut i = 0;
    let mut v = 0;
    while i < b.len() {
        v = v * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    v
}

fn now() -> f64 {
    js_sys::Date::now()
}

/// console.log, which wasm-bindgen-test-runner prints.
fn report(line: String) {
    wasm_bindgen_test::console_log!("{}", line);
}

// wgpu's AdapterInfo is empty on WebGPU: ask the browser.
#[wasm_bindgen(inline_js = "export async function adapter_info() {
  const a = await navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!a) return 'no adapter';
  const i = a.info || {};
  return `vendor=${i.vendor} architecture=${i.architecture} device=${i.device} description=${i.description}` +
    ` maxComputeInvocationsPerWorkgroup=${a.limits.maxComputeInvocationsPerWorkgroup}` +
    ` maxStorageBufferBindingSize=${a.limits.maxStorageBufferBindingSize} ua=${navigator.userAgent}`;
}")]
extern "C" {
    async fn adapter_info() -> JsValue;
}

// The peer asks for maxComputeInvocationsPerWorkgroup = maxComputeWorkgroupSizeX = 1024
// (src/cuzk/gpu.rs, get_device); SwiftShader offers 256, so requestDevice fails. Its shaders use
// at most 256 invocations per workgroup (decompose, SMVP and BPR 256, transpose 16), so the
// harness lowers any requested maximum above the adapter's to the adapter's, outside the peer's
// code; a shader that needed more would fail pipeline validation, not run wrong. It also
// reports the device's uncaptured errors and losses, which the peer does not look at.
#[wasm_bindgen(inline_js = "export function clamp_device_limits() {
  const orig = GPUAdapter.prototype.requestDevice;
  const clamped = [];
  GPUAdapter.prototype.requestDevice = function (desc) {
    const req = desc && desc.requiredLimits;
    if (req) {
      for (const k of Object.keys(req)) {
        const sup = this.limits[k];
        if (k.startsWith('max') && sup !== undefined && req[k] > sup) {
          clamped.push(`${k} ${req[k]}->${sup}`);
          req[k] = sup;
        }
      }
    }
    return orig.call(this, desc).then((device) => {
      // The peer ignores failed mappings; report WebGPU errors and device loss ourselves.
      device.addEventListener('uncapturederror', (e) =>
        console.log(`PEER_BENCH gpu-error ${e.error.constructor.name}: ${e.error.message}`));
      device.lost.then((info) => {
        if (info.reason !== 'destroyed') console.log(`PEER_BENCH device-lost ${info.reason}: ${info.message}`);
      });
      return device;
    });
  };
  // Trace of the peer's pipeline creations and submits (with times), so a failure says where.
  const t0 = performance.now();
  const trace = (what) => console.log(`PEER_TRACE ${(performance.now() - t0).toFixed(0)} ms ${what}`);
  const csm = GPUDevice.prototype.createShaderModule;
  GPUDevice.prototype.createShaderModule = function (d) {
    const m = csm.call(this, d);
    m.__lines = d.code.split('\\n').length;
    return m;
  };
  const ccp = GPUDevice.prototype.createComputePipeline;
  GPUDevice.prototype.createComputePipeline = function (d) {
    trace(`createComputePipeline ${d.compute.entryPoint || 'main'} (${d.compute.module.__lines} lines)`);
    const p = ccp.call(this, d);
    trace('  created');
    return p;
  };
  const sub = GPUQueue.prototype.submit;
  GPUQueue.prototype.submit = function (b) { trace(`submit ${b.length}`); return sub.call(this, b); };
  return () => clamped.join(', ');
}")]
extern "C" {
    fn clamp_device_limits() -> js_sys::Function;
}

#[wasm_bindgen_test]
async fn peer_bn254_msm() {
    let n = 1usize << LOG_SIZE;
    report(format!("PEER_BENCH adapter {}", adapter_info().await.as_string().unwrap_or_default()));
    let clamped = clamp_device_limits();
    let t = now();
    let (points, scalars) = peer_inputs(n);
    let (hp, hs) = to_halo2(&points, &scalars);
    report(format!("PEER_BENCH inputs n=2^{LOG_SIZE} made_ms={:.0}", now() - t));

    let mut ark = G1Projective::default();
    let mut ark_ms = Vec::new();
    for _ in 0..ARK_REPS {
        let t = now();
        ark = G1Projective::msm(&points, &scalars).unwrap();
        ark_ms.push(now() - t);
    }
    report(format!("PEER_BENCH ark_wasm n=2^{LOG_SIZE} ms={ark_ms:?}"));

    for call in 0..PEER_CALLS {
        let t = now();
        let r = msm_webgpu::cuzk::msm::compute_msm(&hp, &hs).await;
        let ms = now() - t;
        let ok = same_point(&r, &ark);
        report(format!(
            "PEER_BENCH peer n=2^{LOG_SIZE} call={call} {} ms={ms:.0} matches_arkworks={ok} \
             limits_lowered=[{}]",
            if call == 0 { "cold" } else { "warm" },
            clamped.call0(&JsValue::NULL).ok().and_then(|v| v.as_string()).unwrap_or_default()
        ));
        assert!(ok, "peer result differs from arkworks");
    }
}

// Diagnostic, run by name (`-- peer_shaders_compile`): compiles each of the peer's shaders for
// n = 2^LOG_SIZE, as its ShaderManager generates them, one at a time with
// createComputePipelineAsync, timing each, so a crash of the GPU process names its shader.
#[wasm_bindgen(inline_js = "export async function compile_one(name, code, entry) {
  const a = await navigator.gpu.requestAdapter();
  const d = await a.requestDevice();
  d.lost.then((i) => console.log(`PEER_DIAG ${name}: device lost ${i.reason} ${i.message}`));
  console.log(`PEER_DIAG ${name}/${entry}: ${code.split('\\n').length} lines, compiling`);
  const t = performance.now();
  const m = d.createShaderModule({ code });
  const info = await m.getCompilationInfo();
  for (const msg of info.messages) console.log(`PEER_DIAG   ${msg.type}: ${msg.message}`);
  await d.createComputePipelineAsync({ layout: 'auto', compute: { module: m, entryPoint: entry } });
  console.log(`PEER_DIAG ${name}/${entry}: pipeline in ${(performance.now() - t).toFixed(0)} ms`);
  d.destroy();
}")]
extern "C" {
    #[wasm_bindgen(catch)]
    async fn compile_one(name: &str, code: &str, entry: &str) -> Result<JsValue, JsValue>;
}

#[wasm_bindgen_test]
async fn peer_shaders_compile() {
    use msm_webgpu::cuzk::msm::WORD_SIZE;
    use msm_webgpu::cuzk::shader_manager::ShaderManager;
    let n = 1usize << LOG_SIZE;
    // The parameters compute_msm picks for n (src/cuzk/msm.rs).
    let chunk_size = if n >= 65536 { 16 } else { 4 };
    let num_columns = 1usize << chunk_size;
    let num_subtasks = 256usize.div_ceil(chunk_size);
    let (c_wg, c_y) = match n {
        0..=256 => (n, 1),
        257..=32768 => (64, n / 64 / 4),
        32769..=131072 => (256, n / 256 / 8),
        _ => (256, n / 256 / 32),
    };
    let s_wg = if num_columns < 256 {
        1
    } else if num_columns / 2 < 32768 {
        32
    } else {
        256
    };
    let sm = ShaderManager::new(WORD_SIZE, chunk_size, n);
    let shaders = [
        ("decompose", sm.gen_decomp_scalars_shader(c_wg, c_y, num_subtasks, num_columns), "main"),
        ("transpose", sm.gen_transpose_shader(num_subtasks), "main"),
        ("smvp", sm.gen_smvp_shader(s_wg, num_columns), "main"),
        ("bpr", sm.gen_bpr_shader(256), "stage_1"),
        ("bpr", sm.gen_bpr_shader(256), "stage_2"),
    ];
    for (name, code, entry) in shaders.iter() {
        if let Err(e) = compile_one(name, code, entry).await {
            report(format!("PEER_DIAG {name}/{entry}: error {e:?}"));
        }
    }
}
