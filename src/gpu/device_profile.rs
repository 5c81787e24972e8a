//! [`DeviceProfile`]: every rule that depends on the device, decided once per adapter.
//!
//! The rest of the crate asks a profile's named setting (which field form a curve runs, how a
//! plan is shaped, which accumulations calibration weighs) and never which device it is on; this
//! module alone names drivers. Each setting is documented once, here, with the measurement that
//! justifies it. The model is wgpu-hal's `Workarounds`,
//! one set of flags filled per adapter.
//!
//! Three presets cover the devices measured so far: [`DeviceProfile::HARDWARE`] (GPUs with
//! their own compiler and register file: an H100, an H200, navi21 by its compiler's
//! statistics), [`DeviceProfile::LLVMPIPE`] (Mesa's lavapipe, and any software GPU but
//! SwiftShader) and [`DeviceProfile::SWIFTSHADER`] (Google's SwiftShader, natively and as
//! Chromium's WebGPU fallback). [`DeviceProfile::for_adapter`] picks one from what the adapter
//! says of itself and fills in its features. Tests run each preset on whatever adapter they
//! have (a profile is only a choice of kernels and plans, every one of which computes the same
//! result on every device).
//!
//! Not to be confused with [`crate::profile`], which times the steps of one MSM.

use crate::curve::CurveSpec;
use crate::plan::PlanShape;
use crate::point_model::{PointModel, RunningCurve};
use crate::step::{Accumulation, Step};
use crate::wgsl::MulForm;

