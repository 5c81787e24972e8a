//! Without a GPU: every composed shader parses and validates with naga, and the constants and
//! limb arithmetic the generator relies on agree with num-bigint.

use num_bigint::BigUint;
use rand::{Rng, SeedableRng};
use webgpu_msm::cpu_model::{mont_mul_limbs, mont_mul_scanned};
use webgpu_msm::curve::CurveSpec;
use webgpu_msm::limbs::{from_limbs, join_limbs, pack_limbs, to_limbs, Montgomery};
use webgpu_msm::point_model::{PointModel, RunningCurve};
use webgpu_msm::step::{Access, Accumulation, Kernels, Step};
use webgpu_msm::wgsl::compose::Define;
use webgpu_msm::wgsl::field_wide::{mont_mul_sum_wide, mont_mul_wide};
use webgpu_msm::wgsl::stash::stashes;
use webgpu_msm::wgsl::{compose, MulForm, Stage};
use webgpu_msm::{CurveId, DeviceProfile};

/// Every preset profile, with 64-bit integers, so that both limb widths are among its forms.
fn profiles() -> [DeviceProfile; 3] {
    DeviceProfile::ALL.map(|profile| profile.with_int64(true))
}

const ACCUMULATIONS: [Accumulation; 3] = [Accumulation::Projective, Accumulation::Edwards, Accumulation::EdwardsAffine];

/// The curve on each point model it runs: its own, and its Edwards image's (extended and affine
/// stored points) where it has one.
fn models(curve: CurveId) -> Vec<RunningCurve<'static>> {
    let mut models: Vec<RunningCurve<'static>> = Vec::new();
    for accumulation in ACCUMULATIONS {
        let running = RunningCurve::new(curve.spec(), accumulation);
        if !models.iter().any(|m| m.model == running.model) {
            models.push(running);
        }
    }
    models
}

/// Every curve's spec.
fn specs() -> Vec<&'static CurveSpec> {
    CurveId::ALL.iter().map(|curve| curve.spec()).collect()
}

