//! [`MultiGpu`]: MSMs split over several devices of one process. Each device takes a contiguous
//! share of the points, sized from its measured cost on the curve so that all devices finish
//! together, computes its share's MSM (or batch) on its own thread, and the shares' sums are
//! added. Natively only: browsers expose one adapter.

use std::any::TypeId;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use ark_ff::{UniformRand, Zero};
use ark_std::rand::{rngs::StdRng, SeedableRng};

use crate::config::{Bases, MsmConfig, MsmOutput};
use crate::context::{check_set_lengths, set_length_error};
use crate::curve::registry::with_curve;
use crate::inputs::random_points;
use crate::{CurveId, GpuCurve, MsmContext, MsmError, PreparedBases};

/// The sizes of the two warm MSMs each device runs on a curve's first use (after a first call
/// that compiles the curve's pipelines), whose times give its [`Cost`].
const COST_SIZES: [usize; 2] = [1 << 12, 1 << 14];

/// A device's measured time for an MSM of n points on a curve: `fixed + per_point·n` seconds,
/// from two warm MSMs of 2^12 and 2^14 points that each device runs on the curve's first use
/// (after one that compiles the curve's pipelines).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cost {
    /// Seconds of a call whatever its size (submission, readback, small passes).
    pub fixed: f64,
    /// Seconds per point.
    pub per_point: f64,
}

impl Cost {
    /// The line through two warm timings `(n, seconds)`; proportional to the larger one where
    /// noise makes the slope non-positive.
    fn fit((n1, t1): (usize, f64), (n2, t2): (usize, f64)) -> Cost {
        let slope = (t2 - t1) / (n2 - n1) as f64;
        if slope > 0.0 {
            Cost { fixed: (t1 - slope * n1 as f64).max(0.0), per_point: slope }
        } else {
            Cost { fixed: 0.0, per_point: t2.max(1e-12) / n2 as f64 }
        }
    }
}

/// Several devices computing MSMs together, with the entry points of one [`MsmContext`]
/// ([`MultiGpu::msm`], [`MultiGpu::msm_with`], [`MultiGpu::prepare`]). Create it from contexts
/// (one per device: [`MsmContext::from_adapter`], [`MsmContext::from_wgpu`], …) or with
/// [`MultiGpu::all_adapters`].
///
/// A device lost during a call fails that call with [`MsmError::DeviceLost`] naming the device;
/// later calls run on the devices left.
pub struct MultiGpu {
    /// Unique per `MultiGpu`: bases prepared on it remember it.
    id: u64,
    devices: Vec<Device>,
    /// Each device's cost (in `devices` order) per curve, measured on the curve's first use.
    costs: Mutex<HashMap<TypeId, Vec<Cost>>>,
}

/// Points of curve `G` prepared on the devices of one [`MultiGpu`], each device holding its
/// share ([`MultiGpu::prepare`]); [`MultiGpu::msm`] and [`MultiGpu::msm_with`] take them as
/// their bases.
pub struct MultiPreparedBases<G: GpuCurve> {
    /// The id of the `MultiGpu` that prepared them.
    owner: u64,
    len: usize,
    /// Their precompute factor.
    factor: u32,
    /// (device index, range of points, the device's prepared bases).
    parts: Vec<(usize, Range<usize>, PreparedBases<G>)>,
}

impl<G: GpuCurve> MultiPreparedBases<G> {
    /// Number of points.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Each device holding a share, by index in [`MultiGpu::contexts`], and how many points.
    pub fn shares(&self) -> Vec<(usize, usize)> {
        self.parts.iter().map(|(i, range, _)| (*i, range.len())).collect()
    }
}

impl<'a, G: GpuCurve> From<&'a MultiPreparedBases<G>> for Bases<'a, G, MultiPreparedBases<G>> {
    fn from(bases: &'a MultiPreparedBases<G>) -> Self {
        Bases::Prepared(bases)
    }
}

/// The sums of every set over the devices' parts.
fn sum_parts<P: Zero + Copy + std::ops::AddAssign>(sets: usize, parts: impl Iterator<Item = Vec<P>>) -> Vec<P> {
    let mut totals = vec![P::zero(); sets];
    for sums in parts {
        totals.iter_mut().zip(sums).for_each(|(total, sum)| *total += sum);
    }
    totals
}