/// The device rules of one adapter; see the module documentation. Build it with
/// [`DeviceProfile::for_adapter`] or from a preset; [`crate::MsmContext::device_profile`] says
/// which a context runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceProfile {
    /// The preset's name: "hardware", "llvmpipe" or "swiftshader" (logs, tests, cache keys).
    pub name: &'static str,

    /// Whether the 32-bit-limb form ([`MulForm::Wide`]) runs: the device has wgpu's
    /// `SHADER_INT64` (native Vulkan, Metal and DX12 devices; never browsers). Set from the
    /// device's features, not by the presets (which leave it `false`).
    pub int64: bool,
    /// Whether calibration also times the 13-bit form where the 32-bit one runs. It has won on
    /// no device measured so far (the H100, the H200 and lavapipe all run 32-bit limbs faster;
    /// lavapipe picked 13-bit limbs once only under load, and its calls then ran 2.2× slower, see
    /// `calibrate::DECISIVE_MARGIN`); it stays a candidate for GPUs not measured yet whose 24-bit
    /// multiply-adds may favour it (RDNA), and its rate is what predicts whether the
    /// accumulations fit the calibration budget. `false` only in tests that fix 32-bit limbs.
    pub narrow_with_int64: bool,
    /// Whether the curve formulas multiply in batches (`field_mul_xK` advancing K products in one
    /// loop; [`MulForm::batched`]) rather than one product after another. llvmpipe caps the loop
    /// back-edges of one invocation ([`DeviceProfile::LOOP_BUDGET`]): K products per loop spend K
    /// times fewer. A real GPU compiler then keeps every product's operands and accumulators live
    /// at once (navi21, 32-bit bls12-377 accumulation: 256 VGPRs batched, 144 one after another),
    /// so hardware GPUs call `field_mul` K times instead. SwiftShader batches too (every form
    /// measured there was batched, but for [`DeviceProfile::batch_bls12_g2`]).
    pub batch_products: bool,
    /// Whether the batched 13-bit products of the short Weierstrass G1 groups (bn254, BLS12-377,
    /// BLS12-381) share one loop ([`MulForm::interleaved`]) or each run their own. llvmpipe needs
    /// them shared (its loop budget). SwiftShader's compiler, Subzero, keeps nearly every value of
    /// a loop body in memory, and K products at once make K times the body: at 2^16 its warm calls
    /// ran 4–14% faster on BLS12-377, 4–6% on bn254 and level on BLS12-381 with a loop per product,
    /// with no slower cold calls.
    pub interleave_g1_batches: bool,
    /// Montgomery rounds per loop iteration of the 13-bit form on curves computed on a twisted
    /// Edwards model over a field of at most 20 limbs (ed-on-bls12-377); 5 elsewhere. On
    /// SwiftShader 10 made warm calls 9.6% faster in Chromium at 2^16 and cold ones 9% slower.
    /// Edwards additions batch 3–4 products; the short Weierstrass formulas batch 5–6, so
    /// bn254's loop bodies grew more with 10 (warm −6%, cold +19%: a loss for a page that
    /// proves once), and the 30-limb fields and bn254-g2 gained 2–5% natively for 20% more
    /// compile time: those keep 5.
    pub small_edwards_rounds: usize,
    /// Whether that form ([`DeviceProfile::small_edwards_rounds`] above 5) accumulates buckets
    /// with straight-line, product-scanned multiplications ([`MulForm::SCANNED`]): on
    /// SwiftShader warm calls 14–15% faster in Chromium at no cost in compilation, where every
    /// other kernel in that form (or the whole pipeline in it) compiled slower.
    pub scan_small_edwards_accumulation: bool,
    /// Whether the BLS12 G2 groups (Fp2 over 30 13-bit limbs) batch their 13-bit products where
    /// [`DeviceProfile::batch_products`] says so. Subzero crashes on their batched
    /// `bucket_reduce` and `precompute_multiples` (a segfault natively, a lost device in
    /// Chrome) and compiles them one product after another, which needs no loop budget there.
    pub batch_bls12_g2: bool,
    /// Whether the G2 groups' 13-bit form with products one after another runs each Fp2
    /// multiplication's three base products in one loop ([`MulForm::fp2_loop`]). On navi21
    /// (ACO) their kernels then compile 2.1–3.9× faster (bn254-g2's accumulation 10.8 → 3.5 s,
    /// bls12-381-g2's 34 → 11 s) for 0.5–3.7% more instructions run, with no new spills on
    /// bn254-g2. Not on SwiftShader, which runs the BLS12 G2 groups in that form
    /// ([`DeviceProfile::batch_bls12_g2`]): Subzero keeps a loop body's values in memory, and
    /// bls12-381-g2's warm calls at 2^12 took 8.9 s instead of 5.3. The later take of the full
    /// addition's stashed product that the loop needs (`point_add_in_turn`) stays in this form:
    /// inline it changes nothing on navi21 and took SwiftShader's cold call from 124–127 s to
    /// 134–136 s. llvmpipe batches every product, so there it does not apply.
    pub loop_fp2_products: bool,
    /// Whether the batched 32-bit form accumulates a G1 group's buckets one product at a time.
    /// llvmpipe keeps a single 64-bit-product multiplication's working set closer to its vector
    /// registers than a batch of three or four: `accumulate_chunks` ran 17–28% faster on the
    /// 8-limb fields (bn254, ed-on-bls12-377) and within the noise on the 12-limb ones. One
    /// product per loop spends more of the loop budget: up to 23 back-edges per entry, within
    /// it for the longest chunk a plan makes (2,048 entries; `src/plan.rs` tests it). The G2
    /// groups keep their batches (unbatched, their cold calls took 1–6 s longer and their warm
    /// calls were no faster).
    pub unbatched_wide_g1_accumulation: bool,
    /// Whether a batched form's `sum_windows` runs one Montgomery round per loop iteration.
    /// Software GPUs compile a pipeline at its first dispatch, one after another; a rolled
    /// multiplication saves about a third of this step's compilation (lavapipe, BLS12-381: 0.94
    /// → 0.66 s of a cold call), and its few dozen additions per window stay a small share of a
    /// warm call.
    pub single_round_sum_windows: bool,
    /// The same for `normalize_points`: on lavapipe (BLS12-377 at 2^16) 0.5–0.7 s off a cold
    /// call and the step as fast; on SwiftShader it took the step from about 240 to 350 ms.
    pub single_round_normalize: bool,

    /// Whether plans spread their reduction over many threads and add carries in groups
    /// (`PlanShape::Spread`) rather than run the fewest reduction threads
    /// (`PlanShape::Compact`). A hardware GPU needs tens of thousands of threads in flight: on
    /// an H100 the 2,560 reduction threads of 2^16 points left most schedulers idle (5.6 of
    /// bn254's 8.5 ms), and one thread's chain of 2,048 carries took 60 ms of a 2^20 call on
    /// BLS12-381 before the groups. Software GPUs run a few threads per core, where the fewest
    /// reduction threads are fastest (`plan::MIN_SEGMENT_LEN`). Forms with products one after
    /// another spread their plans on every device ([`DeviceProfile::plan_shape`]).
    pub spread_plans: bool,

    /// The Edwards accumulations of a curve that has a twisted Edwards model (BLS12-377), in the
    /// order calibration weighs them; the first runs where the accumulations are not timed.
    /// Affine stored points first on software GPUs, whose few threads afford batches of
    /// `plan::NORMALIZE_BATCH` points in `normalize_points` (lavapipe 10% faster, SwiftShader
    /// 6% in Chromium); extended ones first elsewhere (an H200 at 2^20: 28.2 against 29.8 ms).
    /// Projective accumulation on the curve's own model is no candidate: it lost to the
    /// Edwards model on every device measured (H100 17–24 against 13–18 ms per calibration
    /// pass, H200 17.1 against 15.0; on lavapipe level with extended Edwards points, which
    /// affine ones beat by 3–17%). It stays the fallback of an exceptional pass.
    pub edwards_accumulations: [Accumulation; 2],
    /// Whether prepared bases store affine Edwards points where the calls store extended ones:
    /// their one inversion per point is paid once, at `prepare`, and each mixed addition then
    /// takes 7 multiplications instead of 8 and loads a quarter fewer bytes (an H200 at 2^20:
    /// calls on prepared bases 9% faster). Not where a second pipeline set costs most to
    /// compile: SwiftShader (whose calls store affine points anyway, unless a context fixes
    /// extended ones) and browsers (a page compiles every pipeline on each load).
    pub affine_prepared_bases: bool,

    /// What decides the field form where multiplications leave it open (see
    /// `calibrate`): mixed additions on hardware GPUs, where a form whose
    /// multiplication is faster can still spill in the curve formulas; multiplications on
    /// software GPUs, which have no register budget to exceed.
    pub form_benchmark: Bench,
    /// Whether microbenchmarks grow their thread count until the device is full before they
    /// count: a large GPU fills only with tens of thousands of threads (the H100 timed the BLS12
    /// G2 groups' 13-bit additions over 1,024 threads against the 32-bit form's 65,536, and
    /// 16,384 threads measured an H200's 32-bit multiplications at 2.1–9.1 G/s where 2^18
    /// gave 15). Software GPUs are full at a few hundred threads, and each longer run costs
    /// them seconds.
    pub fill_microbenchmarks: bool,
}

