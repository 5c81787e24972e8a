//! [`MultiGpu`]: MSMs split over several devices of one process. Each device takes a contiguous
//! share of the points in proportion to its measured throughput on the curve, computes its
//! share's MSM (or batch) on its own thread, and the shares' sums are added. Natively only:
//! browsers expose one adapter.

use std::any::TypeId;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use ark_ff::{UniformRand, Zero};
use ark_std::rand::{rngs::StdRng, SeedableRng};

use crate::inputs::random_points;
use crate::{GpuCurve, MsmContext, MsmError};

/// Points of the MSM each device runs, on a curve's first use, to measure its throughput (after
/// a first call that compiles the curve's pipelines).
pub const THROUGHPUT_POINTS: usize = 1 << 12;

/// Several devices computing MSMs together. Create it from contexts (one per device:
/// [`MsmContext::from_adapter`], [`MsmContext::from_wgpu`], …) or with [`MultiGpu::all_adapters`].
///
/// A device lost during a call fails that call with [`MsmError::DeviceLost`] naming the device;
/// later calls run on the devices left.
pub struct MultiGpu {
    devices: Vec<Device>,
    /// Points per second of each device (in `devices` order) per curve, measured on the curve's
    /// first use.
    throughput: Mutex<HashMap<TypeId, Vec<f64>>>,
}

