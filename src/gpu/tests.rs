//! GPU tests of single operations and single stages, on whatever adapter wgpu picks (a software GPU
//! in CI), with the kernels of several device profiles. Each compares the GPU with arkworks or with
//! the stage's CPU model in `cpu_model`.

use ark_ec::{AdditiveGroup, CurveGroup};
use ark_ff::{Field, PrimeField, UniformRand, Zero};
use ark_std::rand::{rngs::StdRng, Rng, SeedableRng};
use num_bigint::BigUint;

use crate::calibrate::Candidates;
use crate::combine::points_from_gpu;
use crate::cpu_model;
use crate::curve::registry::each_curve;
use crate::curve::{push_scalar_words, Equation, GpuCurve};
use crate::gpu::pipelines::stage_pipelines;
use crate::gpu::run::PointSource;
use crate::limbs::Montgomery;
use crate::plan::Plan;
use crate::point_model::{PointModel, RunningCurve};
use crate::step::Buffer;
use crate::upload::{Points, Scalars};
use crate::wgsl::{MulForm, Stage};
use crate::MsmContext;

use crate::testing::{
    shared_context, shared_gpu_form_context, shared_gpu_narrow_context, shared_narrow_context, tests_every_form,
};

fn biguint(words: &[u32]) -> BigUint {
    BigUint::from_slice(words)
}

/// A coordinate's canonical components over the base prime field (one, or c0 and c1 of Fp2).
type Coordinate = Vec<BigUint>;

/// Canonical affine (x, y) of a point, via the upload encoding.
fn affine_xy<G: GpuCurve>(p: &G) -> (Coordinate, Coordinate) {
    let mut words = Vec::new();
    p.push_words(&mut words);
    let (w, base) = (G::spec().coord_words, G::spec().base_words());
    let coordinate = |words: &[u32]| words.chunks(base).map(biguint).collect();
    (coordinate(&words[..w]), coordinate(&words[w..]))
}

/// The components of a coordinate-field element.
fn components<F: Field>(value: &F) -> Coordinate {
    value.to_base_prime_field_elements().map(|c| BigUint::from_bytes_le(&c.into_bigint().to_bytes_le())).collect()
}

/// Storage words (in the limbs of `m`) of coordinates given by their components.
fn storage_words(m: &Montgomery, coords: &[Coordinate]) -> Vec<u32> {
    coords.iter().flatten().flat_map(|c| m.to_storage(c)).collect()
}

/// A GPU `Point` (Montgomery storage words of `form`) for `p`, in coordinates scaled by `lambda`.
fn gpu_point_words<G: GpuCurve>(p: &G, lambda: &BigUint, form: MulForm) -> Vec<u32> {
    let spec = G::spec();
    let m = spec.field_for(form);
    let (x, y) = affine_xy(p);
    let scale = |a: &Coordinate| a.iter().map(|c| (c * lambda) % &m.modulus).collect::<Coordinate>();
    let constant = |c: BigUint| -> Coordinate {
        std::iter::once(c).chain(std::iter::repeat(BigUint::zero())).take(spec.degree()).collect()
    };
    // The test kernels run the curve's own point model.
    let coords = match (&spec.equation, p.is_zero()) {
        (Equation::ShortWeierstrassA0 { .. }, true) => {
            vec![constant(BigUint::zero()), constant(lambda.clone()), constant(BigUint::zero())]
        }
        (Equation::ShortWeierstrassA0 { .. }, false) => vec![scale(&x), scale(&y), constant(lambda.clone())],
        (Equation::TwistedEdwardsAMinus1 { .. }, _) => {
            let xy = vec![(&x[0] * &y[0]) % &m.modulus];
            vec![scale(&x), scale(&y), scale(&xy), constant(lambda.clone())]
        }
    };
    storage_words(m, &coords)
}

/// The field form `ctx` runs for `G`: its only candidate (fixed, or the one its profile has),
/// else the calibrated one (which compiles the curve's pipelines on first use, minutes for a
/// BLS12 G2 group on a software GPU).
fn form_of<G: GpuCurve>(ctx: &MsmContext) -> MulForm {
    let calibrated = || pollster::block_on(ctx.warm_up(G::ID)).expect("the curve compiles").kernels.form;
    match Candidates::new(ctx.device_profile(), G::spec(), ctx.fixed).forms[..] {
        [form] => form,
        _ => calibrated(),
    }
}

/// Runs `entry` of `G`'s test kernels, in the form `ctx` runs, with the given storage buffers
/// (binding → contents) and returns the contents of the `output` binding.
fn run_test_kernel<G: GpuCurve>(
    ctx: &MsmContext,
    entry: &str,
    inputs: &[(u32, &[u32])],
    output: (u32, usize),
    threads: u32,
) -> Vec<u32> {
    run_spec_test_kernel(ctx, RunningCurve::native(G::spec()), form_of::<G>(ctx), entry, inputs, output, threads)
}

