//! How the kernels store and add a curve's points: the point model.
//!
//! A curve ([`crate::curve`]) is an equation over a field; a point model is a way to compute on
//! it: the coordinates of a bucket point, the stored form of an input point, the formulas of
//! `shaders/curve_*.wgsl`, the constants they read and what each operation costs. One curve may
//! run on more than one: BLS12-377 adds its points projectively on its own Weierstrass equation
//! or on its twisted Edwards image ([`crate::curve::EdwardsMap`]).
//!
//! [`PointModel::running`] is the one place where a context's [`Accumulation`] (what the caller
//! and calibration choose) becomes the model its kernels run. The kernels, the WGSL generator,
//! the step table and the cost model take a [`RunningCurve`]: the curve's spec with that model.
//!
//! A new model is a [`PointModel`] variant with its arms below (coordinates, stored form,
//! formulas file, constants, costs) and, if it adds a step, the step table (`src/step.rs`).

use num_bigint::BigUint;

use crate::curve::{CurveSpec, Equation, SubgroupTest};

/// How stage 3 adds each window's points into its buckets: the kernels a context asks for
/// (`ContextOptions::accumulation`, calibration's candidates). What runs on a curve is the
/// [`PointModel`] that [`PointModel::running`] gives for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Accumulation {
    /// Projective mixed additions (11 multiplications on short Weierstrass curves, 7 on twisted
    /// Edwards), each thread an equal chunk of entries: what every curve without a twisted
    /// Edwards model runs.
    #[default]
    Projective,
    /// Projective additions on the curve's twisted Edwards model, for short Weierstrass curves
    /// that have one (BLS12-377; [`crate::curve::EdwardsMap`]): stage 1 maps the points, stages
    /// 3 and 4 add in extended coordinates (8 multiplications per mixed addition), and the host
    /// maps the window sums back. Exact on every input: a pass that meets a point with no
    /// image, or an addition the Edwards law cannot do (only points outside G1 cause either),
    /// runs again with `Projective`. Where it runs by default, and where calibration weighs it,
    /// is the device profile's [`crate::DeviceProfile::edwards_accumulations`].
    Edwards,
    /// [`Accumulation::Edwards`] with affine stored points: stage 1 divides each mapped point
    /// by its Z (`normalize_points`, one inversion per [`crate::plan::NORMALIZE_BATCH`] points),
    /// so a mixed addition takes 7 multiplications instead of 8 and loads three coordinates
    /// instead of four, for about 5 more multiplications per point in stage 1 and its share of
    /// an inversion (see [`crate::DeviceProfile::edwards_accumulations`]).
    EdwardsAffine,
}

impl Accumulation {
    /// What runs on the curve of `spec` when this is asked for: the accumulation of
    /// [`PointModel::running`]'s model.
    #[doc(hidden)]
    pub fn on(self, spec: &CurveSpec) -> Accumulation {
        PointModel::running(spec, self).accumulation()
    }
}

/// How kernels store and add the points of a curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PointModel {
    /// A short Weierstrass curve in projective coordinates (X, Y, Z), with the complete
    /// formulas of Renes–Costello–Batina; stored points are affine (x, y). `shaders/curve_sw.wgsl`.
    Projective,
    /// A twisted Edwards curve (a = −1) in extended coordinates (X, Y, T, Z), with the formulas
    /// of Hisil–Wong–Carter–Dawson; stored points are (y − x, y + x, 2d·x·y).
    /// `shaders/curve_te.wgsl`.
    Extended,
    /// A short Weierstrass curve added on its twisted Edwards image −u² + v² = 1 + d·u²·v²
    /// ([`crate::curve::EdwardsMap`], the curve's [`CurveSpec::edwards`]): uploads and results
    /// are Weierstrass points, stored points and buckets extended Edwards ones.
    /// `shaders/curve_sw_on_te.wgsl`.
    EdwardsImage {
        /// Whether stored points are affine, (y − x, y + x, 2d·x·y), divided by their Z in stage
        /// 1 ([`Accumulation::EdwardsAffine`]), rather than extended (Y − X, Y + X, 2d·T, 2Z).
        affine_bases: bool,
    },
}