/// What one device's thread returns: the device, its range of points, its sums (one per set).
type Share<P> = (usize, Range<usize>, Result<Vec<P>, MsmError>);

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
        Ok(MultiGpu { devices, throughput: Mutex::new(HashMap::new()) })
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

    /// Each device's name ("device i (adapter name)") and the share of the points it takes on
    /// curve `G` (0 for a lost device), measuring the throughputs if this is the curve's first
    /// use.
    pub async fn shares<G: GpuCurve>(&self) -> Result<Vec<(String, f64)>, MsmError> {
        let weights = self.weights::<G>()?;
        let total: f64 = weights.iter().sum();
        Ok(self.devices.iter().zip(weights).map(|(d, w)| (d.name.clone(), w / total)).collect())
    }

    /// Σ scalars\[i\]·points\[i\] over all devices, equal to [`MsmContext::msm`] (and its errors,
    /// with point indices counted in the whole input).
    pub async fn msm<G: GpuCurve>(&self, points: &[G], scalars: &[G::ScalarField]) -> Result<G::Group, MsmError> {
        if points.len() != scalars.len() {
            return Err(MsmError::LengthMismatch { points: points.len(), scalars: scalars.len() });
        }
        let mut results = self.msm_batch(points, &[scalars]).await?;
        Ok(results.pop().expect("one result per set"))
    }

    /// One MSM per scalar set over the same points, over all devices, equal to
    /// [`MsmContext::msm_batch`]: each device runs the batch on its share of the points.
    pub async fn msm_batch<G: GpuCurve>(
        &self,
        points: &[G],
        sets: &[&[G::ScalarField]],
    ) -> Result<Vec<G::Group>, MsmError> {
        if let Some(set) = sets.iter().position(|s| s.len() != points.len()) {
            return Err(MsmError::SetLengthMismatch { set, points: points.len(), scalars: sets[set].len() });
        }
        let shares = split(points.len(), &self.weights::<G>()?);
        let outcomes: Vec<Share<G::Group>> = std::thread::scope(|scope| {
            let handles: Vec<_> = shares
                .into_iter()
                .enumerate()
                .filter(|(_, range)| !range.is_empty())
                .map(|(i, range)| {
                    let device = &self.devices[i];
                    let sets: Vec<&[G::ScalarField]> = sets.iter().map(|s| &s[range.clone()]).collect();
                    let points = &points[range.clone()];
                    scope.spawn(move || (i, range, pollster::block_on(device.ctx.msm_batch(points, &sets))))
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("a device's thread panicked")).collect()
        });
        let mut totals = vec![G::Group::zero(); sets.len()];
        let mut first_error: Option<MsmError> = None;
        for (i, range, outcome) in outcomes {
            match outcome {
                Ok(sums) => totals.iter_mut().zip(sums).for_each(|(total, sum)| *total += sum),
                Err(e) => {
                    let e = self.in_whole_input(i, range.start, e);
                    if first_error.as_ref().is_none_or(|first| precedes(&e, first)) {
                        first_error = Some(e);
                    }
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(totals),
        }
    }

    /// `e` from device `i`'s share starting at point `start`, as the whole input's error: point
    /// indices shifted, a device loss recorded (later calls skip the device) and named.
    fn in_whole_input(&self, i: usize, start: usize, e: MsmError) -> MsmError {
        match e {
            MsmError::NotOnCurve { index } => MsmError::NotOnCurve { index: start + index },
            MsmError::CoordinateOutOfRange { index } => MsmError::CoordinateOutOfRange { index: start + index },
            MsmError::DeviceLost(why) => {
                self.devices[i].lost.store(true, Ordering::Relaxed);
                MsmError::DeviceLost(format!("{}: {why}", self.devices[i].name))
            }
            other => other,
        }
    }

    /// Each device's weight on curve `G`: its measured throughput, 0 once lost.
    fn weights<G: GpuCurve>(&self) -> Result<Vec<f64>, MsmError> {
        let measured = self
            .throughput
            .lock()
            .map_err(|_| MsmError::Gpu("MultiGpu lock poisoned".into()))?
            .get(&TypeId::of::<G>())
            .cloned();
        let throughput = match measured {
            Some(throughput) => throughput,
            None => {
                let throughput = self.measure::<G>()?;
                self.throughput
                    .lock()
                    .map_err(|_| MsmError::Gpu("MultiGpu lock poisoned".into()))?
                    .insert(TypeId::of::<G>(), throughput.clone());
                throughput
            }
        };
        let weights: Vec<f64> =
            self.devices.iter().zip(throughput).map(|(d, t)| if d.is_live() { t } else { 0.0 }).collect();
        if weights.iter().all(|&w| w == 0.0) {
            return Err(MsmError::DeviceLost("every device of this MultiGpu is lost".into()));
        }
        Ok(weights)
    }

    /// Points per second of each live device on curve `G`: a warm MSM of [`THROUGHPUT_POINTS`]
    /// random points after one that compiles the pipelines, the devices in parallel. A device
    /// that fails here counts as lost.
    fn measure<G: GpuCurve>(&self) -> Result<Vec<f64>, MsmError> {
        let mut rng = StdRng::seed_from_u64(THROUGHPUT_POINTS as u64);
        let points = random_points::<G, _>(THROUGHPUT_POINTS, &mut rng);
        let scalars: Vec<G::ScalarField> = (0..THROUGHPUT_POINTS).map(|_| G::ScalarField::rand(&mut rng)).collect();
        let rates = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .devices
                .iter()
                .map(|device| {
                    let (points, scalars) = (&points, &scalars);
                    scope.spawn(move || {
                        if !device.is_live() {
                            return 0.0;
                        }
                        let run = || pollster::block_on(device.ctx.msm(points, scalars));
                        let started = Instant::now();
                        match run().and_then(|_| {
                            let started_warm = Instant::now();
                            run().map(|_| started_warm.elapsed())
                        }) {
                            Ok(warm) => THROUGHPUT_POINTS as f64 / warm.as_secs_f64().max(1e-9),
                            Err(e) => {
                                log::warn!(
                                    "{}: throughput not measured ({e}) after {:?}",
                                    device.name,
                                    started.elapsed()
                                );
                                device.lost.store(true, Ordering::Relaxed);
                                0.0
                            }
                        }
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or(0.0)).collect::<Vec<f64>>()
        });
        Ok(rates)
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
    let index = |e: &MsmError| match e {
        MsmError::NotOnCurve { index } | MsmError::CoordinateOutOfRange { index } => Some(*index),
        _ => None,
    };
    match (index(a), index(b)) {
        (Some(x), Some(y)) => x < y,
        (None, Some(_)) => true,
        _ => false,
    }
}

/// `n` points split into contiguous ranges in proportion to `weights` (a zero weight gets an
/// empty range).
fn split(n: usize, weights: &[f64]) -> Vec<Range<usize>> {
    let total: f64 = weights.iter().sum();
    let mut start = 0;
    let mut cumulative = 0.0;
    weights
        .iter()
        .map(|w| {
            cumulative += w;
            let end = if cumulative >= total { n } else { ((n as f64 * cumulative / total).round() as usize).min(n) };
            let range = start..end.max(start);
            start = range.end;
            range
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn split_is_contiguous_and_proportional() {
        assert_eq!(split(10, &[1.0, 1.0]), vec![0..5, 5..10]);
        assert_eq!(split(10, &[3.0, 0.0, 1.0]), vec![0..8, 8..8, 8..10]);
        assert_eq!(split(0, &[1.0, 2.0]), vec![0..0, 0..0]);
        assert_eq!(split(7, &[0.0, 5.0]), vec![0..0, 0..7]);
        let ranges = split(1000, &[0.3, 0.2, 0.5]);
        assert_eq!(ranges.iter().map(|r| r.len()).sum::<usize>(), 1000);
        assert_eq!(ranges, vec![0..300, 300..500, 500..1000]);
    }
}
