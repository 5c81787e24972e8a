//! Natively, the host-visible buffers that a workspace's inputs are written into, copied from
//! on the GPU into the buffers that hold them. `queue.write_buffer` instead allocates fresh
//! staging memory on every call, and the first touch of fresh memory costs a page fault per
//! 4 KiB page: on a software GPU that costs 9–10× a memcpy of the inputs per call for BLS12-381
//! at 2^19–2^20. In browsers `write_buffer` hands WebGPU a view of the WASM
//! memory, one copy already, so they keep it.
//!
//! The staging memory is cut into parts of [`PART_BYTES`], each a buffer of its own. A large
//! upload is written part by part, and each part's copy is submitted as soon as the part is
//! written, so that the GPU copies one part while the host writes the next. On a discrete GPU
//! that copy crosses the PCIe bus: with the host's write, one after the other, it takes a third
//! of a one-off 2^20 call on an H100 or an H200.

use std::sync::{Condvar, Mutex};

use crate::upload::Upload;
use crate::MsmError;

use super::device::Gpu;

/// Bytes of one part of the staging memory (fewer where the workspace's inputs need fewer).
const PART_BYTES: u64 = 8 << 20;
/// Largest piece a writing thread takes at once: an upload larger than this is cut into pieces
/// of whole elements, and a piece never straddles two parts, so a part may end up to one
/// piece short of full.
const PIECE_BYTES: usize = 512 << 10;
/// Uploads of at least this many bytes in all are written on several threads.
const PARALLEL_WRITE_BYTES: usize = 1 << 22;
/// Most threads that write one upload: one thread copies about 6 GB/s on an H100's host, which
/// makes the write half of a 2^20 bn254 call.
const MAX_WRITE_THREADS: usize = 8;

/// Host-visible MAP_WRITE buffers, the parts of the staging memory, kept mapped between uses.
pub(crate) struct UploadStaging {
    part_bytes: u64,
    state: Mutex<Parts>,
}

/// The parts and where they are between uses.
struct Parts {
    buffers: Vec<wgpu::Buffer>,
    /// Whether each buffer is mapped, ready to be written.
    mapped: Vec<bool>,
    /// The submission that copies from the parts last, once submitted.
    copied_by: Option<wgpu::SubmissionIndex>,
}

/// A piece of an upload: where it lies in the parts, and where the GPU copies it.
struct Placed<'a, T> {
    piece: Box<dyn Upload + 'a>,
    part: usize,
    /// Offset in its part (a multiple of `wgpu::MAP_ALIGNMENT`).
    offset: u64,
    target: T,
    /// Offset of its first byte in `target`.
    target_offset: u64,
}

/// One copy from a part into a target: consecutive pieces of one upload in one part.
#[derive(Debug, PartialEq)]
struct PartCopy<T> {
    part: usize,
    offset: u64,
    target: T,
    target_offset: u64,
    bytes: u64,
}

impl UploadStaging {
    /// Staging memory for uploads of `bytes` in all (with each upload's start aligned), mapped.
    pub(crate) fn new(device: &wgpu::Device, bytes: u64) -> Self {
        Self::with_part_bytes(device, bytes, PART_BYTES)
    }

    /// [`UploadStaging::new`] with parts of at most `part_bytes` (tests use small ones).
    fn with_part_bytes(device: &wgpu::Device, bytes: u64, part_bytes: u64) -> Self {
        let part_bytes = part_bytes.min(bytes).max(16).next_multiple_of(wgpu::MAP_ALIGNMENT);
        let count = bytes.div_ceil(part_bytes).max(1) as usize;
        let buffers: Vec<wgpu::Buffer> = (0..count).map(|_| new_part(device, part_bytes)).collect();
        let mapped = vec![true; buffers.len()];
        UploadStaging { part_bytes, state: Mutex::new(Parts { buffers, mapped, copied_by: None }) }
    }

    /// Maps again the parts a previous call unmapped, once the GPU has copied from them.
    pub(crate) async fn ready(&self, gpu: &Gpu) -> Result<(), MsmError> {
        let (unmapped, after) = {
            let parts = self.state()?;
            let unmapped: Vec<(usize, wgpu::Buffer)> = parts
                .buffers
                .iter()
                .enumerate()
                .filter(|(k, _)| !parts.mapped[*k])
                .map(|(k, b)| (k, b.clone()))
                .collect();
            (unmapped, parts.copied_by.clone())
        };
        for (k, buffer) in unmapped {
            gpu.map_for_write(&buffer, after.clone()).await?;
            self.state()?.mapped[k] = true;
        }
        Ok(())
    }

