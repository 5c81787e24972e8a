// Stage 1, before decompose_scalars, one thread per scalar, only when the scalars were uploaded
// in arkworks' Montgomery form (the Rust API; the bytes API uploads integers): rewrites scalar i
// in place as the integer it stands for, which decompose_scalars reads.
#import common
#import scalar

@group(0) @binding(0) var<uniform> plan: Plan;
// Every set's scalars.
@group(0) @binding(2) var<storage, read_write> raw_scalars: array<ScalarWords>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn convert_scalars(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if (i >= plan.sets * scalars_per_set(plan)) {
        return;
    }
    raw_scalars[i] = scalar_from_montgomery(raw_scalars[i]);
}