/// [`run_test_kernel`] for the test kernels of any `curve` in any `form` the device runs.
fn run_spec_test_kernel(
    ctx: &MsmContext,
    curve: RunningCurve,
    form: MulForm,
    entry: &str,
    inputs: &[(u32, &[u32])],
    output: (u32, usize),
    threads: u32,
) -> Vec<u32> {
    use wgpu::util::DeviceExt;
    let gpu = ctx.gpu();
    let [pipeline] = stage_pipelines(gpu, curve, form, Stage::TestOps, [entry]);
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    let buffers: Vec<(u32, wgpu::Buffer)> = inputs
        .iter()
        .map(|(binding, data)| {
            let buffer = gpu.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: bytemuck::cast_slice(data),
                usage,
            });
            (*binding, buffer)
        })
        .chain(std::iter::once((
            output.0,
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: output.1 as u64 * 4,
                usage,
                mapped_at_creation: false,
            }),
        )))
        .collect();
    let entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .map(|(binding, buffer)| wgpu::BindGroupEntry { binding: *binding, resource: buffer.as_entire_binding() })
        .collect();
    let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(threads.div_ceil(64).max(1), 1, 1);
    }
    gpu.queue.submit([encoder.finish()]);
    let out = &buffers.last().expect("output buffer").1;
    pollster::block_on(gpu.read_words(out, output.1 as u64 * 4)).expect("readback")
}

/// Results per case of `test_field_ops` (shaders/test_ops.wgsl).
const OPS: usize = 8;

fn field_ops_match_arkworks<G: GpuCurve>(ctx: Option<&MsmContext>) {
    let Some(ctx) = ctx else { return };
    let spec = G::spec();
    let m = spec.field_for(form_of::<G>(ctx));
    let mut rng = StdRng::seed_from_u64(7);
    let minus_one = -G::BaseField::ONE;
    let mut pairs: Vec<(G::BaseField, G::BaseField)> = vec![
        (G::BaseField::zero(), G::BaseField::zero()),
        (G::BaseField::ONE, minus_one),
        (minus_one, minus_one),
        (G::BaseField::zero(), G::BaseField::ONE),
        // The largest lazy difference, 2p − 1.
        (minus_one, G::BaseField::zero()),
    ];
    pairs.extend((0..100).map(|_| (G::BaseField::rand(&mut rng), G::BaseField::rand(&mut rng))));
    let to_storage = |f: &G::BaseField| storage_words(m, &[components(f)]);
    let input: Vec<u32> = pairs.iter().flat_map(|(a, b)| [a, b]).flat_map(to_storage).collect();
    let words = spec.storage_words();
    let out =
        run_test_kernel::<G>(ctx, "test_field_ops", &[(0, &input)], (1, pairs.len() * OPS * words), pairs.len() as u32);
    for (i, (a, b)) in pairs.iter().enumerate() {
        // field_inv(0) = 0, as arkworks' inverse().unwrap_or(0).
        let expected = [
            *a * b,
            *a + b,
            *a - b,
            -*a,
            a.inverse().unwrap_or_default(),
            a.square() + b.square(),
            (*a + b) * (*a - b),
            (*a - b) * a.double(),
        ];
        for (k, e) in expected.iter().enumerate() {
            let got = &out[(OPS * i + k) * words..(OPS * i + k + 1) * words];
            assert_eq!(got, to_storage(e), "{} case {i} op {k}", spec.name);
        }
    }
}

