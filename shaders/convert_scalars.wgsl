// Stage 1, before decompose_scalars, one thread per scalar, only when the scalars were uploaded
// in arkworks' Montgomery form (the Rust API; the bytes API uploads integers): rewrites scalar i
// in place as the integer it stands for, which decompose_scalars reads.
#import common
#import scalar

@group(0) @binding(0) var<uniform> plan: Plan;
// 8 little-endian u32 words per scalar, of every set.
@group(0) @binding(2) var<storage, read_write> raw_scalars: array<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn convert_scalars(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if (i >= plan.sets * scalars_per_set(plan)) {
        return;
    }
    let at = i * 8u;
    let s = scalar_from_montgomery(ScalarWords(array<u32, 8>(
        raw_scalars[at], raw_scalars[at + 1u], raw_scalars[at + 2u], raw_scalars[at + 3u],
        raw_scalars[at + 4u], raw_scalars[at + 5u], raw_scalars[at + 6u], raw_scalars[at + 7u])));
    raw_scalars[at] = s.w[0];
    raw_scalars[at + 1u] = s.w[1];
    raw_scalars[at + 2u] = s.w[2];
    raw_scalars[at + 3u] = s.w[3];
    raw_scalars[at + 4u] = s.w[4];
    raw_scalars[at + 5u] = s.w[5];
    raw_scalars[at + 6u] = s.w[6];
    raw_scalars[at + 7u] = s.w[7];
}
