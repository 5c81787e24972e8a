//! Points converted once into their stored form and kept on the GPU: the buffers of prepared
//! bases, which a run binds in place of the workspace's.

use crate::step::Buffer;

/// Points converted once into their stored form and kept on the GPU.
pub(crate) struct PreparedPass {
    /// Number of points.
    pub n: u32,
    /// With a precompute factor: the plan the stored multiples were made for (its window
    /// width, windows and factor), which every MSM over them runs; `None` without.
    pub folded: Option<crate::plan::Plan>,
    /// Stored points, as `Buffer::PointsFront` and `Buffer::PointsBack` (with a precompute
    /// factor F, F·n of them: the points, then their multiples).
    pub points: [wgpu::Buffer; 2],
    /// Identity flags, as `Buffer::Identity`.
    pub identity: wgpu::Buffer,
    /// What `convert_points` found when the bases were prepared, as `Buffer::Faults`.
    pub faults: wgpu::Buffer,
    /// The points as uploaded, kept where they may have to be converted again (bases prepared
    /// on a Weierstrass curve's Edwards model; see [`crate::curve::EdwardsMap`]).
    pub raw: Option<RawPoints>,
    /// Blinded bases ([`crate::MsmConfig::blinding`]): each point's blinding factor, as
    /// `Buffer::Blinding`.
    pub blinding: Option<wgpu::Buffer>,
}

/// Uploaded points on the GPU, as `Buffer::RawPoints` and `Buffer::RawPointsHigh`.
pub(crate) struct RawPoints {
    /// The points' words, cut as [`crate::upload::Points::raw_halves`] cuts them.
    pub buffers: [wgpu::Buffer; 2],
    /// Number of points.
    pub n: u32,
    /// Their upload form (`Plan::POINTS_MONTGOMERY` or 0).
    pub inputs: u32,
}

impl PreparedPass {
    /// Bytes of GPU memory its buffers hold.
    pub(crate) fn gpu_bytes(&self) -> u64 {
        let raw = self.raw.as_ref().map_or(0, |raw| raw.buffers.iter().map(wgpu::Buffer::size).sum());
        let blinding = self.blinding.as_ref().map_or(0, wgpu::Buffer::size);
        self.points.iter().map(wgpu::Buffer::size).sum::<u64>()
            + self.identity.size()
            + self.faults.size()
            + raw
            + blinding
    }

    /// The pass's own buffer standing in for `buffer` (see [`Buffer::held_by_prepared_bases`]).
    pub(crate) fn buffer(&self, buffer: Buffer) -> Option<&wgpu::Buffer> {
        match buffer {
            Buffer::PointsFront => Some(&self.points[0]),
            Buffer::PointsBack => Some(&self.points[1]),
            Buffer::Identity => Some(&self.identity),
            Buffer::Faults => Some(&self.faults),
            Buffer::Blinding => self.blinding.as_ref(),
            _ => None,
        }
    }
}
