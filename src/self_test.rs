//! The device self-test: before a set of compiled kernels serves calls, it computes a
//! known-answer MSM, whose result the host computed with arkworks, and a device that gets it
//! wrong is refused ([`MsmError::UnreliableDevice`]). Every point read back is also checked on the
//! curve, but a faulty device can return wrong points on the curve: real GPUs have (a phone's
//! WebGPU MSMs went wrong from 2^10 points up).
//!
//! The inputs: [`SELF_TEST_POINTS`] random points of the curve and scalars among which are 0, 1,
//! −1, −2, a power of two per window boundary and random ones, so that every window, both signs
//! of a digit, the carry into the next window and the identity bucket are exercised. They and
//! their known answer are computed once per curve and process.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use ark_ec::VariableBaseMSM;
use ark_ff::{Field, PrimeField, UniformRand};
use ark_std::rand::{rngs::StdRng, SeedableRng};

use crate::combine::{combine_windows, points_from_gpu};
use crate::context::MsmContext;
use crate::curve::GpuCurve;
use crate::gpu::run::PointSource;
use crate::inputs::random_points;
use crate::plan::Plan;
use crate::runner::CurveRunner;
use crate::upload::{Points, ScalarSets, Scalars};
use crate::MsmError;

/// Points of the self-test's MSM.
pub(crate) const SELF_TEST_POINTS: usize = 256;

/// A curve's self-test inputs and their known answer.
struct KnownAnswer<G: GpuCurve> {
    points: Vec<G>,
    scalars: Vec<G::ScalarField>,
    expected: G::Group,
}

/// The known answer of curve `G`, computed on first use.
fn known_answer<G: GpuCurve>() -> Arc<KnownAnswer<G>> {
    type Answers = Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>;
    static ANSWERS: OnceLock<Answers> = OnceLock::new();
    let answers = ANSWERS.get_or_init(Default::default);
    let mut answers = answers.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let answer = answers.entry(TypeId::of::<G>()).or_insert_with(|| {
        let mut rng = StdRng::seed_from_u64(0x5e1f_7e57);
        let points = random_points::<G, _>(SELF_TEST_POINTS, &mut rng);
        let mut scalars: Vec<G::ScalarField> = (0..SELF_TEST_POINTS).map(|_| UniformRand::rand(&mut rng)).collect();
        let one = G::ScalarField::ONE;
        let specials = [G::ScalarField::from(0u8), one, -one, -one - one];
        let bits = G::ScalarField::MODULUS_BIT_SIZE as u64;
        // 2^k for every k: each window's lowest and highest digit, and carries across windows.
        let powers = (0..bits).map(|k| G::ScalarField::from(2u8).pow([k]));
        for (slot, scalar) in scalars.iter_mut().zip(specials.into_iter().chain(powers)) {
            *slot = scalar;
        }
        let expected = G::Group::msm(&points, &scalars).expect("as many scalars as points");
        Arc::new(KnownAnswer::<G> { points, scalars, expected })
    });
    answer.clone().downcast::<KnownAnswer<G>>().expect("stored under its curve's type")
}

impl MsmContext {
    /// Runs the self-test of curve `G` on `runner` (see the module documentation):
    /// [`MsmError::UnreliableDevice`] if its result is not the known answer. A pass that came out
    /// of an exceptional Edwards addition (which random points of the group never make) proves
    /// nothing either way and is let through: calls handle such passes themselves.
    pub(crate) async fn self_test<G: GpuCurve>(&self, runner: &CurveRunner) -> Result<(), MsmError> {
        let answer = known_answer::<G>();
        let points = Points::Arkworks(&answer.points);
        let scalars = Scalars::<G>::Arkworks(&answer.scalars);
        let plan = Plan::choose(SELF_TEST_POINTS as u32, G::spec().scalar_bits)
            .with_inputs(points.plan_inputs() | scalars.plan_inputs());
        let halves = points.raw_halves();
        let output =
            self.run_on(runner, &plan, PointSource::upload(&halves, 0), &ScalarSets(vec![scalars]), false).await;
        let unreliable =
            |why: String| MsmError::UnreliableDevice { curve: G::ID, kernels: format!("{:?}", runner.kernels()), why };
        let output = output.map_err(|e| match e {
            MsmError::InvalidGpuResult(why) => unreliable(why),
            other => other,
        })?;
        if runner.exceptional(&output.window_sums) {
            return Ok(());
        }
        let sums = points_from_gpu::<G>(&output.window_sums, runner.curve, runner.kernels().form)
            .map_err(|e| unreliable(e.to_string()))?;
        match combine_windows(&sums, &plan) == answer.expected {
            true => Ok(()),
            false => Err(unreliable("a known-answer MSM came back wrong".into())),
        }
    }
}