impl PointModel {
    /// The model of the curve's own equation.
    pub fn native(spec: &CurveSpec) -> PointModel {
        match spec.equation {
            Equation::ShortWeierstrassA0 { .. } => PointModel::Projective,
            Equation::TwistedEdwardsAMinus1 { .. } => PointModel::Extended,
        }
    }

    /// The model the kernels of `accumulation` run on the curve of `spec`: its Edwards image for
    /// [`Accumulation::Edwards`] and [`Accumulation::EdwardsAffine`] where it has one, else its
    /// own model.
    pub fn running(spec: &CurveSpec, accumulation: Accumulation) -> PointModel {
        let edwards = matches!(spec.equation, Equation::ShortWeierstrassA0 { .. }) && spec.edwards.is_some();
        match accumulation {
            Accumulation::Edwards if edwards => PointModel::EdwardsImage { affine_bases: false },
            Accumulation::EdwardsAffine if edwards => PointModel::EdwardsImage { affine_bases: true },
            _ => PointModel::native(spec),
        }
    }

    /// The accumulation that runs this model.
    pub fn accumulation(self) -> Accumulation {
        match self {
            PointModel::Projective | PointModel::Extended => Accumulation::Projective,
            PointModel::EdwardsImage { affine_bases: false } => Accumulation::Edwards,
            PointModel::EdwardsImage { affine_bases: true } => Accumulation::EdwardsAffine,
        }
    }

    /// Coordinates of a bucket point on the GPU (3 projective, 4 extended).
    pub fn point_coords(self) -> usize {
        match self {
            PointModel::Projective => 3,
            PointModel::Extended | PointModel::EdwardsImage { .. } => 4,
        }
    }

    /// Coordinates of an input point as stored on the GPU after conversion: affine (x, y) for
    /// short Weierstrass, (y−x, y+x, 2d·x·y) for twisted Edwards, and for a Weierstrass curve on
    /// its Edwards image (Y−X, Y+X, 2d·T, 2Z) of the extended image, or with affine bases
    /// (y−x, y+x, 2d·x·y) of the affine one.
    pub fn stored_coords(self) -> usize {
        match self {
            PointModel::Projective => 2,
            PointModel::Extended | PointModel::EdwardsImage { affine_bases: true } => 3,
            PointModel::EdwardsImage { affine_bases: false } => 4,
        }
    }

    /// Of [`Self::stored_coords`], those in the first of the two buffers that hold stored points
    /// (`Buffer::PointsFront`, the larger half); the rest are in `Buffer::PointsBack`.
    pub fn stored_front_coords(self) -> usize {
        self.stored_coords().div_ceil(2)
    }

    /// Whether stage 1 divides the stored points by their Z after converting them
    /// ([`crate::step::Step::NormalizePoints`]).
    pub fn normalizes_stored_points(self) -> bool {
        matches!(self, PointModel::EdwardsImage { affine_bases: true })
    }

    /// Whether stored points are in the Niels form of HWCD's mixed addition (y − x, y + x, 2d·t,
    /// and 2z with extended points), whose coordinates each meet one product (the Edwards
    /// models).
    pub fn stores_niels(self) -> bool {
        matches!(self, PointModel::Extended | PointModel::EdwardsImage { .. })
    }

    /// Whether stored points carry 2Z (extended points on the Edwards image).
    pub fn stored_niels_z(self) -> bool {
        matches!(self, PointModel::EdwardsImage { affine_bases: false })
    }

    /// Whether the kernels add on a Weierstrass curve's Edwards image: d is a square there, so
    /// some additions are exceptional and some points have no image (left to the host), and
    /// window sums are mapped back to the curve.
    pub fn on_edwards_image(self) -> bool {
        matches!(self, PointModel::EdwardsImage { .. })
    }

    /// The WGSL of the model's formulas, the composer's `curve` module.
    pub fn curve_shader(self) -> &'static str {
        match self {
            PointModel::Projective => include_str!("../shaders/curve_sw.wgsl"),
            PointModel::Extended => include_str!("../shaders/curve_te.wgsl"),
            PointModel::EdwardsImage { .. } => include_str!("../shaders/curve_sw_on_te.wgsl"),
        }
    }
}

/// A curve with the point model its kernels run: what the WGSL generator, the step table, the
/// buffers and the cost model are computed from.
#[derive(Clone, Copy, Debug)]
pub struct RunningCurve<'a> {
    /// What the curve is.
    pub spec: &'a CurveSpec,
    /// How its points are stored and added.
    pub model: PointModel,
}

