// Stage 1, before decompose_scalars, one thread per scalar, only when the scalars were uploaded
// in arkworks' Montgomery form (the Rust API; the bytes API uploads integers): rewrites scalar i
// in place as the integer it stands for, which decompose_scalars reads.
#import common
#import scalar

@group(0) @binding(0) var<uniform> plan: Plan;
// 8 little-endian u32 words per scalar as two vec4s, of every set.
@group(0) @binding(2) var<storage, read_write> raw_scalars: array<vec4<u32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn convert_scalars(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if (i >= plan.sets * scalars_per_set(plan)) {
        return;
    }
    let low = raw_scalars[2u * i];
    let high = raw_scalars[2u * i + 1u];
    let s = scalar_from_montgomery(ScalarWords(array<u32, 8>(low.x, low.y, low.z, low.w, high.x, high.y, high.z, high.w)));
    raw_scalars[2u * i] = vec4<u32>(s.w[0], s.w[1], s.w[2], s.w[3]);
    raw_scalars[2u * i + 1u] = vec4<u32>(s.w[4], s.w[5], s.w[6], s.w[7]);
}
