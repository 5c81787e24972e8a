// The device microbenchmarks of src/profile.rs: every thread runs a chain of dependent
// operations with the generated code the pipeline uses.
//   bench_field_mul: CHAIN Montgomery multiplications (the rate the cost model divides by);
//   bench_add_stored: CHAIN / 8 mixed additions of stored points into an accumulator, which
//     shows what the curve formulas' additions, subtractions and data movement cost on top.
//     Each addition loads its point, as accumulate_chunks does: a point held across the chain
//     would keep its registers live throughout, which spilled where the accumulation does not
//     (the BLS12 G2 groups on navi21).
#import common
#import field
#import curve

const CHAIN: u32 = 256u;

// One field element per thread in, the end of its chain out.
@group(0) @binding(0) var<storage, read_write> values: array<PackedField>;
// One stored point per thread (any words: the formulas' cost does not depend on them); thread i
// adds those of threads i, i + 1, … in turn.
@group(0) @binding(1) var<storage, read> stored: array<StoredPacked>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn bench_field_mul(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if (i >= arrayLength(&values)) {
        return;
    }
    let b = field_unpack(values[i]);
    var a = b;
    for (var k = 0u; k < CHAIN; k = k + 1u) {
        a = field_mul(a, b);
    }
    values[i] = field_pack(a);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn bench_add_stored(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    stash_enter(lane);
    let i = thread_index(gid, nwg);
    if (i >= arrayLength(&values)) {
        return;
    }
    let count = arrayLength(&stored);
    var acc = point_identity();
    for (var k = 0u; k < CHAIN / 8u; k = k + 1u) {
        acc = point_add_stored(acc, stored_unpack(stored[(i + k) % count]));
    }
    values[i] = field_pack(acc.x);
}