impl DeviceProfile {
    /// Most loop back-edges llvmpipe lets one shader invocation take, over all its loops: an
    /// invocation that needs more ends early and leaves wrong results. Plans and generated loops
    /// are sized to stay within it in the forms [`DeviceProfile::LLVMPIPE`] runs (`src/plan.rs`
    /// tests it), since one generated code serves every device.
    pub const LOOP_BUDGET: u32 = 65_535;

    /// GPUs with their own compiler and register file.
    pub const HARDWARE: DeviceProfile = DeviceProfile {
        name: "hardware",
        int64: false,
        narrow_with_int64: true,
        batch_products: false,
        interleave_g1_batches: true,
        small_edwards_rounds: 5,
        scan_small_edwards_accumulation: false,
        batch_bls12_g2: true,
        loop_fp2_products: true,
        unbatched_wide_g1_accumulation: false,
        single_round_sum_windows: false,
        single_round_normalize: false,
        spread_plans: true,
        edwards_accumulations: [Accumulation::Edwards, Accumulation::EdwardsAffine],
        affine_prepared_bases: true,
        form_benchmark: Bench::AddStored,
        fill_microbenchmarks: true,
    };

    /// Mesa's llvmpipe (lavapipe natively, Deno's WebGPU on it), and software GPUs not measured
    /// (softpipe, WARP).
    pub const LLVMPIPE: DeviceProfile = DeviceProfile {
        name: "llvmpipe",
        int64: false,
        narrow_with_int64: true,
        batch_products: true,
        interleave_g1_batches: true,
        small_edwards_rounds: 5,
        scan_small_edwards_accumulation: false,
        batch_bls12_g2: true,
        loop_fp2_products: false,
        unbatched_wide_g1_accumulation: true,
        single_round_sum_windows: true,
        single_round_normalize: true,
        spread_plans: false,
        edwards_accumulations: [Accumulation::EdwardsAffine, Accumulation::Edwards],
        affine_prepared_bases: true,
        form_benchmark: Bench::FieldMul,
        fill_microbenchmarks: false,
    };

