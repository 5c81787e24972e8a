//! Several devices in one process (`MultiGpu`): every adapter the Vulkan loader offers, one
//! context each. Under `scripts/test-swiftshader.sh` those are lavapipe and SwiftShader
//! (`WEBGPU_MSM_EXPECT_ADAPTERS=llvmpipe,SwiftShader` makes the test check that both are there);
//! where the loader offers one adapter (plain `cargo test`: lavapipe), two contexts share it.
//! Results equal arkworks whatever the split; a device lost during a call fails that call with
//! `DeviceLost` naming it (or the call finishes first), and later calls run on the other device.
//! Without any adapter it prints SKIPPED, and fails when `CI=true`.

#![cfg(feature = "ed-on-bls12-377")]

use ark_ec::VariableBaseMSM;
use ark_ed_on_bls12_377::{EdwardsAffine as G, EdwardsProjective, Fr};
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use webgpu_msm::inputs::random_points;
use webgpu_msm::{Bases, GpuCurve, MsmConfig, MsmContext, MsmError, MultiGpu, MultiPreparedBases};

/// One context per adapter, or two on the only one.
fn devices() -> Option<MultiGpu> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::PRIMARY));
    let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
    println!("adapters: {names:?}");
    if let Ok(expected) = std::env::var("WEBGPU_MSM_EXPECT_ADAPTERS") {
        for name in expected.split(',') {
            assert!(names.iter().any(|n| n.contains(name)), "no adapter {name:?} among {names:?}");
        }
    }
    let contexts: Vec<MsmContext> = match adapters.as_slice() {
        [] if std::env::var("CI").as_deref() == Ok("true") => panic!("CI=true but no GPU adapter"),
        [] => {
            eprintln!("SKIPPED: no GPU adapter");
            return None;
        }
        [only] => (0..2).map(|_| pollster::block_on(MsmContext::from_adapter(only)).expect("device")).collect(),
        all => all.iter().map(|a| pollster::block_on(MsmContext::from_adapter(a)).expect("device")).collect(),
    };
    Some(MultiGpu::new(contexts).expect("contexts"))
}

/// The results of `MultiGpu::msm_with` of scalar sets with the default config.
fn batch<'a>(
    multi: &MultiGpu,
    bases: impl Into<Bases<'a, G, MultiPreparedBases<G>>>,
    sets: &[&[Fr]],
) -> Result<Vec<EdwardsProjective>, MsmError> {
    pollster::block_on(multi.msm_with(bases, sets, &MsmConfig::default())).map(|output| output.results)
}

fn expected_sets(points: &[G], sets: &[Vec<Fr>]) -> Vec<EdwardsProjective> {
    sets.iter().map(|s| EdwardsProjective::msm(points, s).expect("lengths")).collect()
}

fn inputs(n: usize, seed: u64) -> (Vec<G>, Vec<Fr>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let points = random_points::<G, _>(n, &mut rng);
    (points, (0..n).map(|_| Fr::rand(&mut rng)).collect())
}

