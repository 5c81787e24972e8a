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
    /// the submission of `encoder`.
    pub(crate) fn write(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        uploads: &[(&dyn Upload, &wgpu::Buffer)],
    ) -> Result<(), MsmError> {
        let mut offset = 0u64;
        let mut copies = Vec::new();
        {
            let mut view = self.buffer.slice(..).get_mapped_range_mut().map_err(|e| MsmError::Gpu(e.to_string()))?;
            for &(data, target) in uploads {
                let len = data.byte_len() as u64;
                if len > 0 {
                    data.write(view.slice(offset as usize..(offset + len) as usize));
                    copies.push((offset, target, len));
                }
                offset += len.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
            }
        }
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