    /// Google's SwiftShader, natively (Vulkan) and as Chromium's WebGPU.
    pub const SWIFTSHADER: DeviceProfile = DeviceProfile {
        name: "swiftshader",
        int64: false,
        narrow_with_int64: true,
        batch_products: true,
        interleave_g1_batches: false,
        small_edwards_rounds: 10,
        scan_small_edwards_accumulation: true,
        batch_bls12_g2: false,
        loop_fp2_products: false,
        unbatched_wide_g1_accumulation: false,
        single_round_sum_windows: true,
        single_round_normalize: false,
        spread_plans: false,
        edwards_accumulations: [Accumulation::EdwardsAffine, Accumulation::Edwards],
        affine_prepared_bases: false,
        form_benchmark: Bench::FieldMul,
        fill_microbenchmarks: false,
    };

    /// Every preset.
    pub const ALL: [DeviceProfile; 3] = [DeviceProfile::HARDWARE, DeviceProfile::LLVMPIPE, DeviceProfile::SWIFTSHADER];

    /// The profile of an adapter of wgpu's `device_type` that describes itself as `description`
    /// (natively the adapter's name; in browsers "vendor / architecture / description" of
    /// `GPUAdapter.info`, since browsers report no device type), on a device with 64-bit
    /// integers or not. A software GPU is wgpu's device type `Cpu` (natively, and a browser's
    /// fallback adapter) or one named among the words of its description: Mesa's llvmpipe
    /// (lavapipe) and softpipe, Google's SwiftShader (Chrome: "google / swiftshader / "),
    /// Microsoft's WARP ("Microsoft Basic Render Driver"). In browsers prepared bases keep the
    /// calls' points ([`DeviceProfile::affine_prepared_bases`]).
    pub fn for_adapter(device_type: wgpu::DeviceType, description: &str, int64: bool) -> DeviceProfile {
        let lower = description.to_lowercase();
        let named = |name: &str| lower.split(|c: char| !c.is_ascii_alphanumeric()).any(|word| word == name);
        let software = device_type == wgpu::DeviceType::Cpu
            || ["llvmpipe", "lavapipe", "softpipe", "swiftshader", "warp"].into_iter().any(named)
            || lower.contains("basic render");
        let preset = match (named("swiftshader"), software) {
            (true, _) => DeviceProfile::SWIFTSHADER,
            (false, true) => DeviceProfile::LLVMPIPE,
            (false, false) => DeviceProfile::HARDWARE,
        };
        let browser = cfg!(target_arch = "wasm32");
        DeviceProfile { int64, affine_prepared_bases: preset.affine_prepared_bases && !browser, ..preset }
    }

    /// This profile on a device with 64-bit integers or without.
    pub fn with_int64(self, int64: bool) -> DeviceProfile {
        DeviceProfile { int64, ..self }
    }

