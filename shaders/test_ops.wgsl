// Kernels that run single field and curve operations for the tests in src/gpu/tests.rs, which
// compare them with arkworks. Not part of the MSM pipeline.
#import common
#import field
#import curve

// Field operands in Montgomery form, two per case: (a, b).
@group(0) @binding(0) var<storage, read> field_in: array<PackedField>;
// Per case: a·b, a + b, a − b, −a, a⁻¹, a·a + b·b (a fused sum of products).
@group(0) @binding(1) var<storage, read_write> field_out: array<PackedField>;
// Point operands, two per case: (p, q), and q's affine form as uploaded.
@group(0) @binding(2) var<storage, read> point_in: array<PointPacked>;
@group(0) @binding(3) var<storage, read> raw_in: array<RawPoint>;
// Per case: p + q, 2·p, p + stored(q), p − stored(q).
@group(0) @binding(4) var<storage, read_write> point_out: array<PointPacked>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn test_field_ops(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (2u * i + 1u >= arrayLength(&field_in)) {
        return;
    }
    let a = field_unpack(field_in[2u * i]);
    let b = field_unpack(field_in[2u * i + 1u]);
    field_out[6u * i] = field_pack(field_mul(a, b));
    field_out[6u * i + 1u] = field_pack(field_add(a, b));
    field_out[6u * i + 2u] = field_pack(field_sub(a, b));
    field_out[6u * i + 3u] = field_pack(field_neg(a));
    field_out[6u * i + 4u] = field_pack(field_inv(a));
    field_out[6u * i + 5u] = field_pack(field_mul_sum(a, a, b, b));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn test_point_ops(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&raw_in)) {
        return;
    }
    let p = point_unpack(point_in[2u * i]);
    let q = point_unpack(point_in[2u * i + 1u]);
    let s = stored_from_raw(raw_in[i]);
    point_out[4u * i] = point_pack(point_add(p, q));
    point_out[4u * i + 1u] = point_pack(point_double(p));
    point_out[4u * i + 2u] = point_pack(point_add_stored(p, s));
    point_out[4u * i + 3u] = point_pack(point_add_stored(p, stored_negate(s)));
}

// One invocation adds raw_in[0], raw_in[1], … into one accumulator, writing every prefix
// (dispatched as a single workgroup).
@compute @workgroup_size(1)
fn test_chain(@builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = point_identity();
    for (var k = 0u; k < arrayLength(&raw_in); k = k + 1u) {
        acc = point_add_stored(acc, stored_from_raw(raw_in[k]));
        point_out[k] = point_pack(acc);
    }
}