#[test]
fn devices_split_msms_and_batches_and_survive_a_lost_device() {
    let Some(multi) = devices() else { return };
    let shares = pollster::block_on(multi.shares(G::ID, 1 << 20)).expect("costs measured");
    println!("split of 2^20 points: {shares:?}");
    assert!(shares.iter().all(|(_, _, points)| *points > 0), "every device takes a share of 2^20: {shares:?}");
    assert_eq!(shares.iter().map(|(_, _, points)| points).sum::<usize>(), 1 << 20);

    let (points, scalars) = inputs(3000, 1);
    let expected = EdwardsProjective::msm(&points, &scalars).expect("lengths");
    assert_eq!(pollster::block_on(multi.msm(&points, &scalars)), Ok(expected));
    let sets: Vec<Vec<Fr>> = (2..5).map(|seed| inputs(3000, seed).1).collect();
    let refs: Vec<&[Fr]> = sets.iter().map(Vec::as_slice).collect();
    assert_eq!(batch(&multi, &points, &refs), Ok(expected_sets(&points, &sets)));
    assert_eq!(
        pollster::block_on(multi.msm(&points[..5], &scalars[..5])),
        Ok(EdwardsProjective::msm(&points[..5], &scalars[..5]).expect("lengths"))
    );
    assert_eq!(
        pollster::block_on(multi.msm(&points, &scalars[1..])),
        Err(MsmError::LengthMismatch { points: 3000, scalars: 2999 })
    );

    // Prepared bases: each device keeps its share.
    let bases = pollster::block_on(multi.prepare(&points, &MsmConfig::default())).expect("prepare");
    println!("prepared shares (device, points): {:?}", bases.shares());
    assert_eq!(bases.shares().iter().map(|(_, n)| n).sum::<usize>(), 3000);
    assert_eq!(batch(&multi, &bases, &refs), Ok(expected_sets(&points, &sets)));
    assert_eq!(
        batch(&multi, &bases, &[&scalars, &scalars[1..]]),
        Err(MsmError::SetLengthMismatch { set: 1, points: 3000, scalars: 2999 })
    );
    // Fewer scalars: the first bases, on the devices that hold them (a prefix within the first
    // share, and one past it).
    for len in [5, 2000] {
        let expected = EdwardsProjective::msm(&points[..len], &scalars[..len]).expect("lengths");
        assert_eq!(pollster::block_on(multi.msm(&bases, &scalars[..len])), Ok(expected), "prefix of {len}");
    }
    // Profiles are of one device's calls.
    let profiled = MsmConfig { profile: true, ..MsmConfig::default() };
    let unsupported = pollster::block_on(multi.msm_with(&points, &[&scalars], &profiled));
    assert!(matches!(unsupported, Err(MsmError::Unsupported(_))), "{unsupported:?}");
    // With stored multiples on every device.
    let folded =
        pollster::block_on(multi.prepare(&points, &MsmConfig { precompute_factor: 4, ..MsmConfig::default() }));
    let got = batch(&multi, &folded.expect("prepare with multiples"), &refs);
    assert_eq!(got, Ok(expected_sets(&points, &sets)), "precompute factor 4");

    // Device 1 lost while a call runs: that call fails naming it, or finishes first; the next
    // calls run on device 0 alone.
    let (big_points, big_scalars) = inputs(1 << 14, 9);
    let big_expected = EdwardsProjective::msm(&big_points, &big_scalars).expect("lengths");
    let during = std::thread::scope(|scope| {
        let call = scope.spawn(|| pollster::block_on(multi.msm(&big_points, &big_scalars)));
        std::thread::sleep(std::time::Duration::from_millis(20));
        multi.contexts().nth(1).expect("two devices").lose_device_for_tests();
        call.join().expect("the call's thread")
    });
    match &during {
        Ok(sum) => assert_eq!(*sum, big_expected, "a call that finished before the loss is right"),
        Err(MsmError::DeviceLost(why)) => assert!(why.starts_with("device 1 ("), "names the device: {why}"),
        Err(other) => panic!("a lost device gives DeviceLost, not {other:?}"),
    }
    println!("call during the loss: {:?}", during.as_ref().map(|_| "finished first"));
    assert_eq!(pollster::block_on(multi.msm(&big_points, &big_scalars)), Ok(big_expected), "device 0 keeps serving");
    let shares = pollster::block_on(multi.shares(G::ID, 1 << 20)).expect("shares");
    assert_eq!(shares[1].2, 0, "the lost device takes no share: {shares:?}");

    // Bases with a share on the lost device fail naming it; prepared again, device 0 holds all.
    if bases.shares().iter().any(|&(device, _)| device == 1) {
        let lost = batch(&multi, &bases, &refs);
        assert!(matches!(&lost, Err(MsmError::DeviceLost(why)) if why.starts_with("device 1 (")), "{lost:?}");
    }
    let again = pollster::block_on(multi.prepare(&points, &MsmConfig::default())).expect("prepare on device 0");
    assert_eq!(again.shares(), vec![(0, 3000)]);
    assert_eq!(batch(&multi, &again, &refs), Ok(expected_sets(&points, &sets)));

    multi.contexts().next().expect("device 0").lose_device_for_tests();
    assert!(matches!(pollster::block_on(multi.msm(&points, &scalars)), Err(MsmError::DeviceLost(_))));
}