/// Every curve on every point model it runs, in every form a preset profile weighs for the
/// curve, each once. The forms of single steps ([`DeviceProfile::step_form`]) are compiled by
/// `step_table_matches_the_shaders`, stage by stage; straight-line 30-limb G2 modules would take
/// minutes to validate here for a form no profile runs them in.
fn cases() -> Vec<(RunningCurve<'static>, MulForm)> {
    let mut cases: Vec<(RunningCurve<'static>, MulForm)> = Vec::new();
    for profile in profiles() {
        for &curve in CurveId::ALL {
            for form in profile.forms(curve.spec()) {
                for running in models(curve) {
                    let same = |&(c, f): &(RunningCurve, MulForm)| {
                        std::ptr::eq(c.spec, running.spec) && c.model == running.model && f == form
                    };
                    if !cases.iter().any(same) {
                        cases.push((running, form));
                    }
                }
            }
        }
    }
    cases
}

/// Every composed module parses and validates with naga, and goes through the writers of every
/// native backend wgpu has: MSL (Metal, language 2.4), HLSL (DX12, shader model 6.0) and SPIR-V
/// (Vulkan), whose output Khronos' `spirv-val` accepts (Debian's `spirv-tools`; without it the
/// SPIR-V check is skipped, and fails when `CI=true`). What only a Mac or a Windows machine can
/// check, that Metal's and DXC's compilers take the MSL and HLSL, is not checked here.
#[test]
fn every_composed_shader_validates_and_translates_for_every_backend() {
    let spirv_val = std::process::Command::new("spirv-val").arg("--version").output().is_ok();
    if !spirv_val {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "spirv-val (Debian's spirv-tools) is missing");
        eprintln!("SKIPPED: the SPIR-V check (no spirv-val; install spirv-tools)");
    }
    let dir = std::env::temp_dir().join(format!("webgpu-msm-spirv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    for (curve, form) in cases() {
        let spec = curve.spec;
        for stage in Stage::ALL {
            let what = format!("{} {:?} {stage:?} {form:?}", spec.name, curve.model);
            let source = compose(curve, stage, form);
            let module = naga::front::wgsl::parse_str(&source)
                .unwrap_or_else(|e| panic!("{what}: {}", e.emit_to_string(&source)));
            let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities(form))
                .validate(&module)
                .unwrap_or_else(|e| panic!("{what}: {}", e.emit_to_string(&source)));

            let msl = naga::back::msl::Options { lang_version: (2, 4), ..Default::default() };
            naga::back::msl::write_string(&module, &info, &msl, &Default::default())
                .unwrap_or_else(|e| panic!("{what}: MSL: {e}"));

            let hlsl =
                naga::back::hlsl::Options { shader_model: naga::back::hlsl::ShaderModel::V6_0, ..Default::default() };
            let pipeline = naga::back::hlsl::PipelineOptions::default();
            let mut out = String::new();
            naga::back::hlsl::Writer::new(&mut out, &hlsl, &pipeline)
                .write(&module, &info, None)
                .unwrap_or_else(|e| panic!("{what}: HLSL: {e}"));

            let words = naga::back::spv::write_vec(&module, &info, &Default::default(), None)
                .unwrap_or_else(|e| panic!("{what}: SPIR-V: {e}"));
            if spirv_val {
                let path = dir.join("module.spv");
                std::fs::write(&path, bytemuck::cast_slice::<u32, u8>(&words)).expect("written");
                let run = std::process::Command::new("spirv-val")
                    .args(["--target-env", "vulkan1.0"])
                    .arg(&path)
                    .output()
                    .expect("spirv-val runs");
                assert!(run.status.success(), "{what}: spirv-val: {}", String::from_utf8_lossy(&run.stderr));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A define chooses code through the composer's `#if NAME` blocks, never through a WGSL
/// branch: drivers inline every function before they drop a constant branch, so each caller
/// compiled the dead arm's products too (4–23× the compile time on ACO). No
/// composed module names a define outside a comment (the composer decides, in Rust), and none
/// branches on a `const NAME: bool` the generated code declares.
#[test]
fn no_composed_shader_branches_on_a_form_constant() {
    let is_identifier = |c: char| c.is_ascii_alphanumeric() || c == '_';
    for (curve, form) in cases() {
        let spec = curve.spec;
        for stage in Stage::ALL {
            let source = compose(curve, stage, form);
            for line in source.lines() {
                let code = line.split("//").next().unwrap_or_default();
                let words: Vec<&str> = code.split(|c: char| !is_identifier(c)).collect();
                for define in Define::ALL {
                    let what = format!("{} {stage:?} {form:?}: `{}`", spec.name, line.trim());
                    assert!(!words.contains(&define.name()), "{what} names {}", define.name());
                }
            }
            let constants: Vec<&str> = source
                .lines()
                .filter_map(|line| line.trim().strip_prefix("const ")?.split_once(": bool = ").map(|(name, _)| name))
                .collect();
            for line in source.lines() {
                let Some((_, condition)) = line.split_once("if (") else { continue };
                let words: Vec<&str> = condition.split(|c: char| !is_identifier(c)).collect();
                for name in &constants {
                    assert!(
                        !words.contains(name),
                        "{} {stage:?} {form:?}: `{}` branches on {name}",
                        spec.name,
                        line.trim()
                    );
                }
            }
        }
    }
}

/// What a device must offer for `form`: nothing beyond WebGPU, or 64-bit integers.
fn capabilities(form: MulForm) -> naga::valid::Capabilities {
    if form.needs_int64() {
        naga::valid::Capabilities::SHADER_INT64
    } else {
        naga::valid::Capabilities::empty()
    }
}

/// The 13-bit forms use no 64-bit integers, so they run in browsers.
#[test]
fn narrow_forms_use_no_64_bit_integers() {
    for (curve, form) in cases() {
        let spec = curve.spec;
        let source = webgpu_msm::wgsl::field_gen::field_module(curve, form);
        assert_eq!(source.contains("u64"), form.needs_int64(), "{} {form:?}", spec.name);
    }
}

/// The step table (`src/step.rs`) agrees with the composed modules: every step's entry point is
/// in its stage's module, and the bindings the table lists are exactly the group-0 globals that
/// the entry point uses, each a uniform or storage buffer as the table's buffer is, and written
/// by the entry point exactly where the table says `ReadWrite`. For every preset profile, curve,
/// form it weighs and accumulation: each module as the profile's pipelines compile it.
#[test]
fn step_table_matches_the_shaders() {
    // Modules already checked (for another profile): the curve, its model, stage, form and steps.
    let mut checked: Vec<(*const CurveSpec, PointModel, Stage, MulForm, Vec<Step>)> = Vec::new();
    for profile in profiles() {
        for (id, accumulation) in CurveId::ALL.iter().flat_map(|c| ACCUMULATIONS.map(|a| (c, a))) {
            for base_form in profile.forms(id.spec()) {
                let accumulation = accumulation.on(id.spec());
                let curve = RunningCurve::new(id.spec(), accumulation);
                let kernels = Kernels { form: base_form, accumulation, plan: profile.plan_shape(base_form) };
                for (stage, form, steps) in modules(&profile, curve, kernels) {
                    let key = (curve.spec as *const CurveSpec, curve.model, stage, form, steps.clone());
                    if !checked.contains(&key) {
                        check_step_table(curve, stage, form, &steps);
                        checked.push(key);
                    }
                }
            }
        }
    }
}

/// Each module of `kernels` on `curve` as `profile`'s pipelines compile it (a stage in the form
/// of its steps), with the steps it holds, and the step compiled on demand
/// (`precompute_multiples`), which holds to the table too.
fn modules(profile: &DeviceProfile, curve: RunningCurve, kernels: Kernels) -> Vec<(Stage, MulForm, Vec<Step>)> {
    let steps: Vec<Step> = Step::of(curve.model, kernels.plan).chain([Step::PrecomputeMultiples]).collect();
    let step_form = |step: Step| profile.step_form(step, curve, kernels.form);
    let mut modules: Vec<(Stage, MulForm, Vec<Step>)> = Vec::new();
    for &step in &steps {
        let (stage, form) = (step.stage(), step_form(step));
        match modules.iter_mut().find(|(s, f, _)| *s == stage && *f == form) {
            Some((_, _, held)) => held.push(step),
            None => modules.push((stage, form, vec![step])),
        }
    }
    modules
}

/// The step table's entries of `steps` against the module of `stage` for `curve` in `form`.
fn check_step_table(curve: RunningCurve, stage: Stage, form: MulForm, steps: &[Step]) {
    let spec = curve.spec;
    use naga::valid::GlobalUse;
    let source = compose(curve, stage, form);
    let module = naga::front::wgsl::parse_str(&source).expect("parses");
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities(form))
        .validate(&module)
        .expect("validates");
    for &step in steps {
        let what = format!("{} {form:?} {}", spec.name, step.name());
        let index = module.entry_points.iter().position(|e| e.name == step.name());
        let uses = info.get_entry_point(index.unwrap_or_else(|| panic!("{what}: no such entry point")));
        let used: Vec<(u32, &naga::GlobalVariable, GlobalUse)> = module
            .global_variables
            .iter()
            .filter(|&(handle, _)| !uses[handle].is_empty())
            .filter_map(|(handle, var)| {
                let binding = var.binding.as_ref()?;
                assert_eq!(binding.group, 0, "{what}: {:?} outside group 0", var.name);
                Some((binding.binding, var, uses[handle]))
            })
            .collect();
        for (binding, var, _) in &used {
            let listed = step.bindings().iter().any(|(b, _, _)| b == binding);
            assert!(listed, "{what} uses @binding({binding}) {:?}, which the table lacks", var.name);
        }
        assert_eq!(used.len(), step.bindings().len(), "{what}: the table lists bindings it does not use");
        for &(binding, buffer, access) in step.bindings() {
            let (_, var, usage) = used.iter().find(|(b, _, _)| *b == binding).expect("checked above");
            let what = format!("{what} @binding({binding}) {:?} as {buffer:?}", var.name);
            match var.space {
                naga::AddressSpace::Uniform => assert!(buffer.is_uniform(), "{what}: a uniform"),
                naga::AddressSpace::Storage { access: declared } => {
                    assert!(!buffer.is_uniform(), "{what}: a storage buffer");
                    let writable = declared.contains(naga::StorageAccess::STORE);
                    assert!(writable || access == Access::Read, "{what}: declared read-only");
                }
                other => panic!("{what}: in {other:?}"),
            }
            let writes = usage.contains(GlobalUse::WRITE);
            assert_eq!(writes, access == Access::ReadWrite, "{what}: written by the entry point?");
        }
    }
}

/// Every entry point that parks values in the stash (`src/wgsl/stash.rs`) gives it the thread's
/// lane first (`stash_enter` is what writes `stash_lane`): one that did not would have all its
/// workgroup's threads share slot 0. Its workgroup has no more threads than the stash has slots.
#[test]
fn entry_points_that_use_the_stash_enter_it() {
    use naga::valid::GlobalUse;
    let mut checked = 0;
    for (curve, form) in cases() {
        let spec = curve.spec;
        for stage in Stage::ALL {
            let source = compose(curve, stage, form);
            let module = naga::front::wgsl::parse_str(&source).expect("parses");
            let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities(form))
                .validate(&module)
                .expect("validates");
            let global = |name: &str| module.global_variables.iter().find(|(_, v)| v.name.as_deref() == Some(name));
            // Modules without point additions import no stash.
            let Some((stash, stash_var)) = global("stash") else {
                continue;
            };
            assert!(stashes(spec, form), "{} {stage:?} {form:?}: a stash where none is wanted", spec.name);
            let naga::TypeInner::Array { size: naga::ArraySize::Constant(slots), .. } =
                module.types[stash_var.ty].inner
            else {
                panic!("the stash is an array of fixed size");
            };
            let (lane, _) = global("stash_lane").expect("the stash's lane");
            for (index, entry) in module.entry_points.iter().enumerate() {
                let uses = info.get_entry_point(index);
                if uses[stash].is_empty() {
                    continue;
                }
                let what = format!("{} {form:?} {}", spec.name, entry.name);
                assert!(uses[lane].contains(GlobalUse::WRITE), "{what} uses the stash without stash_enter");
                assert!(entry.workgroup_size.iter().product::<u32>() <= slots.get(), "{what}: more threads than slots");
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "no entry point uses the stash");
}

/// Limb arrays are only ever indexed by literals: runtime-indexed private arrays are 100–250×
/// slower on the software GPUs, and spill on real ones.
#[test]
fn generated_big_integer_code_indexes_limbs_only_by_literals() {
    for (curve, form) in cases() {
        let spec = curve.spec;
        let field = webgpu_msm::wgsl::field_gen::field_module(curve, form);
        let mut rest = field.as_str();
        let mut indexed = 0;
        while let Some(at) = rest.find(".l[").or_else(|| rest.find(".w[")) {
            let tail = &rest[at + 3..];
            let index = &tail[..tail.find(']').expect("closing bracket")];
            assert!(index.chars().all(|c| c.is_ascii_digit()), "{}: runtime index [{index}]", spec.name);
            indexed += 1;
            rest = tail;
        }
        assert!(indexed > spec.field_for(form).limbs * 4);
    }
}

#[test]
fn montgomery_constants_match_num_bigint() {
    for m in specs().into_iter().flat_map(|s| [&s.field, &s.wide_field]) {
        assert_eq!(m.r, BigUint::from(1u32) << (m.limb_bits as usize * m.limbs));
        // 13-bit limbs: 4p < R leaves room for lazy sums; 32-bit limbs: fused sums of reduced
        // operands (3p(1 + 2^−31) < R, `limbs::wide_limbs`).
        let k = if m.limb_bits == 13 { 4u32 } else { 3 };
        assert!(BigUint::from(k) * &m.modulus < m.r, "room for lazy or fused sums");
        assert_eq!((&m.r_mod_p * &m.r_inv) % &m.modulus, BigUint::from(1u32));
        assert_eq!(m.r2_mod_p, (&m.r * &m.r) % &m.modulus);
        // mu·p ≡ −1 (mod 2^limb_bits)
        let p0 = m.limbs_of(&m.modulus)[0] as u64;
        assert_eq!((m.mu as u64 * p0 + 1) % (1 << m.limb_bits), 0);
    }
    // Limbs of each field (13-bit, 32-bit): the smallest N with 4p < R, worked out by hand.
    for spec in specs() {
        let expected = match spec.name {
            "bls12-377" | "bls12-381" | "bls12-377-g2" | "bls12-381-g2" => (30, 12),
            "ed-on-bls12-377" | "bn254" | "bn254-g2" | "grumpkin" => (20, 8),
            // R/p ≈ 4 in 8 32-bit limbs: fused sums of reduced operands, no lazy sums.
            "pallas" | "vesta" => (20, 8),
            // p ≈ 2^256: a ninth 32-bit limb (its top limb 0).
            "secp256k1" => (20, 9),
            other => panic!("no expected limb counts for {other}"),
        };
        assert_eq!((spec.field.limbs, spec.wide_field.limbs), expected, "{}", spec.name);
    }
}

#[test]
fn limb_conversions_round_trip() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for spec in specs() {
        let m = &spec.field;
        for _ in 0..50 {
            let bytes: Vec<u8> = (0..48).map(|_| rng.gen()).collect();
            let x = BigUint::from_bytes_le(&bytes) % &m.modulus;
            let limbs = to_limbs(&x, m.limbs);
            assert_eq!(from_limbs(&limbs), x);
            // Two limbs a word, the low one first (the packed registers' layout).
            let packed = pack_limbs(&limbs);
            assert_eq!(packed.len(), limbs.len().div_ceil(2));
            for (i, &limb) in limbs.iter().enumerate() {
                assert_eq!((packed[i / 2] >> (16 * (i % 2))) & 0xffff, limb);
            }
            assert_eq!(m.from_storage(&m.to_storage(&x)), x);
            let wide = &spec.wide_field;
            assert_eq!(join_limbs(&wide.limbs_of(&x), 32), x);
            assert_eq!(wide.from_storage(&wide.to_storage(&x)), x);
        }
        // Storage holds the value's words in either limb width: an element takes the bytes of
        // a canonical coordinate (a 9-limb 32-bit field and 20 or 30 13-bit limbs included).
        assert_eq!(m.storage_words(), spec.base_words(), "{}", spec.name);
        assert_eq!(spec.wide_field.storage_words(), spec.base_words(), "{}", spec.name);
    }
}

/// The generated multiplication's exact step sequence, run with overflow checks on random and
/// extreme operands, equals a·b·R⁻¹ mod p; also on lazy sums' operands, below 2p
/// (`field_add_lazy` in field_gen.rs), in every field that takes them: every 13-bit one.
#[test]
fn montgomery_multiplication_model_never_overflows_and_is_right() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    for spec in specs() {
        let m: &Montgomery = &spec.field;
        let p_minus_1 = &m.modulus - 1u32;
        let mut cases = vec![(p_minus_1.clone(), p_minus_1.clone()), (BigUint::default(), p_minus_1.clone())];
        for _ in 0..200 {
            let a: Vec<u8> = (0..48).map(|_| rng.gen()).collect();
            let b: Vec<u8> = (0..48).map(|_| rng.gen()).collect();
            cases.push((BigUint::from_bytes_le(&a) % &m.modulus, BigUint::from_bytes_le(&b) % &m.modulus));
        }
        let wide = &spec.wide_field;
        for (a, b) in cases {
            let expected = (&a * &b * &m.r_inv) % &m.modulus;
            let got = mont_mul_limbs(&to_limbs(&a, m.limbs), &to_limbs(&b, m.limbs), m);
            assert_eq!(from_limbs(&got), expected);
            let got = mont_mul_scanned(&to_limbs(&a, m.limbs), &to_limbs(&b, m.limbs), m);
            assert_eq!(from_limbs(&got), expected);
            let got = mont_mul_wide(&wide.limbs_of(&a), &wide.limbs_of(&b), wide);
            assert_eq!(join_limbs(&got, 32), (&a * &b * &wide.r_inv) % &wide.modulus);
        }
        assert!(m.takes_lazy_sums(), "{}: 13-bit limbs leave room for lazy sums", spec.name);
        for [a, b] in lazy_operands(&m.modulus, &mut rng) {
            let expected = (&a * &b * &m.r_inv) % &m.modulus;
            let got = mont_mul_limbs(&to_limbs(&a, m.limbs), &to_limbs(&b, m.limbs), m);
            assert_eq!(from_limbs(&got), expected, "{} lazy operands", spec.name);
            let got = mont_mul_scanned(&to_limbs(&a, m.limbs), &to_limbs(&b, m.limbs), m);
            assert_eq!(from_limbs(&got), expected, "{} lazy operands", spec.name);
        }
        if wide.takes_lazy_sums() {
            for [a, b] in lazy_operands(&wide.modulus, &mut rng) {
                let got = mont_mul_wide(&wide.limbs_of(&a), &wide.limbs_of(&b), wide);
                assert_eq!(join_limbs(&got, 32), (&a * &b * &wide.r_inv) % &wide.modulus, "{} lazy", spec.name);
            }
        }
    }
}

/// K operands below 2p, what lazy sums give a product (`field_add_lazy`): every one 2p − 1,
/// 2p − 1 beside p − 1 and beside 0, and 200 random ones.
fn lazy_operands<const K: usize>(p: &BigUint, rng: &mut rand::rngs::StdRng) -> Vec<[BigUint; K]> {
    let two_p = p * 2u32;
    let top = &two_p - 1u32;
    let mut cases = vec![
        std::array::from_fn(|_| top.clone()),
        std::array::from_fn(|k| if k % 2 == 0 { top.clone() } else { p - 1u32 }),
        std::array::from_fn(|k| if k % 2 == 0 { BigUint::default() } else { top.clone() }),
    ];
    cases.extend((0..200).map(|_| {
        std::array::from_fn(|_| BigUint::from_bytes_le(&(0..52).map(|_| rng.gen()).collect::<Vec<u8>>()) % &two_p)
    }));
    cases
}

/// The fused sum of two products (`field_mul_sum`, 32-bit limbs), step for step with overflow
/// checks on extreme and random operands, equals (a·b + c·d)·R⁻¹ mod p; also on lazy sums'
/// operands where the field takes them.
#[test]
fn fused_sum_of_products_model_never_overflows_and_is_right() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for spec in specs() {
        let wide = &spec.wide_field;
        let top = &wide.modulus - 1u32;
        let mut cases = vec![[top.clone(), top.clone(), top.clone(), top.clone()], [0u32, 1, 0, 1].map(BigUint::from)];
        cases.push([top.clone(), top.clone(), BigUint::default(), top.clone()]);
        for _ in 0..200 {
            cases.push(std::array::from_fn(|_| {
                BigUint::from_bytes_le(&(0..48).map(|_| rng.gen()).collect::<Vec<u8>>()) % &wide.modulus
            }));
        }
        if wide.takes_lazy_sums() {
            cases.extend(lazy_operands(&wide.modulus, &mut rng));
        }
        for [a, b, c, d] in cases {
            let limbs = |v: &BigUint| wide.limbs_of(v);
            let got = mont_mul_sum_wide(&limbs(&a), &limbs(&b), &limbs(&c), &limbs(&d), wide);
            assert_eq!(join_limbs(&got, 32), ((&a * &b + &c * &d) * &wide.r_inv) % &wide.modulus, "{}", spec.name);
        }
    }
}

/// The cost model's unit costs (`RunningCurve::op_muls`) are the base field multiplications the
/// curve formulas really call, in every form (batched or not, sums fused or not: each composes
/// its own arm of the formulas' `#if` blocks): `field_mul` counts 1 (3 in Fp2), `field_mul_xK` K
/// times that, `field_mul_sum` 2 and `field_mul_sum_xK` 2K times that, and a base field `fp_mul`
/// 1.
#[test]
fn cost_model_unit_costs_match_the_curve_formulas() {
    for running in CurveId::ALL.iter().flat_map(|&curve| models(curve)) {
        let m = running.spec.base_muls_per_mul() as usize;
        let costs = running.op_muls();
        for form in [MulForm::ROLLED, MulForm::ROLLED.unbatched(), MulForm::WIDE, MulForm::WIDE.unbatched()] {
            let source = compose(running, Stage::Smvp, form);
            let muls = |name: &str| formula_muls(&source, name, m);
            let finish = muls("point_finish");
            let curve = format!("{} {:?} {form:?}", running.spec.name, running.model);
            // convert_points: into Montgomery form (as stored_from_raw), the curve equation, the
            // stored form.
            let convert = muls("stored_from_raw") + muls("affine_on_curve") + muls("stored_from_affine");
            assert_eq!(convert, costs.convert, "{curve} convert");
            assert_eq!(muls("point_add_stored") + finish, costs.add_stored, "{curve} add_stored");
            assert_eq!(muls("point_add") + finish, costs.add, "{curve} add");
        }
    }
}

/// The body of generated function `name` in `source`, if it has one.
fn find_function<'a>(source: &'a str, name: &str) -> Option<&'a str> {
    let rest = &source[source.find(&format!("fn {name}("))?..];
    Some(&rest[..rest[1..].find("\nfn ").map_or(rest.len(), |end| end + 1)])
}