struct Device {
    ctx: MsmContext,
    name: String,
    lost: AtomicBool,
}

impl MultiGpu {
    /// A multi-device context over `contexts`; [`MsmError::NoAdapter`] when there are none.
    pub fn new(contexts: Vec<MsmContext>) -> Result<Self, MsmError> {
        if contexts.is_empty() {
            return Err(MsmError::NoAdapter("MultiGpu::new got no contexts".into()));
        }
        let devices = contexts
            .into_iter()
            .enumerate()
            .map(|(i, ctx)| Device {
                name: format!("device {i} ({})", ctx.adapter_info().name),
                ctx,
                lost: false.into(),
            })
            .collect();
        static NEXT_ID: AtomicU64 = AtomicU64::new(0);
        Ok(MultiGpu { id: NEXT_ID.fetch_add(1, Ordering::Relaxed), devices, costs: Mutex::new(HashMap::new()) })
    }

    /// One context on every adapter of wgpu's native backends (Vulkan, Metal, DX12).
    pub async fn all_adapters() -> Result<Self, MsmError> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let mut contexts = Vec::new();
        for adapter in instance.enumerate_adapters(wgpu::Backends::PRIMARY).await {
            contexts.push(MsmContext::from_adapter(&adapter).await?);
        }
        Self::new(contexts)
    }

    /// The devices' contexts, in order.
    pub fn contexts(&self) -> impl Iterator<Item = &MsmContext> {
        self.devices.iter().map(|d| &d.ctx)
    }

    /// Each device's name ("device i (adapter name)"), its measured cost on `curve` and the
    /// points it takes of an MSM of `n` points (0 for a lost device, or one whose fixed cost
    /// exceeds the time the others need), measuring the costs if this is the curve's first use.
    pub async fn shares(&self, curve: CurveId, n: usize) -> Result<Vec<(String, Cost, usize)>, MsmError> {
        with_curve!(curve, G => {
            let (costs, ranges) = (self.costs::<G>()?, self.split::<G>(n)?);
            Ok(self.devices.iter().zip(costs).zip(ranges).map(|((d, c), r)| (d.name.clone(), c, r.len())).collect())
        })
    }

    /// Σ scalars\[i\]·bases\[i\] over all devices, over points or bases prepared by
    /// [`MultiGpu::prepare`]: [`MultiGpu::msm_with`] with one set and the default config.
    pub async fn msm<'a, G: GpuCurve>(
        &self,
        bases: impl Into<Bases<'a, G, MultiPreparedBases<G>>>,
        scalars: &[G::ScalarField],
    ) -> Result<G::Group, MsmError> {
        let mut output = self.msm_with(bases, &[scalars], &MsmConfig::default()).await?;
        Ok(output.results.pop().expect("one result per set"))
    }

    /// One MSM per scalar set over points or prepared bases, over all devices, equal to
    /// [`MsmContext::msm_with`] (and its errors, with point indices counted in the whole
    /// input): each device runs the batch on its share of the points. Over prepared bases,
    /// fewer scalars than bases take the first bases, on the devices that hold them.
    ///
    /// Errors besides: `Unsupported` for a profiled call (profile one of
    /// [`MultiGpu::contexts`]) or a [`MsmConfig::cache`]; `ForeignBases` for bases prepared by
    /// another `MultiGpu`; `DeviceLost` naming the device when one holding a share of prepared
    /// bases is lost: its share is on no other device, so such bases must be prepared again (on
    /// the devices left).
    ///
    /// ```no_run
    /// # #[cfg(feature = "bn254")]
    /// # async fn example(points: Vec<ark_bn254::G1Affine>, a: Vec<ark_bn254::Fr>, b: Vec<ark_bn254::Fr>) -> Result<(), webgpu_msm::MsmError> {
    /// use webgpu_msm::{MsmConfig, MultiGpu};
    /// let gpus = MultiGpu::all_adapters().await?;
    /// let bases = gpus.prepare(&points, &MsmConfig::default()).await?;
    /// let both = gpus.msm_with(&bases, &[&a, &b], &MsmConfig::default()).await?.results;
    /// # let _ = both; Ok(()) }
    /// ```
    pub async fn msm_with<'a, G: GpuCurve>(
        &self,
        bases: impl Into<Bases<'a, G, MultiPreparedBases<G>>>,
        sets: &[&[G::ScalarField]],
        config: &MsmConfig<'_>,
    ) -> Result<MsmOutput<G::Group>, MsmError> {
        if config.profile {
            return Err(MsmError::Unsupported("profiling runs on one device: profile one of the contexts".into()));
        }
        if config.cache.is_some() {
            return Err(MsmError::Unsupported("a BaseCache holds bytes: it serves msm_bytes".into()));
        }
        let lens: Vec<usize> = sets.iter().map(|s| s.len()).collect();
        let parts = match bases.into() {
            Bases::Points(points) => {
                check_set_lengths(points.len(), lens)?;
                let shares = self.split::<G>(points.len())?;
                self.on_devices(shares, |device, range| {
                    let sets: Vec<&[G::ScalarField]> = sets.iter().map(|s| &s[range.clone()]).collect();
                    pollster::block_on(device.ctx.msm_with(&points[range], &sets, config))
                })?
            }
            Bases::Prepared(bases) => {
                let prefix = lens.first().copied().unwrap_or(0);
                match lens.iter().position(|&len| len > bases.len) {
                    Some(set) => return Err(set_length_error(bases.len, &lens, set)),
                    None => check_set_lengths(prefix, lens.iter().copied())?,
                }
                if bases.owner != self.id {
                    return Err(MsmError::ForeignBases);
                }
                if prefix < bases.len && bases.factor > 1 && !sets.is_empty() {
                    return Err(MsmError::PrefixOfFoldedBases { points: bases.len, scalars: prefix });
                }
                // The parts within the prefix, each cut to it.
                let held: Vec<(usize, usize, Range<usize>)> = bases
                    .parts
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, range, _))| range.start < prefix)
                    .map(|(k, (i, range, _))| (k, *i, range.start..range.end.min(prefix)))
                    .collect();
                let shares = held.iter().map(|(_, i, range)| (*i, range.clone())).collect();
                self.on_each(shares, |device, j, range| {
                    let sets: Vec<&[G::ScalarField]> = sets.iter().map(|s| &s[range.clone()]).collect();
                    pollster::block_on(device.ctx.msm_with(&bases.parts[held[j].0].2, &sets, config))
                })?
            }
        };
        let results = sum_parts(sets.len(), parts.into_iter().map(|(_, _, output)| output.results));
        Ok(MsmOutput { results, profile: None })
    }

    /// Points prepared on the devices, each holding its share (sized as for an MSM of all of
    /// them): [`MsmContext::prepare`] with `config` on every device, in parallel, with
    /// whole-input indices in its errors.
    pub async fn prepare<G: GpuCurve>(
        &self,
        points: &[G],
        config: &MsmConfig<'_>,
    ) -> Result<MultiPreparedBases<G>, MsmError> {
        let shares = self.split::<G>(points.len())?;
        let parts =
            self.on_devices(shares, |device, range| pollster::block_on(device.ctx.prepare(&points[range], config)))?;
        Ok(MultiPreparedBases { owner: self.id, len: points.len(), factor: config.precompute_factor, parts })
    }

    /// [`MultiGpu::on_each`] over the non-empty ranges of `shares` (one per device, in order).
    fn on_devices<T: Send>(
        &self,
        shares: Vec<Range<usize>>,
        work: impl Fn(&Device, Range<usize>) -> Result<T, MsmError> + Sync,
    ) -> Result<Vec<(usize, Range<usize>, T)>, MsmError> {
        let shares: Vec<(usize, Range<usize>)> =
            shares.into_iter().enumerate().filter(|(_, r)| !r.is_empty()).collect();
        self.on_each(shares, |device, _, range| work(device, range))
    }

    /// Runs `work(device, k, range)` for the k-th (device index, range) of `shares`, each on its
    /// own thread. All succeed, or the error reported first (the lowest bad point's, with its
    /// whole-input index; a lost device is recorded and named).
    fn on_each<T: Send>(
        &self,
        shares: Vec<(usize, Range<usize>)>,
        work: impl Fn(&Device, usize, Range<usize>) -> Result<T, MsmError> + Sync,
    ) -> Result<Vec<(usize, Range<usize>, T)>, MsmError> {
        let outcomes: Vec<(usize, Range<usize>, Result<T, MsmError>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = shares
                .into_iter()
                .enumerate()
                .map(|(k, (i, range))| {
                    let (device, work) = (&self.devices[i], &work);
                    scope.spawn(move || (i, range.clone(), work(device, k, range)))
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("a device's thread panicked")).collect()
        });
        let mut done = Vec::new();
        let mut first_error: Option<MsmError> = None;
        for (i, range, outcome) in outcomes {
            match outcome {
                Ok(value) => done.push((i, range, value)),
                Err(e) => {
                    let e = self.in_whole_input(i, range.start, e);
                    if first_error.as_ref().is_none_or(|first| precedes(&e, first)) {
                        first_error = Some(e);
                    }
                }
            }
        }
        first_error.map_or(Ok(done), Err)
    }

    /// `e` from device `i`'s share starting at point `start`, as the whole input's error: point
    /// indices shifted, a device loss recorded (later calls skip the device) and named.
    fn in_whole_input(&self, i: usize, start: usize, e: MsmError) -> MsmError {
        match e.shifted_by(start) {
            MsmError::DeviceLost(why) => {
                self.devices[i].lost.store(true, Ordering::Relaxed);
                MsmError::DeviceLost(format!("{}: {why}", self.devices[i].name))
            }
            other => other,
        }
    }

    /// `n` points of curve `G` split over the live devices ([`split`]).
    fn split<G: GpuCurve>(&self, n: usize) -> Result<Vec<Range<usize>>, MsmError> {
        Ok(split(n, &self.live_costs(&self.costs::<G>()?)?))
    }

    /// Each device's cost on curve `G`, measured on the curve's first use.
    fn costs<G: GpuCurve>(&self) -> Result<Vec<Cost>, MsmError> {
        let poisoned = |_| MsmError::Gpu("MultiGpu lock poisoned".into());
        if let Some(costs) = self.costs.lock().map_err(poisoned)?.get(&TypeId::of::<G>()) {
            return Ok(costs.clone());
        }
        let costs = self.measure::<G>();
        self.costs.lock().map_err(poisoned)?.insert(TypeId::of::<G>(), costs.clone());
        Ok(costs)
    }

    /// The costs of the live devices, `None` for lost ones; `DeviceLost` when none is left.
    fn live_costs(&self, costs: &[Cost]) -> Result<Vec<Option<Cost>>, MsmError> {
        let live: Vec<Option<Cost>> = self.devices.iter().zip(costs).map(|(d, c)| d.is_live().then_some(*c)).collect();
        if live.iter().all(Option::is_none) {
            return Err(MsmError::DeviceLost("every device of this MultiGpu is lost".into()));
        }
        Ok(live)
    }

    /// Each device's cost on curve `G`: warm MSMs of the [`COST_SIZES`] after one that compiles
    /// the pipelines, one device after the other (so devices that share the host, as software
    /// GPUs do, are each timed alone). A device that fails here counts as lost.
    fn measure<G: GpuCurve>(&self) -> Vec<Cost> {
        let mut rng = StdRng::seed_from_u64(COST_SIZES[1] as u64);
        let points = random_points::<G, _>(COST_SIZES[1], &mut rng);
        let scalars: Vec<G::ScalarField> = (0..COST_SIZES[1]).map(|_| G::ScalarField::rand(&mut rng)).collect();
        let unusable = Cost { fixed: f64::INFINITY, per_point: f64::INFINITY };
        self.devices
            .iter()
            .map(|device| {
                if !device.is_live() {
                    return unusable;
                }
                let seconds = |n: usize| {
                    let started = Instant::now();
                    pollster::block_on(device.ctx.msm(&points[..n], &scalars[..n]))
                        .map(|_| started.elapsed().as_secs_f64())
                };
                let timings =
                    seconds(COST_SIZES[0]).and_then(|_| Ok((seconds(COST_SIZES[0])?, seconds(COST_SIZES[1])?)));
                match timings {
                    Ok((t1, t2)) => Cost::fit((COST_SIZES[0], t1), (COST_SIZES[1], t2)),
                    Err(e) => {
                        log::warn!("{}: cost not measured ({e})", device.name);
                        device.lost.store(true, Ordering::Relaxed);
                        unusable
                    }
                }
            })
            .collect()
    }
}