/// secp256k1's p, the one field that takes 9 limbs of 32 bits (4 rounds per loop iteration do
/// not divide them; 20 of 13), in every shape of the arithmetic any profile runs, not only the
/// forms the secp256k1 group's tests pick: its generated arithmetic equals num-bigint's, so the
/// layout (limbs, rounds per loop) follows the field.
#[cfg(feature = "bn254")]
#[test]
fn gpu_field_ops_of_a_nine_limb_field_match_num_bigint() {
    let Some(ctx) = shared_context() else { return };
    let p = (BigUint::from(1u32) << 256u32) - (BigUint::from(1u32) << 32u32) - BigUint::from(977u32);
    let spec = crate::curve::CurveSpec {
        name: "secp256k1 base field",
        field: Montgomery::new(&p),
        wide_field: Montgomery::with_limb_bits(&p, crate::limbs::WIDE_LIMB_BITS),
        ..<ark_bn254::G1Affine as GpuCurve>::spec().clone()
    };
    assert_eq!((spec.wide_field.limbs, spec.wide_field.loop_rounds(MulForm::WIDE.rounds())), (9, 3));
    let mut rng = StdRng::seed_from_u64(9);
    let below_p = |rng: &mut StdRng| BigUint::from_bytes_le(&rng.gen::<[u8; 32]>()) % &p;
    let minus_one = &p - 1u32;
    let mut pairs: Vec<(BigUint, BigUint)> = vec![
        (BigUint::zero(), BigUint::zero()),
        (BigUint::from(1u32), minus_one.clone()),
        (minus_one.clone(), minus_one.clone()),
        (minus_one, BigUint::zero()),
    ];
    pairs.extend((0..100).map(|_| (below_p(&mut rng), below_p(&mut rng))));
    // Every shape of the arithmetic the profiles run: batched or not, 5 or 10 rounds, a loop
    // per batch or per product, straight-line.
    let forms = [
        MulForm::WIDE,
        MulForm::WIDE.unbatched(),
        MulForm::ROLLED,
        MulForm::ROLLED.with_rounds(10),
        MulForm::Rolled { rounds: 5, batched: true, interleaved: false, fp2_loop: false },
        MulForm::SCANNED,
        MulForm::ROLLED.unbatched(),
    ];
    for form in forms.into_iter().filter(|f| ctx.gpu().int64 || !f.needs_int64()) {
        let m = spec.field_for(form);
        let input: Vec<u32> = pairs.iter().flat_map(|(a, b)| [a, b]).flat_map(|v| m.to_storage(v)).collect();
        let words = m.storage_words();
        let output = (1, pairs.len() * OPS * words);
        let curve = RunningCurve::native(&spec);
        let out = run_spec_test_kernel(ctx, curve, form, "test_field_ops", &[(0, &input)], output, pairs.len() as u32);
        for (i, (a, b)) in pairs.iter().enumerate() {
            let inverse = a.modpow(&(&p - 2u32), &p);
            let (sum, difference) = ((a + b) % &p, (a + &p - b) % &p);
            let expected = [
                a * b % &p,
                sum.clone(),
                difference.clone(),
                (&p - a) % &p,
                inverse,
                (a * a + b * b) % &p,
                &sum * &difference % &p,
                &difference * (a * 2u32) % &p,
            ];
            for (k, e) in expected.iter().enumerate() {
                let got = &out[(OPS * i + k) * words..(OPS * i + k + 1) * words];
                assert_eq!(m.from_storage(got), *e, "{form:?} case {i} op {k}");
            }
        }
    }
}

use ark_ff::BigInteger;

fn curve_ops_match_arkworks<G: GpuCurve>(ctx: Option<&MsmContext>) {
    let Some(ctx) = ctx else { return };
    let spec = G::spec();
    let mut rng = StdRng::seed_from_u64(8);
    let random = |rng: &mut StdRng| G::Group::rand(rng).into_affine();
    let p0 = random(&mut rng);
    let mut cases: Vec<(G, G)> = vec![(p0, p0), (p0, (-p0.into_group()).into_affine()), (G::zero(), p0)];
    cases.extend((0..30).map(|_| (random(&mut rng), random(&mut rng))));
    let curve = RunningCurve::native(spec);
    let sw = matches!(spec.equation, Equation::ShortWeierstrassA0 { .. });
    if !sw {
        // On Edwards curves the identity is an ordinary affine point and may be added mixed.
        cases.push((p0, G::zero()));
    }
    let lambda = BigUint::from(0x1234_5678u32);
    let form = form_of::<G>(ctx);
    let point_in: Vec<u32> =
        cases.iter().flat_map(|(p, q)| [p, q]).flat_map(|p| gpu_point_words(p, &lambda, form)).collect();
    let mut raw_in = Vec::new();
    cases.iter().for_each(|(_, q)| q.push_words(&mut raw_in));
    let point_words = curve.model.point_coords() * spec.storage_words();
    let n = cases.len();
    let inputs: [(u32, &[u32]); 2] = [(2, &point_in), (3, &raw_in)];
    let run = |entry: &str, results: usize| {
        let output = (4, n * results * point_words);
        let out = run_spec_test_kernel(ctx, curve, form, entry, &inputs, output, (n * results) as u32);
        points_from_gpu::<G>(&out, curve, form).expect("GPU points are on the curve")
    };
    let (sums, doubles, stored) =
        (run("test_point_add", 1), run("test_point_double", 1), run("test_point_add_stored", 2));
    for (i, (p, q)) in cases.iter().enumerate() {
        let (p, q) = (p.into_group(), q.into_group());
        let got = [sums[i], doubles[i], stored[2 * i], stored[2 * i + 1]];
        let expected = [p + q, p.double(), p + q, p - q];
        for (k, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(g, e, "{} case {i} op {k}", spec.name);
        }
    }
}

