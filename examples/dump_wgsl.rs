//! Dumps every composed WGSL module (curve × accumulation × form × stage) into a directory.
use std::collections::BTreeSet;
use webgpu_msm::point_model::RunningCurve;
use webgpu_msm::step::{Accumulation, Step};
use webgpu_msm::wgsl::{compose, MulForm, Stage};
use webgpu_msm::{CurveId, DeviceProfile};

fn main() {
    let dir = std::env::args().nth(1).expect("output directory");
    let mut forms: Vec<MulForm> = Vec::new();
    for rounds in [1, 2, 3, 4, 5, 6, 30] {
        for batched in [true, false] {
            for interleaved in [true, false] {
                forms.push(MulForm::Rolled { rounds, batched, interleaved, fp2_loop: false });
            }
        }
        forms.push(MulForm::Rolled { rounds, batched: false, interleaved: false, fp2_loop: true });
    }
    for rounds in [1, 2, 3, 4, 6, 12] {
        for batched in [true, false] {
            forms.push(MulForm::Wide { rounds, batched });
        }
    }
    let mut count = 0;
    for &curve in CurveId::ALL {
        let mut seen = BTreeSet::new();
        for accumulation in [Accumulation::Projective, Accumulation::Edwards, Accumulation::EdwardsAffine] {
            let accumulation = accumulation.on(curve.spec());
            if !seen.insert(format!("{accumulation:?}")) {
                continue;
            }
            let spec = RunningCurve::new(curve.spec(), accumulation);
            let mut all = forms.clone();
            for int64 in [true, false] {
                for profile in DeviceProfile::ALL.map(|p| p.with_int64(int64)) {
                    for form in profile.forms(curve.spec()) {
                        all.push(form);
                        for step in Step::ALL {
                            all.push(profile.step_form(step, spec, form));
                        }
                    }
                }
            }
            let mut names = BTreeSet::new();
            for form in all {
                let name = format!("{form:?}").replace([' ', '{', '}', ':', ','], "");
                if !names.insert(name.clone()) {
                    continue;
                }
                let path = format!("{dir}/{curve}/{accumulation:?}/{name}");
                std::fs::create_dir_all(&path).unwrap();
                for stage in Stage::ALL {
                    std::fs::write(format!("{path}/{stage:?}.wgsl"), compose(spec, stage, form)).unwrap();
                    count += 1;
                }
            }
        }
    }
    println!("{count} modules");
}