impl Device {
    fn is_live(&self) -> bool {
        !self.lost.load(Ordering::Relaxed) && self.ctx.gpu().check_alive().is_ok()
    }
}

/// Whether error `a` is reported before `b`: the one naming the lower point first, then any
/// other error before none.
fn precedes(a: &MsmError, b: &MsmError) -> bool {
    match (a.point_index(), b.point_index()) {
        (Some(x), Some(y)) => x < y,
        (None, Some(_)) => true,
        _ => false,
    }
}

/// `n` points split into contiguous ranges, one per device (`None`: lost, empty range), sized
/// so that the devices used finish together: device k takes n_k = (T − fixed_k) / per_point_k,
/// T chosen so the n_k add up to n, leaving out the devices whose fixed cost alone exceeds T
/// (for small n, all but one). Rounding goes to the device of the largest share.
fn split(n: usize, costs: &[Option<Cost>]) -> Vec<Range<usize>> {
    let mut used: Vec<bool> = costs.iter().map(|c| c.is_some_and(|c| c.per_point.is_finite())).collect();
    let mut shares = vec![0.0; costs.len()];
    loop {
        let (mut inverse, mut offset) = (0.0, 0.0);
        for (c, _) in costs.iter().zip(&used).filter(|(_, &u)| u) {
            let c = c.expect("used devices have costs");
            inverse += 1.0 / c.per_point;
            offset += c.fixed / c.per_point;
        }
        let finish = (n as f64 + offset) / inverse;
        let mut dropped = false;
        for (k, c) in costs.iter().enumerate() {
            match c {
                Some(c) if used[k] && c.fixed >= finish => {
                    used[k] = false;
                    dropped = true;
                }
                Some(c) if used[k] => shares[k] = (finish - c.fixed) / c.per_point,
                _ => shares[k] = 0.0,
            }
        }
        if !dropped || used.iter().all(|&u| !u) {
            break;
        }
    }
    if used.iter().all(|&u| !u) {
        // Only for n = 0 or unusable costs: the cheapest device takes everything.
        let best = costs.iter().position(Option::is_some).unwrap_or(0);
        shares[best] = n as f64;
    }
    let mut counts: Vec<usize> = shares.iter().map(|s| s.floor().max(0.0) as usize).collect();
    let largest = (0..counts.len()).max_by(|&a, &b| shares[a].total_cmp(&shares[b])).unwrap_or(0);
    counts[largest] += n - counts.iter().sum::<usize>().min(n);
    let mut start = 0;
    counts
        .into_iter()
        .map(|count| {
            let range = start..start + count;
            start = range.end;
            range
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{split, Cost};

    fn cost(fixed: f64, per_point: f64) -> Option<Cost> {
        Some(Cost { fixed, per_point })
    }

    #[test]
    fn devices_finish_together() {
        // Equal devices share equally; a device twice as fast takes twice the points.
        assert_eq!(split(10, &[cost(0.0, 1.0), cost(0.0, 1.0)]), vec![0..5, 5..10]);
        assert_eq!(split(300, &[cost(0.0, 2.0), cost(0.0, 1.0)]), vec![0..100, 100..300]);
        // A fixed cost shifts points to the other device; lost devices take none.
        assert_eq!(split(100, &[cost(10.0, 1.0), None, cost(0.0, 1.0)]), vec![0..45, 45..45, 45..100]);
        // A small input goes to one device when another's fixed cost alone exceeds the time.
        assert_eq!(split(10, &[cost(0.0, 1.0), cost(50.0, 0.1)]), vec![0..10, 10..10]);
        assert_eq!(split(0, &[cost(1.0, 1.0), cost(2.0, 1.0)]), vec![0..0, 0..0]);
        let ranges = split(1_000_003, &[cost(0.01, 1e-6), cost(0.5, 3e-7), cost(0.0, 2e-6)]);
        assert_eq!(ranges.iter().map(|r| r.len()).sum::<usize>(), 1_000_003);
        assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
    }

    #[test]
    fn costs_fit_two_timings() {
        assert_eq!(Cost::fit((100, 2.0), (300, 4.0)), Cost { fixed: 1.0, per_point: 0.01 });
        assert_eq!(Cost::fit((100, 2.0), (300, 1.0)), Cost { fixed: 0.0, per_point: 1.0 / 300.0 });
    }
}