    /// The 32-bit-limb form: up to 4 Montgomery rounds per loop iteration (4 for 8 and 12
    /// limbs), products batched where the profile batches them.
    pub fn wide_form(&self) -> MulForm {
        MulForm::Wide { rounds: 4, batched: self.batch_products }
    }

    /// The 13-bit form of the curve of `spec` (`spec` as [`crate::GpuCurve::spec`] gives it,
    /// not a model it runs on): up to 5 rounds per loop iteration (5 for the 20 and 30 limbs of
    /// 254- to 381-bit fields) or [`DeviceProfile::small_edwards_rounds`], products batched and
    /// interleaved, and Fp2 products looped, as the profile says.
    pub fn narrow_form(&self, spec: &CurveSpec) -> MulForm {
        let small_edwards = small_edwards(RunningCurve::native(spec));
        let batched = self.batch_products && (self.batch_bls12_g2 || !is_bls12_g2(spec));
        let weierstrass_g1 = spec.extension.is_none() && !small_edwards;
        let interleaved = batched && (self.interleave_g1_batches || !weierstrass_g1);
        let rounds = if small_edwards { self.small_edwards_rounds } else { 5 };
        let fp2_loop = !batched && self.loop_fp2_products;
        MulForm::Rolled { rounds, batched, interleaved, fp2_loop }
    }

    /// The field forms calibration weighs for the curve of `spec`, in order: the 32-bit form
    /// where it runs, then the 13-bit one (unless [`DeviceProfile::narrow_with_int64`] leaves it
    /// out). The first runs where nothing is measured.
    pub fn forms(&self, spec: &CurveSpec) -> Vec<MulForm> {
        match (self.int64, self.narrow_with_int64) {
            (true, true) => vec![self.wide_form(), self.narrow_form(spec)],
            (true, false) => vec![self.wide_form()],
            (false, _) => vec![self.narrow_form(spec)],
        }
    }

    /// The accumulations calibration weighs for the curve of `spec`, in order (the first runs
    /// where they are not timed): [`DeviceProfile::edwards_accumulations`] on a curve with a
    /// twisted Edwards model, else projective, its only one.
    pub fn accumulations(&self, spec: &CurveSpec) -> Vec<Accumulation> {
        let mut all = self.edwards_accumulations.map(|accumulation| accumulation.on(spec)).to_vec();
        all.dedup();
        all
    }

    /// The accumulation prepared bases run where the calls run `calls`
    /// ([`DeviceProfile::affine_prepared_bases`]).
    pub fn prepared_bases_accumulation(&self, calls: Accumulation) -> Accumulation {
        match calls {
            Accumulation::Edwards if self.affine_prepared_bases => Accumulation::EdwardsAffine,
            other => other,
        }
    }

    /// How plans are shaped for kernels in `form`: spread where the profile spreads them, and
    /// wherever products run one after another. Their longer loops stay within llvmpipe's loop
    /// budget only with carries added in groups (a reduction thread may add one carry per chunk
    /// of a window: 4,096 additions of about 13 back-edges each fit it when batched, not
    /// unbatched), so hardware GPUs' forms spread their plans on software GPUs too (the tests'
    /// hardware contexts, SwiftShader's BLS12 G2 groups).
    pub fn plan_shape(&self, form: MulForm) -> PlanShape {
        match self.spread_plans || !form.batched() {
            true => PlanShape::Spread,
            false => PlanShape::Compact,
        }
    }

    /// The form `step`'s pipeline is compiled in for `curve` (on the point model it runs), in
    /// a context whose kernels use `form` (see the settings above; otherwise `form` itself). The
    /// storage layout is the same in all of them, so each step reads what the one before wrote.
    pub fn step_form(&self, step: Step, curve: RunningCurve, form: MulForm) -> MulForm {
        let spec = curve.spec;
        let wide_g1 = spec.extension.is_none() && form == self.wide_form();
        match step {
            Step::SumWindows if self.single_round_sum_windows && form.batched() => form.with_rounds(1),
            Step::NormalizePoints if self.single_round_normalize && form.batched() => form.with_rounds(1),
            Step::AccumulateChunks
                if self.scan_small_edwards_accumulation && small_edwards(curve) && form == self.narrow_form(spec) =>
            {
                MulForm::SCANNED
            }
            Step::AccumulateChunks if self.unbatched_wide_g1_accumulation && wide_g1 && form.batched() => {
                form.unbatched()
            }
            _ => form,
        }
    }
}