/// Runs the full pipeline once and checks every stage's output buffer against its CPU model
/// applied to the GPU's own input to that stage. With `skewed`, 90% of the scalars are equal, so
/// a few buckets span many accumulation chunks.
fn stages_match_cpu_models<G: GpuCurve>(ctx: Option<&MsmContext>, n: usize, window_bits: Option<u32>, skewed: bool) {
    let Some(ctx) = ctx else { return };
    let spec = G::spec();
    let mut rng = StdRng::seed_from_u64(9 + n as u64);
    let mut points: Vec<G> = (0..n).map(|_| G::Group::rand(&mut rng).into_affine()).collect();
    let mut scalars: Vec<G::ScalarField> = (0..n).map(|_| G::ScalarField::rand(&mut rng)).collect();
    points[0] = G::zero();
    scalars[1] = G::ScalarField::zero();
    scalars[2] = -G::ScalarField::ONE;
    if skewed {
        let common = scalars[3];
        scalars.iter_mut().skip(4).filter(|_| rng.gen_bool(0.9)).for_each(|s| *s = common);
    }
    let plan = match window_bits {
        Some(c) => Plan::with_window(n as u32, spec.scalar_bits, c),
        None => Plan::choose(n as u32, spec.scalar_bits),
    }
    .with_inputs(Plan::POINTS_MONTGOMERY | Plan::SCALARS_MONTGOMERY)
    .shaped(ctx.device_profile().plan_shape(form_of::<G>(ctx)));
    // The upload is arkworks' own limbs; the CPU models start from canonical scalar words.
    let mut raw_scalars = Vec::new();
    scalars.iter().for_each(|s| push_scalar_words(s, &mut raw_scalars));

    // Holds the workspace's lease while reading its buffers, so no other test's call reuses it;
    // each buffer in memory of its own, so every stage's output is still there after the run.
    let runner = pollster::block_on(ctx.runner::<G>()).expect("runner");
    let sizes = runner.buffer_sizes(&plan).apart();
    let mut lease = pollster::block_on(runner.workspaces.lease(&sizes));
    if !lease.covers(&sizes) {
        let apart =
            crate::gpu::workspace::Workspace::new(&ctx.gpu().device, &runner.pipelines, &sizes, lease.workspace());
        lease.replace(apart);
    }
    let output = pollster::block_on(runner.run_leased(
        ctx.gpu(),
        &mut lease,
        &plan,
        PointSource::upload(&Points::Arkworks(&points).raw_halves(), 0),
        &Scalars::<G>::Arkworks(&scalars),
        false,
    ))
    .expect("GPU run");
    output.faults.check(0).expect("valid points");
    let (curve, spec) = (runner.curve, runner.curve.spec);
    let window_sums =
        points_from_gpu::<G>(&output.window_sums, curve, form_of::<G>(ctx)).expect("GPU points are on the curve");
    let workspace = lease.workspace().expect("workspace");
    let read = |b: Buffer, words: usize| {
        pollster::block_on(ctx.gpu().read_words(workspace.buffer(b), words as u64 * 4)).expect("readback")
    };
    let (k, buckets) = (plan.num_windows as usize, plan.total_buckets() as usize);

    // Stage 1: scalars out of arkworks' form (in place), digits and counts.
    assert!(read(Buffer::RawScalars, n * 8) == raw_scalars, "stage 1 scalars differ from arkworks' integers");
    let skip: Vec<bool> = points.iter().map(|p| p.is_zero()).collect();
    let (digits, counts) = cpu_model::decompose(&raw_scalars, &skip, &plan);
    assert!(read(Buffer::Digits, k.div_ceil(2) * n) == digits, "stage 1 digits differ from the CPU model");
    // Each stored point: its first coordinates in one buffer, the rest in the other.
    let coord_words = spec.storage_words();
    let (front, back) =
        (curve.model.stored_front_coords(), curve.model.stored_coords() - curve.model.stored_front_coords());
    let front_words = read(Buffer::PointsFront, n * front * coord_words);
    let back_words = read(Buffer::PointsBack, n * back * coord_words);
    for (i, p) in points.iter().enumerate().skip(1) {
        let field = spec.field_for(form_of::<G>(ctx));
        let words = [
            &front_words[i * front * coord_words..(i + 1) * front * coord_words],
            &back_words[i * back * coord_words..(i + 1) * back * coord_words],
        ]
        .concat();
        let coords: Vec<BigUint> = words.chunks(field.storage_words()).map(|w| field.from_storage(w)).collect();
        let (x, y) = affine_xy(p);
        let modulus = &spec.field.modulus;
        if curve.model == PointModel::Projective {
            assert_eq!(coords, [x, y].concat(), "stage 1 point {i}");
            continue;
        }
        // Twisted Edwards models: over prime fields.
        let (x, y) = (x[0].clone(), y[0].clone());
        let expected = match curve.model {
            PointModel::Projective => unreachable!("checked above"),
            PointModel::Extended => {
                let Equation::TwistedEdwardsAMinus1 { d } = &spec.equation else { unreachable!("an Edwards curve") };
                vec![(&y + modulus - &x) % modulus, (&y + &x) % modulus, (x * y * d * 2u32) % modulus]
            }
            PointModel::EdwardsImage { affine_bases } => {
                let map = spec.edwards.as_ref().expect("the curve has an Edwards model");
                // (Y − X, Y + X, 2d·T, 2Z) of X = κ·w·(w + t), Y = (w − t)·y, T = κ·w·(w − t),
                // Z = y·(w + t), w = x − α; with affine bases (v − u, v + u, 2d·u·v) of
                // u = X/Z, v = Y/Z.
                let m = |v: BigUint| v % modulus;
                let w = m(x + modulus - &map.alpha);
                let (plus, minus) = (m(&w + &map.t), m(&w + modulus - &map.t));
                let (ex, ey) = (m(&map.kappa * &w * &plus), m(&minus * &y));
                let (et, ez) = (m(&map.kappa * &w * &minus), m(&y * &plus));
                if affine_bases {
                    let inverse = ez.modpow(&(modulus - 2u32), modulus);
                    let (u, v) = (m(ex * &inverse), m(ey * &inverse));
                    vec![m(&v + modulus - &u), m(&v + &u), m(u * v * &map.d * 2u32)]
                } else {
                    vec![m(&ey + modulus - &ex), m(&ey + &ex), m(et * &map.d * 2u32), m(ez * 2u32)]
                }
            }
        };
        assert_eq!(coords, expected, "stage 1 point {i}");
    }

    // Stage 2: CSR offsets and the set of entries in each bucket.
    let csr = cpu_model::transpose(&digits, &plan);
    let starts = read(Buffer::BucketStarts, buckets);
    let ends = read(Buffer::BucketCounts, buckets);
    assert!(starts == csr.starts, "stage 2 starts differ from the CPU model");
    assert!(ends == csr.ends, "stage 2 ends differ from the CPU model");
    let counted: Vec<u32> = starts.iter().zip(&ends).map(|(s, e)| e - s).collect();
    assert!(counted == counts, "stage 1 counts differ from the CPU model");
    // Slots past a window's last entry are unused (stale from earlier calls): compare buckets.
    let entries = read(Buffer::Entries, k * n);
    let mut gpu_entries = vec![0u32; entries.len()];
    for (&s, &e) in starts.iter().zip(&ends) {
        let (s, e) = (s as usize, e as usize);
        gpu_entries[s..e].copy_from_slice(&entries[s..e]);
        gpu_entries[s..e].sort_unstable_by_key(|e| e & !cpu_model::DIGIT_NEGATIVE);
    }
    let gpu_csr = cpu_model::Csr { starts, ends, entries: gpu_entries };
    assert!(gpu_csr == csr, "stage 2 entries differ from the CPU model");

    // Stage 3: bucket sums from the GPU's own CSR. A bucket is left in pieces: its first in
    // Buckets, then the carries of the later chunks it reaches into (stage 4 adds them). Empty
    // buckets are never written.
    let point_words = curve.model.point_coords() * spec.storage_words();
    let decode = |words: &[u32]| points_from_gpu::<G>(words, curve, form_of::<G>(ctx)).expect("pieces on curve")[0];
    let firsts = read(Buffer::Buckets, buckets * point_words);
    let carries = read(Buffer::Carries, plan.total_chunks() as usize * point_words);
    let (n32, s, c) = (plan.n, plan.chunk_len, plan.chunks_per_window);
    let gpu_buckets: Vec<G::Group> = (0..buckets)
        .map(|j| {
            let (start, end) = (gpu_csr.starts[j], gpu_csr.ends[j]);
            if start == end {
                return G::Group::zero();
            }
            let w = j as u32 / plan.num_buckets;
            let (first, last) = ((start - w * n32) / s, (end - 1 - w * n32) / s);
            // After combine_carries, the first carry of each group holds the group's sum.
            let groups = (first + 1..=last).step_by(plan.carry_group as usize);
            groups.fold(decode(&firsts[j * point_words..(j + 1) * point_words]), |sum, k| {
                let slot = (w * c + k) as usize * point_words;
                sum + decode(&carries[slot..slot + point_words])
            })
        })
        .collect();
    assert!(gpu_buckets == cpu_model::smvp(&points, &gpu_csr), "stage 3 buckets");

    // Stage 4: partial sums from the GPU's own buckets, then window sums from its partial sums.
    let partials = points_from_gpu::<G>(
        &read(Buffer::Partials, plan.total_segments() as usize * point_words),
        curve,
        form_of::<G>(ctx),
    )
    .expect("partials on the curve");
    assert!(partials == cpu_model::bucket_reduce::<G>(&gpu_buckets, &plan), "stage 4 partials");
    assert!(window_sums == cpu_model::sum_windows::<G>(&partials, &plan), "stage 4 window sums");
    if skewed {
        let carries = crate::cost::chunk_carries(&plan, &counts);
        assert!(carries > 20, "buckets spanning many chunks were exercised");
        if plan.carry_group > 1 {
            let grouped = crate::cost::grouped_carries(&plan, &counts);
            assert!(carries > 2 * plan.carry_group as u64 && grouped < carries, "several groups of carries");
        }
    }

    // Host combination: the arkworks result.
    let expected = G::Group::msm(&points, &scalars).expect("same lengths");
    assert_eq!(crate::combine::combine_windows(&window_sums, &plan), expected, "combined result");
    assert_eq!(cpu_model::msm(&points, &scalars, &plan), expected, "CPU model composition");
}

