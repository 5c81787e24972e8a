// Kernels that run single field and curve operations for the tests in src/gpu/tests.rs, which
// compare them with arkworks. Not part of the MSM pipeline.
#import common
#import field
#import curve

// Field operands in Montgomery form, two per case: (a, b).
@group(0) @binding(0) var<storage, read> field_in: array<PackedField>;
// Per case: a·b, a + b, a − b, −a, a⁻¹, a·a + b·b (a fused sum of products), and products of
// lazy sums and differences (field_add_lazy): (a + b)·(a − b), (a − b)·(a + a).
@group(0) @binding(1) var<storage, read_write> field_out: array<PackedField>;
// Point operands, two per case: (p, q), and q's affine form as uploaded.
@group(0) @binding(2) var<storage, read> point_in: array<PointPacked>;
@group(0) @binding(3) var<storage, read> raw_in: array<RawPoint>;
// The results, as each kernel below says.
@group(0) @binding(4) var<storage, read_write> point_out: array<PointPacked>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn test_field_ops(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (2u * i + 1u >= arrayLength(&field_in)) {
        return;
    }
    let a = field_unpack(field_in[2u * i]);
    let b = field_unpack(field_in[2u * i + 1u]);
    field_out[8u * i] = field_pack(field_mul(a, b));
    field_out[8u * i + 1u] = field_pack(field_add(a, b));
    field_out[8u * i + 2u] = field_pack(field_sub(a, b));
    field_out[8u * i + 3u] = field_pack(field_neg(a));
    field_out[8u * i + 6u] = field_pack(field_mul(field_add_lazy(a, b), field_sub_lazy(a, b)));
    field_out[8u * i + 7u] = field_pack(field_mul(field_sub_lazy(a, b), field_add_lazy(a, a)));
    field_out[8u * i + 5u] = field_pack(field_mul_sum(a, a, b, b));
    // Last: a is all the inversion's loop keeps live.
    field_out[8u * i + 4u] = field_pack(field_inv(a));
}

// The point operations run one per kernel: a kernel holding all of them took software GPUs'
// compilers several times as long as the kernels apart (bn254-g2, 13-bit: 98 s against 31 s on
// one). Each reads the cases' count from raw_in, so all three bind the same buffers.

// Per case: p + q.
@compute @workgroup_size(WORKGROUP_SIZE)
fn test_point_add(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    stash_enter(lane);
    let i = gid.x;
    if (i >= arrayLength(&raw_in)) {
        return;
    }
    point_out[i] = point_pack(point_add(point_unpack(point_in[2u * i]), point_unpack(point_in[2u * i + 1u])));
}

// Per case: 2·p.
@compute @workgroup_size(WORKGROUP_SIZE)
fn test_point_double(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&raw_in)) {
        return;
    }
    point_out[i] = point_pack(point_double(point_unpack(point_in[2u * i])));
}

// Two threads per case: p + stored(q), then p − stored(q).
@compute @workgroup_size(WORKGROUP_SIZE)
fn test_point_add_stored(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    stash_enter(lane);
    let i = gid.x / 2u;
    if (i >= arrayLength(&raw_in)) {
        return;
    }
    var s = stored_from_raw(raw_in[i]);
    if (gid.x % 2u == 1u) {
        s = stored_negate(s);
    }
    point_out[gid.x] = point_pack(point_add_stored(point_unpack(point_in[2u * i]), s));
}

// One invocation adds raw_in[0], raw_in[1], … into one accumulator, writing every prefix
// (dispatched as a single workgroup).
@compute @workgroup_size(1)
fn test_chain(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    stash_enter(lane);
    var acc = point_identity();
    for (var k = 0u; k < arrayLength(&raw_in); k = k + 1u) {
        acc = point_add_stored(acc, stored_from_raw(raw_in[k]));
        point_out[k] = point_pack(acc);
    }
}
