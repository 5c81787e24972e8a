//! What the host uploads, and what the GPU's input checks report back.
//!
//! An upload is a copy of the caller's memory into wgpu's staging buffer, with no per-element
//! arithmetic: the bytes API's buffers as they are (canonical integers), the Rust API's points
//! and scalars as arkworks' own Montgomery-form limbs. Range checks, the curve equation and every
//! conversion run in the GPU's first steps (`convert_points`, `convert_scalars`), which record the
//! lowest bad point of each kind in [`Faults`]; the host reads them before it uses any result.

use std::num::NonZeroU64;
use std::ops::Range;

use ark_ff::{BigInteger, PrimeField};

use crate::bytes::PointForm;
use crate::curve::{scalar_words, write_limbs, CurveSpec, GpuCurve, MAX_SCALAR_BITS, SCALAR_WORDS};
use crate::plan::Plan;
use crate::MsmError;

/// Input bytes that copy themselves into a GPU buffer (Sync so calls stay Send).
pub(crate) trait Upload: Sync {
    /// Bytes written.
    fn byte_len(&self) -> usize;
    /// Writes exactly [`Upload::byte_len`] bytes into `out`.
    fn write(&self, out: wgpu::WriteOnly<'_, [u8]>);
    /// This upload as consecutive uploads of whole elements, about `parts` of them, whose bytes
    /// one after another are its bytes, so that each can be written on a thread of its own;
    /// empty where it does not split. Native only: browsers write no staging buffer.
    #[cfg(not(target_arch = "wasm32"))]
    fn split(&self, _parts: usize) -> Vec<Box<dyn Upload + '_>> {
        Vec::new()
    }
    /// The bytes themselves, when the upload is a byte slice as it is: they go to
    /// `queue.write_buffer` directly, which in browsers hands WebGPU a view of the WASM memory
    /// instead of filling an intermediate buffer first.
    fn as_bytes(&self) -> Option<&[u8]> {
        None
    }
}

impl<T: Upload + ?Sized> Upload for &T {
    fn byte_len(&self) -> usize {
        (**self).byte_len()
    }

    fn write(&self, out: wgpu::WriteOnly<'_, [u8]>) {
        (**self).write(out)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn split(&self, parts: usize) -> Vec<Box<dyn Upload + '_>> {
        (**self).split(parts)
    }

    fn as_bytes(&self) -> Option<&[u8]> {
        (**self).as_bytes()
    }
}

impl Upload for [u8] {
    fn byte_len(&self) -> usize {
        self.len()
    }

    fn write(&self, mut out: wgpu::WriteOnly<'_, [u8]>) {
        out.copy_from_slice(self);
    }

    /// Pieces of whole 8-byte words (the last may be shorter), so each starts where a mapped
    /// range may.
    #[cfg(not(target_arch = "wasm32"))]
    fn split(&self, parts: usize) -> Vec<Box<dyn Upload + '_>> {
        const WORD: usize = 8;
        split_ranges(self.len().div_ceil(WORD), parts)
            .map(|words| Box::new(&self[words.start * WORD..(words.end * WORD).min(self.len())]) as Box<dyn Upload>)
            .collect()
    }

    fn as_bytes(&self) -> Option<&[u8]> {
        Some(self)
    }
}

/// Uploaded points `[0, RAW_LOW_POINTS)` go to [`Buffer::RawPoints`](crate::step::Buffer), the
/// rest to `Buffer::RawPointsHigh` (`RAW_LOW_POINTS` in `shaders/common.wgsl`).
pub(crate) const RAW_LOW_POINTS: usize = 1 << 19;

/// Bytes of the two raw point buffers for `n` uploaded points of `spec`
/// ([`Points::raw_halves`]), each at least one point: a binding holds at least one element of
/// its array.
pub(crate) fn raw_buffer_bytes(spec: &CurveSpec, n: usize) -> [u64; 2] {
    let low = n.min(RAW_LOW_POINTS);
    [low, n - low].map(|points| points.max(1) as u64 * spec.raw_point_bytes())
}