impl Default for DeviceProfile {
    /// [`DeviceProfile::HARDWARE`].
    fn default() -> Self {
        DeviceProfile::HARDWARE
    }
}

/// Whether `curve` adds on a twisted Edwards model over a field of at most 20 13-bit limbs
/// (ed-on-bls12-377): [`DeviceProfile::small_edwards_rounds`].
fn small_edwards(curve: RunningCurve) -> bool {
    let edwards = matches!(curve.model, PointModel::Extended | PointModel::EdwardsImage { .. });
    edwards && curve.spec.field.limbs <= 20
}

/// Whether `spec` is a BLS12 G2 group: Fp2 over 30 13-bit limbs
/// ([`DeviceProfile::batch_bls12_g2`]).
fn is_bls12_g2(spec: &CurveSpec) -> bool {
    spec.extension.is_some() && spec.field.limbs >= 30
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CurveId;

    /// Adapters as the project's devices describe themselves (native lavapipe, Chrome, Node's
    /// Dawn and Deno on SwiftShader or lavapipe, hardware GPUs) get their preset.
    #[test]
    fn adapters_get_the_preset_of_their_kind() {
        let (cpu, other, discrete) = (wgpu::DeviceType::Cpu, wgpu::DeviceType::Other, wgpu::DeviceType::DiscreteGpu);
        let name = |device_type, description| DeviceProfile::for_adapter(device_type, description, false).name;
        assert_eq!(name(cpu, "llvmpipe (LLVM 15.0.6, 256 bits)"), "llvmpipe");
        assert_eq!(name(cpu, ""), "llvmpipe", "a browser's fallback adapter");
        assert_eq!(name(cpu, "SwiftShader Device (Subzero)"), "swiftshader");
        for (description, expected) in [
            ("google / swiftshader / ", "swiftshader"),
            ("google / swiftshader / SwiftShader driver 5.0.0", "swiftshader"),
            ("65541 /  / llvmpipe (LLVM 15.0.6, 256 bits)", "llvmpipe"),
            ("Microsoft Basic Render Driver", "llvmpipe"),
            ("nvidia / ampere / ", "hardware"),
            ("amd / rdna-2 / AMD Radeon RX 6800", "hardware"),
            ("apple / metal-3 / ", "hardware"),
            ("intel / gen-12lp / ", "hardware"),
        ] {
            assert_eq!(name(other, description), expected, "{description}");
        }
        assert_eq!(name(discrete, "NVIDIA H100 80GB HBM3"), "hardware");
        assert!(DeviceProfile::for_adapter(discrete, "NVIDIA H200", true).int64);
    }

    /// The forms each preset runs: hardware GPUs never batch, and loop the G2 groups' Fp2
    /// products; llvmpipe batches and interleaves everywhere; SwiftShader runs ed-on-bls12-377
    /// (the one Edwards curve over a 20-limb field) with 10 rounds per loop iteration, the other
    /// G1 curves with each batched product in its own loop, and the BLS12 G2 groups with
    /// products one after another, inline.
    #[test]
    fn each_preset_runs_its_forms() {
        for curve in CurveId::ALL {
            let spec = curve.spec();
            let bls12_g2 = spec.extension.is_some() && spec.field.limbs == 30;
            let ed = curve.to_string() == "ed-on-bls12-377";
            let g1 = spec.extension.is_none();
            let rolled = |batched, interleaved| MulForm::Rolled { rounds: 5, batched, interleaved, fp2_loop: false };
            let unbatched_looped = MulForm::Rolled { rounds: 5, batched: false, interleaved: false, fp2_loop: true };
            assert_eq!(DeviceProfile::HARDWARE.narrow_form(spec), unbatched_looped, "{curve}");
            assert_eq!(DeviceProfile::HARDWARE.wide_form(), MulForm::Wide { rounds: 4, batched: false });
            assert_eq!(DeviceProfile::LLVMPIPE.narrow_form(spec), MulForm::ROLLED, "{curve}");
            assert_eq!(DeviceProfile::LLVMPIPE.wide_form(), MulForm::WIDE);
            let on_swiftshader = match (bls12_g2, ed, g1) {
                (true, _, _) => rolled(false, false),
                (_, true, _) => MulForm::ROLLED.with_rounds(10),
                (_, _, true) => rolled(true, false),
                _ => MulForm::ROLLED,
            };
            assert_eq!(DeviceProfile::SWIFTSHADER.narrow_form(spec), on_swiftshader, "{curve}");
        }
    }

    /// Where a device has 64-bit integers both widths are candidates, 32-bit first; without,
    /// only 13-bit limbs; a test that fixes 32-bit limbs leaves the 13-bit form out.
    #[test]
    fn calibration_weighs_both_widths_only_where_both_run() {
        let spec = CurveId::ALL[0].spec();
        for profile in DeviceProfile::ALL {
            let with = profile.with_int64(true);
            assert_eq!(with.forms(spec), [with.wide_form(), with.narrow_form(spec)], "{}", profile.name);
            assert_eq!(profile.forms(spec), [profile.narrow_form(spec)], "{}", profile.name);
            let wide_only = DeviceProfile { narrow_with_int64: false, ..with };
            assert_eq!(wide_only.forms(spec), [with.wide_form()], "{}", profile.name);
        }
    }

    /// Every form a preset runs is planned as its products need: batched forms on software
    /// GPUs compactly, everything else spread (hardware GPUs, and forms with products one after
    /// another on any device).
    #[test]
    fn plans_spread_wherever_products_run_one_after_another() {
        for profile in DeviceProfile::ALL.map(|p| p.with_int64(true)) {
            for spec in CurveId::ALL.iter().map(|c| c.spec()) {
                for form in profile.forms(spec) {
                    let spread = profile.spread_plans || !form.batched();
                    let expected = if spread { PlanShape::Spread } else { PlanShape::Compact };
                    assert_eq!(profile.plan_shape(form), expected, "{} {} {form:?}", profile.name, spec.name);
                }
            }
        }
        assert_eq!(DeviceProfile::HARDWARE.plan_shape(MulForm::WIDE), PlanShape::Spread);
        assert_eq!(DeviceProfile::LLVMPIPE.plan_shape(MulForm::WIDE), PlanShape::Compact);
    }
}