/// A constant the model's formulas read, which the field module emits in the limbs of its form
/// (`src/wgsl/field_gen.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShaderConstant {
    /// `const NAME` in the coordinates' field, in Montgomery form, from its components over the
    /// base prime field (reduced).
    Value {
        /// Its WGSL name.
        name: &'static str,
        /// Its comment.
        doc: &'static str,
        /// Its components, below p.
        components: Vec<BigUint>,
    },
    /// `fn mul_by_b3(a: Field) -> Field`: a·3b with 3b's components (below p), an addition
    /// chain or a product by the constant `B3`.
    MulByB3(Vec<BigUint>),
}

impl<'a> RunningCurve<'a> {
    /// The curve of `spec` with the model `accumulation` runs there ([`PointModel::running`]).
    pub fn new(spec: &'a CurveSpec, accumulation: Accumulation) -> Self {
        RunningCurve { spec, model: PointModel::running(spec, accumulation) }
    }

    /// The curve of `spec` on the model of its own equation.
    pub fn native(spec: &'a CurveSpec) -> Self {
        RunningCurve { spec, model: PointModel::native(spec) }
    }

    /// Bytes of one stored point's two halves (the same in either limb width): in
    /// `Buffer::PointsFront` and in `Buffer::PointsBack`.
    pub fn stored_half_bytes(&self) -> (u64, u64) {
        let coord = self.spec.storage_words() as u64 * 4;
        let front = self.model.stored_front_coords() as u64;
        (front * coord, (self.model.stored_coords() as u64 - front) * coord)
    }

    /// Bytes of one bucket point (the same in either limb width).
    pub fn point_bytes(&self) -> u64 {
        (self.model.point_coords() * self.spec.storage_words() * 4) as u64
    }