/// Input points in the form their API received them.
pub(crate) enum Points<'a, G> {
    /// The Rust API's points, uploaded as arkworks' Montgomery-form limbs.
    Arkworks(&'a [G]),
    /// The bytes API's x‖y per point, little-endian integers in `form` (see [`crate::bytes`]),
    /// uploaded as they are; a whole number of points.
    Bytes(&'a [u8], PointForm),
}

impl<'a, G: GpuCurve> Points<'a, G> {
    /// Bytes of one uploaded point.
    fn point_bytes() -> usize {
        G::spec().raw_point_bytes() as usize
    }

    /// Number of points.
    pub(crate) fn len(&self) -> usize {
        match self {
            Points::Arkworks(points) => points.len(),
            Points::Bytes(bytes, _) => bytes.len() / Self::point_bytes(),
        }
    }

    /// Points `range`.
    pub(crate) fn pass(&self, range: Range<usize>) -> Self {
        match *self {
            Points::Arkworks(points) => Points::Arkworks(&points[range]),
            Points::Bytes(bytes, form) => {
                Points::Bytes(&bytes[range.start * Self::point_bytes()..range.end * Self::point_bytes()], form)
            }
        }
    }

    /// The points as the GPU's two raw point buffers take them: the first
    /// [`RAW_LOW_POINTS`], then the rest.
    pub(crate) fn raw_halves(&self) -> [Self; 2] {
        let split = self.len().min(RAW_LOW_POINTS);
        [self.pass(0..split), self.pass(split..self.len())]
    }

    /// Their [`Plan::inputs`] bit.
    pub(crate) fn plan_inputs(&self) -> u32 {
        match self {
            Points::Arkworks(_) | Points::Bytes(_, PointForm::Montgomery) => Plan::POINTS_MONTGOMERY,
            Points::Bytes(_, PointForm::Canonical) => 0,
        }
    }

    /// The form of the points' coordinates: the bytes API's, or canonical for arkworks points
    /// (the form bytes results over them would take).
    pub(crate) fn form(&self) -> PointForm {
        match self {
            Points::Arkworks(_) => PointForm::Canonical,
            Points::Bytes(_, form) => *form,
        }
    }

    /// Whether point `i` is the identity (a valid encoding of it; profiling only, which decodes
    /// bytes on the host).
    pub(crate) fn is_identity(&self, i: usize) -> bool {
        self.get(i).is_some_and(|point| point.is_zero())
    }

    /// Point `i`, decoded on the host (only for the rare points the GPU leaves to it), or `None`
    /// if its bytes are not a point on the curve.
    pub(crate) fn get(&self, i: usize) -> Option<G> {
        match self {
            Points::Arkworks(points) => points.get(i).copied(),
            Points::Bytes(bytes, form) => {
                let point = bytes.get(i * Self::point_bytes()..(i + 1) * Self::point_bytes())?;
                let canonical = form.to_canonical::<G>(point)?;
                let (x, y) = canonical.split_at(Self::point_bytes() / 2);
                G::from_xy_bytes(x, y).ok()
            }
        }
    }
}

impl<G: GpuCurve> Upload for Points<'_, G> {
    fn byte_len(&self) -> usize {
        self.len() * Self::point_bytes()
    }

    fn write(&self, out: wgpu::WriteOnly<'_, [u8]>) {
        match self {
            Points::Arkworks(points) => G::write_montgomery(points, out),
            Points::Bytes(bytes, _) => bytes.write(out),
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn split(&self, parts: usize) -> Vec<Box<dyn Upload + '_>> {
        split_ranges(self.len(), parts).map(|range| Box::new(self.pass(range)) as Box<dyn Upload>).collect()
    }

    fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Points::Arkworks(_) => None,
            Points::Bytes(bytes, _) => Some(bytes),
        }
    }
}