/// Dependent mixed additions per thread of `bench_add_stored` (`CHAIN / 8` in
/// `shaders/benchmarks.wgsl`).
pub(crate) const ADDS_PER_THREAD: u64 = 32;
/// Dependent multiplications per thread of `bench_field_mul` (`CHAIN`).
pub(crate) const MULS_PER_THREAD: u64 = 256;

/// A microbenchmark kernel (`shaders/benchmarks.wgsl`): what a field form's rate is measured
/// with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bench {
    /// `bench_field_mul`: 256 dependent multiplications per thread.
    FieldMul,
    /// `bench_add_stored`: 32 dependent mixed additions per thread.
    AddStored,
}

impl Bench {
    /// The kernel's entry point in `shaders/benchmarks.wgsl`.
    pub fn name(self) -> &'static str {
        match self {
            Bench::FieldMul => "bench_field_mul",
            Bench::AddStored => "bench_add_stored",
        }
    }

    /// What one thread of the kernel counts for on the curve of `spec`: base field
    /// multiplications (an Fp2 `field_mul` is 3) or mixed additions.
    pub(crate) fn operations_per_thread(self, spec: &CurveSpec) -> u64 {
        match self {
            Bench::FieldMul => MULS_PER_THREAD * spec.base_muls_per_mul(),
            Bench::AddStored => ADDS_PER_THREAD,
        }
    }
}
