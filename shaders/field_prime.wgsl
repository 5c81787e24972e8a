// Prime-field helpers: an extension field (fp2.wgsl) defines its own square and inverse.

fn field_square(a: Field) -> Field {
    return field_mul(a, a);
}

// a⁻¹ = a^(p − 2) (0 for 0), for batch-affine accumulation, which shares one inversion among many
// additions: a sliding window over the odd powers a, a³, …, walking the schedule INV_STEPS that
// src/wgsl/inversion.rs computes from p.
fn field_inv(a: Field) -> Field {
    let a2 = field_mul(a, a);
    var powers: array<Field, INV_ODD_POWERS>;
    powers[0] = a;
    for (var k = 1u; k < INV_ODD_POWERS; k = k + 1u) {
        powers[k] = field_mul(powers[k - 1u], a2);
    }
    var r = powers[INV_FIRST_POWER / 2u];
    for (var i = 0u; i < INV_STEP_COUNT; i = i + 1u) {
        let step = INV_STEPS[i];
        for (var s = 0u; s < (step >> 4u); s = s + 1u) {
            r = field_mul(r, r);
        }
        let power = step & 15u;
        if (power != 0u) {
            r = field_mul(r, powers[power / 2u]);
        }
    }
    return r;
}