    fn state(&self) -> Result<std::sync::MutexGuard<'_, Parts>, MsmError> {
        self.state.lock().map_err(|_| MsmError::Gpu("staging state poisoned".into()))
    }

    /// Writes the uploads one after another into the (mapped) parts and copies each into its
    /// destination, from offset 0. Each part but the last is unmapped and its copy submitted as
    /// soon as it is written; the last part's copy is encoded into `encoder`, so the caller's
    /// submission runs after every copy: call [`UploadStaging::copied_by`] with it. A device lost
    /// since [`UploadStaging::ready`] destroys the buffers: their mapping fails with `DeviceLost`.
    pub(crate) fn write(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        uploads: &[(&dyn Upload, &wgpu::Buffer)],
    ) -> Result<(), MsmError> {
        let indexed: Vec<(&dyn Upload, usize)> = uploads.iter().enumerate().map(|(i, (data, _))| (*data, i)).collect();
        let placed = lay_out(&indexed, self.part_bytes)?;
        let Some(last_part) = placed.last().map(|p| p.part) else {
            return Ok(());
        };
        let copies = copies(&placed);
        let mut state = self.state()?;
        while state.buffers.len() <= last_part {
            state.buffers.push(new_part(&gpu.device, self.part_bytes));
            state.mapped.push(true);
        }
        // Until the caller records its submission, the next `ready` waits for every submission
        // (this call submits the copies of all parts but the last on its own).
        state.copied_by = None;
        let Parts { buffers, mapped, .. } = &mut *state;
        let buffers = &*buffers;
        let views = placed
            .iter()
            .map(|p| {
                let range = p.offset..p.offset + p.piece.byte_len() as u64;
                buffers[p.part].slice(range).get_mapped_range_mut().map_err(|e| gpu.error(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let total: usize = placed.iter().map(|p| p.piece.byte_len()).sum();
        let threads = if total >= PARALLEL_WRITE_BYTES {
            std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_WRITE_THREADS)
        } else {
            1
        };
        // Writer t writes the pieces whose index within their part is t modulo `threads`, part
        // after part. Where one thread writes, it is the calling thread; where several do, they
        // are threads of their own, and the calling thread waits for each part to be written,
        // unmaps it and submits its copy while they write on.
        let mut work: Vec<Vec<_>> = (0..threads).map(|_| Vec::new()).collect();
        let mut pieces_per_part = vec![0usize; last_part + 1];
        for (p, view) in placed.iter().zip(views) {
            work[pieces_per_part[p.part] % threads].push((p, view));
            pieces_per_part[p.part] += 1;
        }
        let progress = Progress { left: Mutex::new((pieces_per_part, false)), written: Condvar::new() };
        let mut own = if threads == 1 { work.pop().unwrap_or_default() } else { Vec::new() }.into_iter().peekable();
        std::thread::scope(|scope| {
            for pieces in work {
                let progress = &progress;
                scope.spawn(move || {
                    let _failure = FailureGuard(progress);
                    for (p, view) in pieces {
                        progress.write(p, view);
                    }
                });
            }
            for part in 0..=last_part {
                while let Some((p, view)) = own.next_if(|(p, _)| p.part == part) {
                    progress.write(p, view);
                }
                if !progress.wait_for(part) {
                    return; // a writer panicked: the scope passes its panic on
                }
                buffers[part].unmap();
                mapped[part] = false;
                let part_copies = copies.iter().filter(|c| c.part == part);
                if part < last_part {
                    let mut own_encoder = gpu
                        .device
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("upload part") });
                    part_copies.for_each(|c| encode_copy(&mut own_encoder, buffers, uploads, c));
                    gpu.queue.submit([own_encoder.finish()]);
                } else {
                    part_copies.for_each(|c| encode_copy(encoder, buffers, uploads, c));
                }
            }
        });
        Ok(())
    }

    /// Records the submission that copies from the parts last: the next
    /// [`UploadStaging::ready`] maps them once it is done.
    pub(crate) fn copied_by(&self, submission: &wgpu::SubmissionIndex) {
        if let Ok(mut state) = self.state() {
            state.copied_by = Some(submission.clone());
        }
    }
}

/// A part of `bytes`, mapped.
fn new_part(device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("upload staging"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: true,
    })
}

/// Encodes copy `c` of upload `c.target`.
fn encode_copy(
    encoder: &mut wgpu::CommandEncoder,
    parts: &[wgpu::Buffer],
    uploads: &[(&dyn Upload, &wgpu::Buffer)],
    c: &PartCopy<usize>,
) {
    encoder.copy_buffer_to_buffer(&parts[c.part], c.offset, uploads[c.target].1, c.target_offset, c.bytes);
}

/// The pieces of each part still being written, and whether a writer panicked.
struct Progress {
    left: Mutex<(Vec<usize>, bool)>,
    written: Condvar,
}

