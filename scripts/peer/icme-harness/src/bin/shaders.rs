//! Diagnostic: compiles each of the peer's shaders for n = 2^log_size natively (wgpu 24, device
//! with the adapter's default limits), one at a time, timing each, so a driver crash names its
//! shader (run under gdb for a backtrace). Usage: shaders [log_size]
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use msm_webgpu::cuzk::msm::WORD_SIZE;
    use msm_webgpu::cuzk::shader_manager::ShaderManager;
    use std::time::Instant;
    let log_size: u32 = std::env::args().nth(1).map_or(16, |s| s.parse().unwrap());
    let n = 1usize << log_size;
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
    let instance = wgpu::Instance::default();
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    println!("PEER_DIAG adapter {}", adapter.get_info().name);
    let (device, _queue) = pollster::block_on(adapter.request_device(&Default::default(), None)).unwrap();
    for (name, code, entry) in shaders.iter() {
        println!("PEER_DIAG {name}/{entry}: {} lines, compiling", code.lines().count());
        let t = Instant::now();
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(name),
            source: wgpu::ShaderSource::Wgsl((*code).as_str().into()),
        });
        let _p = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(name),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        });
        device.poll(wgpu::Maintain::Wait);
        println!("PEER_DIAG {name}/{entry}: pipeline in {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}