    /// The coefficient b of a short Weierstrass curve: its components over the base prime field.
    fn b(&self) -> &'a [BigUint] {
        match &self.spec.equation {
            Equation::ShortWeierstrassA0 { b } => b,
            Equation::TwistedEdwardsAMinus1 { .. } => panic!("{}: {:?} on a twisted Edwards curve", self.spec.name, self.model),
        }
    }

    /// Base field multiplications of each point operation as the formulas in
    /// `shaders/curve_*.wgsl` perform them (multiplications by a small constant such as 3b of
    /// BLS12-377 are additions; an Fp2 multiplication counts 3).
    pub fn op_muls(&self) -> OpMuls {
        match self.model {
            // RCB algorithms 8 and 7 (each with two multiplications by 3b); conversion: x and y
            // into Montgomery form, then y² = x³ + b.
            PointModel::Projective => {
                let m = self.spec.base_muls_per_mul();
                let by_b3 = 2 * constant_mul_cost(&self.b3());
                OpMuls { convert: 5 * m, add_stored: 11 * m + by_b3, add: 12 * m + by_b3, normalize: 0 }
            }
            // HWCD with the precomputed (y − x, y + x, 2d·x·y); conversion: x and y into
            // Montgomery form, the curve equation (4) and x·y·2d.
            PointModel::Extended => OpMuls { convert: 8, add_stored: 7, add: 9, normalize: 0 },
            // HWCD with the precomputed (Y − X, Y + X, 2d·T, 2Z) of an extended image;
            // conversion: Montgomery form (2), the Weierstrass equation (3) and the map (6).
            PointModel::EdwardsImage { affine_bases: false } => OpMuls { convert: 11, add_stored: 8, add: 9, normalize: 0 },
            // With affine bases: the map stops at (Y − X, Y + X, Z) (4 instead of 6), and
            // normalize_points spends 1 forward and 6 backward (the inverse and its update, the
            // two coordinates, 2d·x·y) per point, plus its share of an inversion.
            PointModel::EdwardsImage { affine_bases: true } => OpMuls { convert: 9, add_stored: 7, add: 9, normalize: 7 },
        }
    }

    /// 3b's components, below p.
    fn b3(&self) -> Vec<BigUint> {
        self.b().iter().map(|c| (c * 3u32) % &self.spec.field.modulus).collect()
    }

    /// The constants the model's formulas read, in the order the field module emits them.
    pub fn constants(&self) -> Vec<ShaderConstant> {
        let p = &self.spec.field.modulus;
        let value = |name, doc, value: BigUint| ShaderConstant::Value { name, doc, components: vec![value] };
        match self.model {
            PointModel::Projective => {
                let mut constants = vec![
                    ShaderConstant::Value { name: "B", doc: "b, Montgomery form", components: self.b().to_vec() },
                    ShaderConstant::Value { name: "B3", doc: "3·b, Montgomery form", components: self.b3() },
                    ShaderConstant::MulByB3(self.b3()),
                ];
                // The endomorphism of the curve's subgroup test (check_subgroup).
                match &self.spec.subgroup_test {
                    SubgroupTest::Order => {}
                    SubgroupTest::BlsG1 { beta, .. } => {
                        constants.push(value("BLS_BETA", "β of φ(x, y) = (β·x, y), Montgomery form", beta.clone()))
                    }
                    SubgroupTest::BlsG2 { psi: [psi_x, psi_y], .. } => {
                        let doc = "[|x|]·P = (x̄·PSI_X, ȳ·PSI_Y) on G2, Montgomery form";
                        constants.push(ShaderConstant::Value { name: "PSI_X", doc, components: psi_x.clone() });
                        constants.push(ShaderConstant::Value { name: "PSI_Y", doc, components: psi_y.clone() });
                    }
                }
                constants
            }
            PointModel::Extended => {
                let Equation::TwistedEdwardsAMinus1 { d } = &self.spec.equation else {
                    panic!("{}: extended Edwards points on a Weierstrass curve", self.spec.name)
                };
                vec![value("D2", "2·d, Montgomery form", (d * 2u32) % p)]
            }
            PointModel::EdwardsImage { affine_bases } => {
                let map = self.spec.edwards.as_ref().unwrap_or_else(|| panic!("{}: no Edwards image", self.spec.name));
                let mut constants = vec![
                    value("B", "b of the Weierstrass equation, Montgomery form", self.b()[0].clone()),
                    value("D2", "2·d of the Edwards model, Montgomery form", (&map.d * 2u32) % p),
                    value("EDWARDS_ALPHA", "α: (α, 0) has order 2, Montgomery form", map.alpha.clone()),
                    value("EDWARDS_T", "t = √(3α²), Montgomery form", map.t.clone()),
                    value("EDWARDS_KAPPA", "κ = √(−(3α + 2t)), Montgomery form", map.kappa.clone()),
                ];
                if affine_bases {
                    // d/2 = d·(p + 1)/2.
                    let half = (&map.d * ((p + 1u32) >> 1)) % p;
                    constants.push(value("D_HALF", "d/2 of the Edwards model, Montgomery form", half));
                }
                constants
            }
        }
    }
}

/// Field multiplications per point operation (the cost model's unit costs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpMuls {
    /// Checking one input point and converting it into its stored Montgomery form.
    pub convert: u64,
    /// Adding a stored input point to a bucket (mixed addition).
    pub add_stored: u64,
    /// Adding two bucket points (also doubling: the formulas are complete).
    pub add: u64,
    /// Dividing one stored point by its Z after conversion, without its share of the batch's
    /// inversion (0 where stored points need no division).
    pub normalize: u64,
}

/// The constant as a small positive integer, where it is one (an addition chain multiplies by
/// it).
pub(crate) fn small_integer(k: &BigUint) -> Option<u32> {
    (k.bits() > 0 && k.bits() <= 6).then(|| k.iter_u32_digits().next().unwrap_or(0))
}

/// Base field multiplications of `mul_by_b3` for the constant 3·b with components `k`, as the
/// field module generates it (`mul_by_constant` in `src/wgsl/field_gen.rs`): none for a small
/// integer (an addition chain), one per large component, a Karatsuba product (3) over Fp2 when
/// both are large.
pub fn constant_mul_cost(k: &[BigUint]) -> u64 {
    let general = |k: &BigUint| small_integer(k).is_none() && k.bits() > 0;
    match k {
        [k] => u64::from(general(k)),
        [k0, k1] if general(k0) && general(k1) => 3,
        _ => 2 * k.iter().filter(|k| general(k)).count() as u64,
    }
}