impl Progress {
    /// Writes piece `p` through its mapped `view`, then counts it written.
    fn write(&self, p: &Placed<'_, usize>, mut view: wgpu::BufferViewMut) {
        p.piece.write(view.slice(..));
        drop(view); // before the part is unmapped
        if let Ok(mut left) = self.left.lock() {
            left.0[p.part] -= 1;
        }
        self.written.notify_all();
    }

    /// Waits until every piece of `part` is written; false if a writer panicked.
    fn wait_for(&self, part: usize) -> bool {
        let Ok(mut left) = self.left.lock() else {
            return false;
        };
        while left.0[part] > 0 && !left.1 {
            match self.written.wait(left) {
                Ok(guard) => left = guard,
                Err(_) => return false,
            }
        }
        !left.1
    }
}

/// Tells the calling thread when a writer panics, so that it stops waiting for its pieces.
struct FailureGuard<'a>(&'a Progress);

impl Drop for FailureGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            if let Ok(mut left) = self.0.left.lock() {
                left.1 = true;
            }
            self.0.written.notify_all();
        }
    }
}

/// `data` cut into pieces of whole elements of at most about [`PIECE_BYTES`] (one piece where it
/// does not split).
fn pieces(data: &dyn Upload) -> Vec<Box<dyn Upload + '_>> {
    let count = data.byte_len().div_ceil(PIECE_BYTES);
    let pieces = if count > 1 { data.split(count) } else { Vec::new() };
    if pieces.is_empty() {
        vec![Box::new(data)]
    } else {
        pieces
    }
}

/// Where each piece of `uploads` lies: one after another, each upload from a multiple of
/// `wgpu::MAP_ALIGNMENT`, a piece that does not fit the rest of its part at the start of the
/// next part.
fn lay_out<'a, T: Clone>(uploads: &[(&'a dyn Upload, T)], part_bytes: u64) -> Result<Vec<Placed<'a, T>>, MsmError> {
    let mut placed = Vec::new();
    let (mut part, mut at) = (0, 0u64);
    for (data, target) in uploads {
        at = at.next_multiple_of(wgpu::MAP_ALIGNMENT);
        let mut target_offset = 0;
        for piece in pieces(*data).into_iter().filter(|p| p.byte_len() > 0) {
            let bytes = piece.byte_len() as u64;
            if bytes > part_bytes {
                return Err(MsmError::Gpu(format!("an upload piece of {bytes} bytes exceeds a staging part")));
            }
            if at + bytes > part_bytes {
                (part, at) = (part + 1, 0);
            }
            placed.push(Placed { piece, part, offset: at, target: target.clone(), target_offset });
            at = (at + bytes).next_multiple_of(wgpu::MAP_ALIGNMENT);
            target_offset += bytes;
        }
    }
    Ok(placed)
}