/// The body of generated function `name` in `source`.
fn function_body<'a>(source: &'a str, name: &str) -> &'a str {
    find_function(source, name).unwrap_or_else(|| panic!("no function {name}"))
}

/// Base field products of curve formula `name` in the composed `source` (`m` per field
/// product). A formula whose body only returns another formula's value (`return
/// point_add_stored_in_turn(p, q);`, the arm of a form) counts that formula's.
fn formula_muls(source: &str, name: &str, m: usize) -> u64 {
    let text = function_body(source, name);
    let statements: Vec<&str> = text
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("//") && *line != "}")
        .collect();
    if let [only] = statements[..] {
        let callee = only.strip_prefix("return ").and_then(|call| call.split_once('(')).map(|(callee, _)| callee);
        if let Some(twin) = callee.filter(|callee| callee.starts_with("point_")) {
            return formula_muls(source, twin, m);
        }
    }
    let batched: usize = (2..=6).map(|k| k * text.matches(&format!("field_mul_x{k}(")).count()).sum();
    // A sum a·b + c·d is two products (fused into one reduction or not).
    let sums: usize = 2 * text.matches("field_mul_sum(").count()
        + (2..=3).map(|k| 2 * k * text.matches(&format!("field_mul_sum_x{k}(")).count()).sum::<usize>();
    let calls_to_const_mul = text.matches("mul_by_b3(").count() * body_muls(source, "mul_by_b3", m);
    ((text.matches("field_mul(").count() + batched + sums) * m + calls_to_const_mul) as u64
}

/// Base field multiplications of a generated function's `field_mul` (`m` each) and `fp_mul`
/// calls (0 when it does not exist).
fn body_muls(source: &str, name: &str, m: usize) -> usize {
    find_function(source, name)
        .map_or(0, |body| body.matches("field_mul(").count() * m + body.matches("fp_mul(").count())
}