/// Input scalars in the form their API received them.
pub(crate) enum Scalars<'a, G: GpuCurve> {
    /// The Rust API's scalars, uploaded as arkworks' Montgomery-form limbs.
    Arkworks(&'a [G::ScalarField]),
    /// The bytes API's 32 bytes per scalar, little-endian integers below 2^256, uploaded as they
    /// are; a whole number of scalars.
    Bytes(&'a [u8]),
}

impl<G: GpuCurve> Clone for Scalars<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: GpuCurve> Copy for Scalars<'_, G> {}

impl<'a, G: GpuCurve> Scalars<'a, G> {
    const SCALAR_BYTES: usize = 4 * SCALAR_WORDS;

    /// Number of scalars.
    pub(crate) fn len(&self) -> usize {
        match self {
            Scalars::Arkworks(scalars) => scalars.len(),
            Scalars::Bytes(bytes) => bytes.len() / Self::SCALAR_BYTES,
        }
    }

    /// Scalars `range`.
    pub(crate) fn pass(&self, range: Range<usize>) -> Self {
        match *self {
            Scalars::Arkworks(scalars) => Scalars::Arkworks(&scalars[range]),
            Scalars::Bytes(bytes) => {
                Scalars::Bytes(&bytes[range.start * Self::SCALAR_BYTES..range.end * Self::SCALAR_BYTES])
            }
        }
    }

    /// Their [`Plan::inputs`] bit.
    pub(crate) fn plan_inputs(&self) -> u32 {
        match self {
            Scalars::Arkworks(_) => Plan::SCALARS_MONTGOMERY,
            Scalars::Bytes(_) => 0,
        }
    }

    /// Widest scalar: the scalar field's for arkworks scalars, any 256-bit integer for bytes.
    /// Scalar `i` as a little-endian integer (only for the rare points the GPU leaves to the
    /// host).
    pub(crate) fn le_bytes(&self, i: usize) -> Vec<u8> {
        match self {
            Scalars::Arkworks(scalars) => scalars[i].into_bigint().to_bytes_le(),
            Scalars::Bytes(bytes) => bytes[i * Self::SCALAR_BYTES..(i + 1) * Self::SCALAR_BYTES].to_vec(),
        }
    }

    /// The scalars as the upload format's little-endian `u32` words, on the host (profiling
    /// only).
    pub(crate) fn words(&self) -> Vec<u32> {
        match self {
            Scalars::Arkworks(scalars) => scalar_words(scalars),
            Scalars::Bytes(bytes) => {
                bytes.chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes"))).collect()
            }
        }
    }

    pub(crate) fn bits(&self) -> u32 {
        match self {
            Scalars::Arkworks(_) => G::spec().scalar_bits,
            Scalars::Bytes(_) => MAX_SCALAR_BITS,
        }
    }
}

impl<G: GpuCurve> Upload for Scalars<'_, G> {
    fn byte_len(&self) -> usize {
        self.len() * Self::SCALAR_BYTES
    }

    fn write(&self, out: wgpu::WriteOnly<'_, [u8]>) {
        match self {
            Scalars::Arkworks(scalars) => write_limbs(scalars, Self::SCALAR_BYTES, out, |s| Some([s])),
            Scalars::Bytes(bytes) => bytes.write(out),
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn split(&self, parts: usize) -> Vec<Box<dyn Upload + '_>> {
        split_ranges(self.len(), parts).map(|range| Box::new(self.pass(range)) as Box<dyn Upload>).collect()
    }

    fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Scalars::Arkworks(_) => None,
            Scalars::Bytes(bytes) => Some(bytes),
        }
    }
}

/// The scalar sets of a batch MSM over one pass's points, uploaded one after another (set s's
/// scalar i at s·n + i, as `decompose_scalars` reads them); all of one upload form.
pub(crate) struct ScalarSets<'a, G: GpuCurve>(pub(crate) Vec<Scalars<'a, G>>);

impl<G: GpuCurve> Upload for ScalarSets<'_, G> {
    fn byte_len(&self) -> usize {
        self.0.iter().map(Upload::byte_len).sum()
    }

    fn write(&self, mut out: wgpu::WriteOnly<'_, [u8]>) {
        for set in &self.0 {
            let (this, rest) = out.split_at(set.byte_len());
            set.write(this);
            out = rest;
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn split(&self, parts: usize) -> Vec<Box<dyn Upload + '_>> {
        let per_set = parts.div_ceil(self.0.len().max(1));
        self.0.iter().flat_map(|set| set.split(per_set)).collect()
    }

    fn as_bytes(&self) -> Option<&[u8]> {
        match self.0.as_slice() {
            [one] => one.as_bytes(),
            _ => None,
        }
    }
}

