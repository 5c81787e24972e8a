//! Natively, the host-visible buffer that a workspace's inputs are written into, copied from
//! on the GPU into the buffers that hold them. `queue.write_buffer` instead allocates fresh
//! staging memory on every call, and the first touch of fresh memory costs a page fault per
//! 4 KiB page: on lavapipe that was 9–10× a memcpy of the inputs per call for BLS12-381 at
//! 2^19–2^20 (BENCHMARKS.md). In browsers `write_buffer` hands WebGPU a view of the WASM
//! memory, one copy already, so they keep it.

use std::sync::Mutex;

use crate::upload::Upload;
use crate::MsmError;

use super::device::Gpu;

/// Uploads of at least this many bytes are written on several threads.
const PARALLEL_WRITE_BYTES: usize = 1 << 22;
/// Most threads that write one upload.
const MAX_WRITE_THREADS: usize = 8;

/// `data` in pieces to write on threads of their own where it is large: one thread's copy ran at
/// about 6 GB/s on the H100's host, half of a 2^20 bn254 call (BENCHMARKS.md, "First real GPU").
fn split_for_threads<'a>(data: &'a dyn Upload) -> Vec<Box<dyn Upload + 'a>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_WRITE_THREADS);
    let pieces = if threads > 1 && data.byte_len() >= PARALLEL_WRITE_BYTES { data.split(threads) } else { Vec::new() };
    if pieces.is_empty() {
        vec![Box::new(data)]
    } else {
        pieces
    }
}

/// A MAP_WRITE buffer kept mapped between uses.
pub(crate) struct UploadStaging {
    buffer: wgpu::Buffer,
    state: Mutex<Mapping>,
}

/// Where the staging buffer is between uses.
enum Mapping {
    /// Mapped, ready to be written.
    Mapped,
    /// Unmapped after a write; the submission that copies from it, once submitted.
    Unmapped(Option<wgpu::SubmissionIndex>),
}

impl UploadStaging {
    /// A staging buffer of `bytes` (a multiple of 4), mapped.
    pub(crate) fn new(device: &wgpu::Device, bytes: u64) -> Self {
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("upload staging"),
            size: bytes.max(16),
            usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: true,
        });
        UploadStaging { buffer, state: Mutex::new(Mapping::Mapped) }
    }

    /// Maps the buffer again if a previous call unmapped it, once the GPU has copied from it.
    pub(crate) async fn ready(&self, gpu: &Gpu) -> Result<(), MsmError> {
        let after = match &*self.state()? {
            Mapping::Mapped => return Ok(()),
            Mapping::Unmapped(after) => after.clone(),
        };
        gpu.map_for_write(&self.buffer, after).await?;
        *self.state()? = Mapping::Mapped;
        Ok(())
    }

    fn state(&self) -> Result<std::sync::MutexGuard<'_, Mapping>, MsmError> {
        self.state.lock().map_err(|_| MsmError::Gpu("staging state poisoned".into()))
    }

    /// Writes each upload at the next offset of the (mapped) buffer, unmaps it and encodes the
    /// copy of each into its destination, at offset 0. Call [`UploadStaging::copied_by`] with
    /// the submission of `encoder`. A device lost since [`UploadStaging::ready`] destroys the
    /// buffer: its mapping fails with `DeviceLost`.
    pub(crate) fn write(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        uploads: &[(&dyn Upload, &wgpu::Buffer)],
    ) -> Result<(), MsmError> {
        let mut offset = 0u64;
        let mut copies = Vec::new();
        let mut pieces: Vec<(Box<dyn Upload + '_>, u64)> = Vec::new();
        for &(data, target) in uploads {
            let len = data.byte_len() as u64;
            if len > 0 {
                let mut at = offset;
                for piece in split_for_threads(data) {
                    let bytes = piece.byte_len() as u64;
                    pieces.push((piece, at));
                    at += bytes;
                }
                copies.push((offset, target, len));
            }
            offset += len.next_multiple_of(wgpu::MAP_ALIGNMENT);
        }
        // Each piece through a mapped view of its own bytes, so the pieces write on threads of
        // their own; the calling thread writes the last.
        let views = pieces
            .iter()
            .map(|(piece, at)| {
                let range = *at..*at + piece.byte_len() as u64;
                self.buffer.slice(range).get_mapped_range_mut().map_err(|e| gpu.error(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        std::thread::scope(|scope| {
            let mut work: Vec<_> = pieces.iter().zip(views).collect();
            let last = work.pop();
            for ((piece, _), mut view) in work {
                scope.spawn(move || piece.write(view.slice(..)));
            }
            if let Some(((piece, _), mut view)) = last {
                piece.write(view.slice(..));
            }
        });
        self.buffer.unmap();
        *self.state()? = Mapping::Unmapped(None);
        for (offset, target, len) in copies {
            encoder.copy_buffer_to_buffer(&self.buffer, offset, target, 0, len);
        }
        Ok(())
    }

    /// Records the submission that copies from the buffer: the next [`UploadStaging::ready`]
    /// maps it once that submission is done.
    pub(crate) fn copied_by(&self, submission: &wgpu::SubmissionIndex) {
        if let Ok(mut state) = self.state() {
            *state = Mapping::Unmapped(Some(submission.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::UploadStaging;
    use crate::gpu::device::Gpu;
    use crate::upload::Upload;
    use crate::MsmError;

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
