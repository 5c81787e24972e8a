// Field helpers written on top of the field arithmetic above (a prime field's or Fp2's).

// a·R mod p: canonical limbs into Montgomery form.
fn field_to_montgomery(a: Field) -> Field {
    return field_mul(a, R2_MOD_P);
}

fn field_double(a: Field) -> Field {
    return field_add(a, a);
}

fn field_neg(a: Field) -> Field {
    return field_sub(FIELD_ZERO, a);
}