/// `0..len` cut into at most `parts` consecutive ranges of nearly equal lengths, none empty.
#[cfg(not(target_arch = "wasm32"))]
fn split_ranges(len: usize, parts: usize) -> impl Iterator<Item = Range<usize>> {
    let step = len.div_ceil(parts.max(1)).max(1);
    (0..len).step_by(step).map(move |start| start..(start + step).min(len))
}

/// Copies `data` to the start of `buffer` (one copy: into wgpu's staging memory natively, into
/// the browser's in WebGPU); nothing for no bytes.
pub(crate) fn write_upload(queue: &wgpu::Queue, buffer: &wgpu::Buffer, data: &dyn Upload) {
    if data.byte_len() == 0 {
        return;
    }
    if let Some(bytes) = data.as_bytes() {
        queue.write_buffer(buffer, 0, bytes);
        return;
    }
    let Some(size) = NonZeroU64::new(data.byte_len() as u64) else {
        return;
    };
    // None only after a validation error, which the caller's error scope reports.
    if let Some(mut view) = queue.write_buffer_with(buffer, 0, size) {
        data.write(view.slice(..));
    }
}

/// A point's identity flag when the GPU gives it no digits and the host adds its multiple
/// instead (`POINT_LEFT_TO_HOST` in `shaders/common.wgsl`).
pub(crate) const POINT_LEFT_TO_HOST: u32 = 2;

/// Bytes of the faults buffer the host reads: one word per kind of bad point (`FAULT_*` in
/// `shaders/common.wgsl`: out of range, off the curve, no Edwards image, outside the subgroup).
pub(crate) const FAULTS_BYTES: u64 = 16;

/// The lowest bad point of each kind that one `convert_points` dispatch found (`FAULT_*` in
/// `shaders/common.wgsl`; the GPU keeps `!index`, so 0 means none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Faults {
    out_of_range: Option<usize>,
    not_on_curve: Option<usize>,
    /// The lowest valid point with no image on the Edwards model the pass runs (not an error:
    /// it got no digits, and the host adds its multiple; see [`crate::curve::EdwardsMap`]).
    pub(crate) no_image: Option<usize>,
    /// The lowest point outside the prime-order group, where `check_subgroup` ran.
    not_in_subgroup: Option<usize>,
}

impl Faults {
    /// Decodes the faults buffer's words.
    pub(crate) fn from_words(words: &[u32]) -> Self {
        let index = |w: u32| (w != 0).then_some(!w as usize);
        Faults {
            out_of_range: index(words[0]),
            not_on_curve: index(words[1]),
            no_image: index(words[2]),
            not_in_subgroup: index(words[3]),
        }
    }