use ark_ec::VariableBaseMSM;

/// One invocation adds 1000 random points in sequence and writes every prefix: long chains are
/// where per-invocation driver limits ([`crate::DeviceProfile::LOOP_BUDGET`]) show; each prefix
/// must match.
fn chain_matches_arkworks<G: GpuCurve>(ctx: Option<&MsmContext>) {
    let Some(ctx) = ctx else { return };
    let curve = RunningCurve::native(G::spec());
    let n = 1000;
    let mut rng = StdRng::seed_from_u64(5);
    let points: Vec<G> = (0..n).map(|_| G::Group::rand(&mut rng).into_affine()).collect();
    let mut raw_in = Vec::new();
    points.iter().for_each(|q| q.push_words(&mut raw_in));
    let point_words = curve.model.point_coords() * curve.spec.storage_words();
    let out = run_test_kernel::<G>(ctx, "test_chain", &[(3, &raw_in)], (4, n * point_words), 1);
    let mut acc = G::Group::zero();
    let mut wrong = Vec::new();
    for (k, q) in points.iter().enumerate() {
        acc += q;
        let got = points_from_gpu::<G>(&out[k * point_words..(k + 1) * point_words], curve, form_of::<G>(ctx));
        if got.as_ref().map(|g| g[0] != acc).unwrap_or(true) {
            wrong.push(k);
        }
    }
    let form = form_of::<G>(ctx);
    assert!(
        wrong.is_empty(),
        "{} {form:?}: {} wrong prefixes, first {:?}",
        curve.spec.name,
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
}

/// A pool of two leases a new workspace to each of two overlapping calls, makes a third wait
/// until one is given back and then hands it that one, and leases the smallest free workspace
/// that covers a call, else the largest free one (for the call to grow).
fn workspace_pool_leases_up_to_its_capacity<G: GpuCurve>(ctx: Option<&MsmContext>) {
    use crate::gpu::workspace::{Workspace, WorkspacePool};
    use std::future::Future;
    use std::task::{Context, Poll, Waker};
    let Some(ctx) = ctx else { return };
    use pollster::block_on;
    let runner = block_on(ctx.runner::<G>()).expect("runner");
    let sizes = |n| runner.buffer_sizes(&Plan::choose(n, G::spec().scalar_bits));
    let (small, large) = (sizes(64), sizes(4096));
    let create = |sizes| Workspace::new(&ctx.gpu().device, &runner.pipelines, sizes, None);
    let id = |w: Option<&Workspace>| w.expect("a workspace").buffer(Buffer::PointsFront).clone();

    let pool = WorkspacePool::new(2);
    let mut first = block_on(pool.lease(&small));
    assert!(first.workspace().is_none(), "an empty pool has nothing to lease");
    first.replace(create(&small));
    let mut second = block_on(pool.lease(&small));
    assert!(second.workspace().is_none(), "the first workspace is leased");
    second.replace(create(&large));
    let first_id = id(first.workspace());

    let mut third = Box::pin(pool.lease(&small));
    let mut cx = Context::from_waker(Waker::noop());
    assert!(third.as_mut().poll(&mut cx).is_pending(), "a third lease waits while two are out");
    drop(first);
    let Poll::Ready(third) = third.as_mut().poll(&mut cx) else { panic!("the returned workspace is free") };
    assert!(id(third.workspace()) == first_id, "the third call gets the returned workspace");
    drop(third);
    let large_id = id(second.workspace());
    drop(second);

    let lease = block_on(pool.lease(&small));
    assert!(id(lease.workspace()) == first_id && lease.covers(&small), "smallest covering workspace");
    drop(lease);
    let lease = block_on(pool.lease(&large));
    assert!(id(lease.workspace()) == large_id && lease.covers(&large), "the only covering workspace");
    let other = block_on(pool.lease(&large));
    assert!(id(other.workspace()) == first_id && !other.covers(&large), "the largest free one, to grow");
}

/// Every test above on one curve, in both field forms, where `tests_every_form` says so: the BLS12 G2 groups only in the default
/// context's form, and their field and curve operations in hardware GPUs' two forms too.
macro_rules! curve_tests {
    // Both tiers: these are the kernels' own tests.
    ($module:ident, $affine:ty, $tier:ident) => {
        mod $module {
            use super::*;
            type G = $affine;

            #[test]
            fn gpu_field_ops_match_arkworks() {
                field_ops_match_arkworks::<G>(shared_context());
                // Hardware GPUs' forms on every curve, the BLS12 G2 groups too: their Fp2 sums of
                // products are formed otherwise there (src/wgsl/fp2.rs, sums_fused), and their
                // 13-bit Fp2 products loop (MulForm::fp2_loop).
                field_ops_match_arkworks::<G>(shared_gpu_form_context());
                field_ops_match_arkworks::<G>(shared_gpu_narrow_context());
                if tests_every_form::<G>() {
                    field_ops_match_arkworks::<G>(shared_narrow_context());
                }
            }

            #[test]
            fn gpu_curve_ops_match_arkworks() {
                curve_ops_match_arkworks::<G>(shared_context());
                curve_ops_match_arkworks::<G>(shared_gpu_form_context());
                curve_ops_match_arkworks::<G>(shared_gpu_narrow_context());
                if tests_every_form::<G>() {
                    curve_ops_match_arkworks::<G>(shared_narrow_context());
                }
            }

            #[test]
            fn gpu_stages_match_cpu_models() {
                stages_match_cpu_models::<G>(shared_context(), 700, None, false);
                stages_match_cpu_models::<G>(shared_context(), 65, Some(4), false);
                stages_match_cpu_models::<G>(shared_context(), 500, None, true);
                if tests_every_form::<G>() {
                    stages_match_cpu_models::<G>(shared_gpu_form_context(), 700, None, false);
                    // Carries in several groups (combine_carries): 188 chunks of 16 per window,
                    // 90% of the points in one bucket.
                    stages_match_cpu_models::<G>(shared_gpu_form_context(), 3000, Some(13), true);
                    stages_match_cpu_models::<G>(shared_narrow_context(), 700, None, false);
                    stages_match_cpu_models::<G>(shared_gpu_narrow_context(), 700, None, false);
                }
            }

            #[test]
            fn gpu_workspace_pool_leases_up_to_its_capacity() {
                workspace_pool_leases_up_to_its_capacity::<G>(shared_context());
            }

            #[test]
            fn gpu_chain_matches_arkworks() {
                chain_matches_arkworks::<G>(shared_context());
                if tests_every_form::<G>() {
                    chain_matches_arkworks::<G>(shared_narrow_context());
                }
            }
        }
    };
}

each_curve!(curve_tests);

/// The Edwards pass of BLS12-377 itself: G1 inputs come back unflagged, so their results are
/// the Edwards kernels' own; a point with no image is reported (and left to the host, which
/// completes the result); an exceptional addition comes back flagged (so the pass runs again
/// on the Weierstrass model).
#[cfg(feature = "bls12-377")]
#[test]
fn gpu_edwards_passes_flag_exactly_what_they_cannot_add() {
    use ark_bls12_377::{Fq, G1Affine};
    let Some(ctx) = shared_context() else { return };
    let runner = pollster::block_on(ctx.runner::<G1Affine>()).expect("runner");
    assert!(runner.curve.model.on_edwards_image(), "bls12-377 runs on Edwards");
    let mut rng = StdRng::seed_from_u64(21);
    let n = 64;
    let g1: Vec<G1Affine> =
        (0..n).map(|_| <G1Affine as ark_ec::AffineRepr>::Group::rand(&mut rng).into_affine()).collect();
    let scalars: Vec<ark_bls12_377::Fr> = (0..n).map(|_| UniformRand::rand(&mut rng)).collect();
    let omega = (Fq::from(-3i64).sqrt().expect("q ≡ 1 mod 3") - Fq::ONE) / Fq::from(2u8);
    let mut no_image = g1.clone();
    no_image[5] = G1Affine::new_unchecked(-Fq::ONE, Fq::zero());
    let mut exceptional = g1.clone();
    exceptional[1] = (g1[0] + G1Affine::new_unchecked(-omega, Fq::zero())).into_affine();
    let mut equal_pair = scalars.clone();
    equal_pair[1] = equal_pair[0];
    let cases = [
        ("G1", &g1, &scalars, None, false),
        ("no image", &no_image, &scalars, Some(5), false),
        ("exceptional", &exceptional, &equal_pair, None, true),
    ];
    for (what, raw_points, raw_scalars, reported, flagged) in cases {
        let plan = Plan::choose(n as u32, G1Affine::spec().scalar_bits)
            .with_inputs(Plan::POINTS_MONTGOMERY | Plan::SCALARS_MONTGOMERY);
        let mut lease = pollster::block_on(runner.workspaces.lease(&runner.buffer_sizes(&plan)));
        let (points, scalars) = (Points::Arkworks(raw_points.as_slice()), Scalars::<G1Affine>::Arkworks(raw_scalars));
        let halves = points.raw_halves();
        let source = PointSource::upload(&halves, 0);
        let output = pollster::block_on(runner.run_leased(ctx.gpu(), &mut lease, &plan, source, &scalars, false))
            .expect("GPU run");
        assert_eq!(output.faults.no_image, reported, "{what}");
        assert_eq!(runner.exceptional(&output.window_sums), flagged, "{what}");
        if !flagged {
            let window_sums = points_from_gpu::<G1Affine>(&output.window_sums, runner.curve, runner.kernels().form)
                .expect("on the curve");
            let mut got = crate::combine::combine_windows(&window_sums, &plan);
            if let Some(from) = reported {
                got += crate::combine::sum_without_image(&points, &scalars, from).expect("valid points");
            }
            let expected = <G1Affine as ark_ec::AffineRepr>::Group::msm(raw_points, raw_scalars).expect("same lengths");
            assert_eq!(got, expected, "{what}");
        }
    }
}

/// A measurement that finishes beside the calls with other kernels than the rule's: the next
/// call runs them, while bases prepared before keep the runner they were stored for. A failed
/// measurement keeps the rule's kernels.
#[cfg(feature = "bn254")]
#[test]
fn a_measurement_beside_the_calls_changes_later_calls_but_not_prepared_bases() {
    use ark_bn254::{Fr, G1Affine};
    use ark_ec::VariableBaseMSM;
    if shared_context().is_none() {
        return;
    }
    let ctx = pollster::block_on(MsmContext::new()).expect("the adapter of the shared context");
    if !ctx.device_profile().int64 {
        return; // one form: nothing a measurement could change
    }
    let mut rng = StdRng::seed_from_u64(31);
    let points: Vec<G1Affine> = crate::inputs::random_points::<G1Affine, _>(200, &mut rng);
    let scalars: Vec<Fr> = (0..200).map(|_| Fr::rand(&mut rng)).collect();
    let expected = <G1Affine as ark_ec::AffineRepr>::Group::msm(&points, &scalars).expect("same lengths");
    let config = crate::MsmConfig::default();
    let bases = pollster::block_on(ctx.prepare(&points, &config)).expect("prepared");
    let first = bases.kernels();
    assert_eq!(first.form, ctx.device_profile().wide_form(), "the rule's form");

    // A failed measurement: the calls keep the rule's kernels, no longer provisional.
    ctx.measured_for_tests::<G1Affine>(Err(crate::MsmError::Gpu("no thread".into())));
    assert_eq!(pollster::block_on(ctx.msm(&points, &scalars)), Ok(expected));
    let kept = pollster::block_on(ctx.warm_up(G1Affine::ID)).expect("warm");
    assert_eq!((kept.kernels, kept.provisional), (first, false));

    let narrow = ctx.device_profile().narrow_form(G1Affine::spec());
    let measured = crate::Calibration {
        kernels: crate::step::Kernels { form: narrow, plan: ctx.device_profile().plan_shape(narrow), ..first },
        form_rates: vec![(first.form, 1.0), (narrow, 2.0)],
        form_benchmark: crate::Bench::FieldMul,
        accumulation_seconds: Vec::new(),
        provisional: false,
    };
    ctx.measured_for_tests::<G1Affine>(Ok(measured.clone()));
    assert_eq!(pollster::block_on(ctx.msm(&points, &scalars)), Ok(expected), "the calls on the measured kernels");
    assert_eq!(pollster::block_on(ctx.warm_up(G1Affine::ID)), Ok(measured));
    assert_eq!(pollster::block_on(ctx.runner::<G1Affine>()).expect("runner").kernels().form, narrow);
    assert_eq!(bases.kernels(), first, "prepared bases keep their runner");
    assert_eq!(pollster::block_on(ctx.msm(&bases, &scalars)), Ok(expected), "prepared bases on their runner");
}