/// The copies of placed pieces, consecutive pieces of one upload in one part joined.
fn copies<T: Clone + PartialEq>(placed: &[Placed<'_, T>]) -> Vec<PartCopy<T>> {
    let mut copies: Vec<PartCopy<T>> = Vec::new();
    for p in placed {
        let bytes = p.piece.byte_len() as u64;
        match copies.last_mut() {
            Some(c)
                if c.part == p.part
                    && c.target == p.target
                    && c.offset + c.bytes == p.offset
                    && c.target_offset + c.bytes == p.target_offset =>
            {
                c.bytes += bytes
            }
            _ => copies.push(PartCopy {
                part: p.part,
                offset: p.offset,
                target: p.target.clone(),
                target_offset: p.target_offset,
                bytes,
            }),
        }
    }
    copies
}

#[cfg(test)]
mod tests {
    use super::{copies, lay_out, PartCopy, UploadStaging, PIECE_BYTES};
    use crate::gpu::device::Gpu;
    use crate::upload::Upload;
    use crate::MsmError;

    /// Bytes 0, 1, 2, … (mod 251), so that a piece out of place shows.
    fn counting(len: usize, from: usize) -> Vec<u8> {
        (from..from + len).map(|i| (i % 251) as u8).collect()
    }

    /// Pieces lie in order within their parts, aligned, none past its part's end, and cover each
    /// upload once; the copies join neighbouring pieces and carry every byte to its place.
    #[test]
    fn uploads_are_laid_out_in_parts_and_copied_whole() {
        let a = counting(5 * PIECE_BYTES + 1000, 0);
        let b = counting(PIECE_BYTES / 2 + 36, 7);
        let c = counting(3 * PIECE_BYTES, 3);
        for part_bytes in [PIECE_BYTES as u64 + 64, 2 * PIECE_BYTES as u64, 7 << 20] {
            let (sa, sb, sc) = (&a[..], &b[..], &c[..]);
            let uploads: Vec<(&dyn Upload, usize)> = vec![(&sa, 0), (&sb, 1), (&sc, 2)];
            let placed = lay_out(&uploads, part_bytes).expect("fits");
            let mut next = vec![0u64; 3];
            let mut end_of_part = vec![0u64; placed.last().map_or(0, |p| p.part + 1)];
            for p in &placed {
                let bytes = p.piece.byte_len() as u64;
                assert_eq!(p.offset % wgpu::MAP_ALIGNMENT, 0);
                assert!(p.offset >= end_of_part[p.part] && p.offset + bytes <= part_bytes);
                end_of_part[p.part] = p.offset + bytes;
                assert_eq!(p.target_offset, next[p.target], "upload {}'s pieces in order", p.target);
                next[p.target] += bytes;
            }
            assert_eq!(next, vec![a.len() as u64, b.len() as u64, c.len() as u64]);
            // Replay the copies through parts written piece by piece.
            let mut parts = vec![vec![0u8; part_bytes as usize]; end_of_part.len()];
            for p in &placed {
                let bytes = p.piece.byte_len();
                let out = &mut parts[p.part][p.offset as usize..p.offset as usize + bytes];
                p.piece.write(wgpu::WriteOnly::from_mut(out));
            }
            let copies: Vec<PartCopy<usize>> = copies(&placed);
            if part_bytes > 4 * PIECE_BYTES as u64 {
                assert!(copies.len() < placed.len(), "neighbouring pieces share a copy");
            }
            let mut targets = vec![vec![0u8; a.len()], vec![0u8; b.len()], vec![0u8; c.len()]];
            for copy in copies {
                let (at, to, n) = (copy.offset as usize, copy.target_offset as usize, copy.bytes as usize);
                targets[copy.target][to..to + n].copy_from_slice(&parts[copy.part][at..at + n]);
            }
            assert_eq!(targets, vec![a.clone(), b.clone(), c.clone()]);
        }
    }

    /// Uploads over several parts, written on several threads, each part's copy submitted as it
    /// is written and the last one's in the caller's encoder, arrive whole on the GPU, call after
    /// call (each `ready` maps the parts again).
    #[test]
    fn uploads_over_several_parts_arrive_whole() {
        if crate::testing::shared_context().is_none() {
            return; // no adapter (a failure when CI=true)
        }
        let gpu = pollster::block_on(Gpu::new()).expect("adapter");
        let a = counting(5 << 20, 0); // over PARALLEL_WRITE_BYTES with b: several threads
        let b = counting((1 << 20) + 40, 9);
        let staging = UploadStaging::with_part_bytes(&gpu.device, (a.len() + b.len() + 8) as u64, 1 << 20);
        let target = |bytes: usize| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: bytes as u64,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        let (to_a, to_b) = (target(a.len()), target(b.len()));
        for call in 0..2 {
            let (a, b) = (counting(a.len(), call), counting(b.len(), call + 9));
            pollster::block_on(staging.ready(&gpu)).expect("mapped");
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            let (sa, sb) = (&a[..], &b[..]);
            staging.write(&gpu, &mut encoder, &[(&sa, &to_a), (&sb, &to_b)]).expect("written");
            let submission = gpu.queue.submit([encoder.finish()]);
            staging.copied_by(&submission);
            let words = |buffer: &wgpu::Buffer, len: usize| {
                let words = pollster::block_on(gpu.read_words(buffer, len as u64)).expect("read");
                words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>()
            };
            assert_eq!(words(&to_a, a.len()), a, "call {call}");
            assert_eq!(words(&to_b, b.len()), b, "call {call}");
        }
        assert!(staging.state().expect("state").buffers.len() > 5, "the uploads took several parts");
    }

    /// A device lost between a call's `ready` and its `write` (another thread's call lost it)
    /// destroys the staging buffer under the call: the write fails with `DeviceLost`, not with
    /// the validation error of mapping a destroyed buffer.
    #[test]
    fn a_write_after_the_device_is_lost_fails_with_device_lost() {
        if crate::testing::shared_context().is_none() {
            return; // no adapter (a failure when CI=true)
        }
        let gpu = pollster::block_on(Gpu::new()).expect("adapter");
        let staging = UploadStaging::new(&gpu.device, 64);
        let target = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 64,
            usage: wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        pollster::block_on(staging.ready(&gpu)).expect("mapped at creation");
        gpu.destroy("test");
        let _ = gpu.device.poll(wgpu::PollType::Poll); // where wgpu destroys the buffers
        let data: &[u8] = &[5; 64];
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        match staging.write(&gpu, &mut encoder, &[(&data as &dyn Upload, &target)]) {
            Err(MsmError::DeviceLost(reason)) => assert_eq!(reason, "Destroyed: test"),
            other => panic!("expected DeviceLost, got {other:?}"),
        }
    }
}