    /// The error of the first bad point (a point has at most one kind: its curve equation is
    /// only checked when both coordinates are in range, its subgroup only when it is on the
    /// curve), its index counted from `first`, the index of the dispatch's first point in the
    /// caller's input.
    pub(crate) fn check(self, first: usize) -> Result<(), MsmError> {
        // (index, kind): at one index the range error (kind 0) sorts first.
        let kinds = [self.out_of_range, self.not_on_curve, self.not_in_subgroup];
        let first_bad = kinds.iter().enumerate().filter_map(|(kind, i)| i.map(|i| (i, kind))).min();
        match first_bad {
            None => Ok(()),
            Some((i, 0)) => Err(MsmError::CoordinateOutOfRange { index: first + i }),
            Some((i, 1)) => Err(MsmError::NotOnCurve { index: first + i }),
            Some((i, _)) => Err(MsmError::NotInSubgroup { index: first + i }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_low_points_matches_the_shader() {
        let shader = include_str!("../shaders/common.wgsl");
        assert!(shader.contains(&format!("const RAW_LOW_POINTS: u32 = {RAW_LOW_POINTS}u;")));
    }

    /// The GPU keeps `!index` per kind, 0 for none; the lowest bad point is named, with the
    /// range error first when both kinds name the same index, counted from the pass's first point.
    #[test]
    fn faults_name_the_first_bad_point() {
        let faults = |range: Option<u32>, curve: Option<u32>| {
            Faults::from_words(&[range.map_or(0, |i| !i), curve.map_or(0, |i| !i), 0, 0])
        };
        assert_eq!(faults(None, None).check(7), Ok(()));
        assert_eq!(faults(Some(3), None).check(0), Err(MsmError::CoordinateOutOfRange { index: 3 }));
        assert_eq!(faults(None, Some(0)).check(100), Err(MsmError::NotOnCurve { index: 100 }));
        assert_eq!(faults(Some(5), Some(2)).check(10), Err(MsmError::NotOnCurve { index: 12 }));
        assert_eq!(faults(Some(2), Some(5)).check(10), Err(MsmError::CoordinateOutOfRange { index: 12 }));
        assert_eq!(faults(Some(4), Some(4)).check(0), Err(MsmError::CoordinateOutOfRange { index: 4 }));
        let subgroup = |curve: u32, subgroup: u32| Faults::from_words(&[0, !curve, 0, !subgroup]).check(1);
        assert_eq!(subgroup(6, 2), Err(MsmError::NotInSubgroup { index: 3 }));
        assert_eq!(subgroup(2, 6), Err(MsmError::NotOnCurve { index: 3 }));
    }

    /// Bytes an upload writes, whole or piece by piece (the staging buffer's threads).
    #[cfg(all(feature = "bn254", not(target_arch = "wasm32")))]
    fn written(upload: &dyn Upload, parts: Option<usize>) -> Vec<u8> {
        let mut bytes = vec![0xAA; upload.byte_len()];
        let mut out = wgpu::WriteOnly::from_mut(bytes.as_mut_slice());
        match parts {
            None => upload.write(out),
            Some(parts) => {
                let pieces = upload.split(parts);
                assert!(!pieces.is_empty(), "splits");
                for piece in pieces {
                    let (head, tail) = out.split_at(piece.byte_len());
                    piece.write(head);
                    out = tail;
                }
                assert_eq!(out.len(), 0, "the pieces cover the upload");
            }
        }
        bytes
    }

    /// Pieces of points, scalars and scalar sets, written one after another, are the whole
    /// upload's bytes, for any number of parts (more parts than elements included).
    #[cfg(all(feature = "bn254", not(target_arch = "wasm32")))]
    #[test]
    fn uploads_split_into_pieces_that_write_the_same_bytes() {
        use ark_bn254::{Fr, G1Affine};
        use ark_ec::AffineRepr;
        use ark_ff::UniformRand;
        use ark_std::rand::{rngs::StdRng, SeedableRng};
        let mut rng = StdRng::seed_from_u64(5);
        let mut points: Vec<G1Affine> = (0..37).map(|_| G1Affine::rand(&mut rng)).collect();
        points[3] = G1Affine::zero();
        let scalars: Vec<Fr> = (0..37).map(|_| Fr::rand(&mut rng)).collect();
        let point_bytes = written(&Points::Arkworks(&points), None);
        let scalar_bytes = written(&Scalars::<G1Affine>::Arkworks(&scalars), None);
        let sets = ScalarSets(vec![Scalars::<G1Affine>::Arkworks(&scalars), Scalars::Bytes(&scalar_bytes)]);
        for parts in [1, 2, 3, 8, 37, 100] {
            assert_eq!(written(&Points::Arkworks(&points), Some(parts)), point_bytes);
            assert_eq!(
                written(&Points::<G1Affine>::Bytes(&point_bytes, PointForm::Montgomery), Some(parts)),
                point_bytes
            );
            assert_eq!(written(&Scalars::<G1Affine>::Arkworks(&scalars), Some(parts)), scalar_bytes);
            assert_eq!(written(&sets, Some(parts)), written(&sets, None));
            assert_eq!(written(&&point_bytes[..], Some(parts)), point_bytes);
        }
    }
}
