//! The peer natively (wgpu 24 on Vulkan: lavapipe, or SwiftShader with
//! VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json), on the browser harness's inputs,
//! each result checked against arkworks (one thread). Usage: native [log_size] [calls]
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use ark_bn254::G1Projective;
    use ark_ec::VariableBaseMSM;
    use peer_harness::{peer_inputs, same_point, to_halo2};
    use std::time::Instant;
    let args: Vec<String> = std::env::args().collect();
    let log_size: u32 = args.get(1).map_or(16, |s| s.parse().unwrap());
    let calls: u32 = args.get(2).map_or(3, |s| s.parse().unwrap());
    let n = 1usize << log_size;
    let (points, scalars) = peer_inputs(n);
    let (hp, hs) = to_halo2(&points, &scalars);
    let t = Instant::now();
    let ark = G1Projective::msm(&points, &scalars).unwrap();
    println!("PEER_BENCH ark_native n=2^{log_size} ms={:.0}", t.elapsed().as_secs_f64() * 1e3);
    let info = pollster::block_on(msm_webgpu::cuzk::gpu::get_adapter()).get_info();
    println!("PEER_BENCH adapter {} ({:?}, {})", info.name, info.backend, info.driver_info);
    for call in 0..calls {
        let t = Instant::now();
        let r = pollster::block_on(msm_webgpu::cuzk::msm::compute_msm(&hp, &hs));
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let ok = same_point(&r, &ark);
        println!(
            "PEER_BENCH peer_native n=2^{log_size} call={call} {} ms={ms:.0} matches_arkworks={ok}",
            if call == 0 { "cold" } else { "warm" }
        );
        assert!(ok, "peer result differs from arkworks");
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}
