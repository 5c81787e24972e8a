//! Compiled pipelines kept across processes, natively where the backend can (wgpu's
//! `PipelineCache`: Vulkan): a driver that compiles at pipeline creation then compiles a curve's
//! kernels once per machine rather than once per process. One file per adapter
//! (`wgpu::util::pipeline_cache_key`: vendor and device; wgpu and the driver reject data from
//! another driver version) in the cache directory beside the calibration file, written whole
//! (a temporary file renamed over it) after each compilation that grew the cache, and prefixed
//! with a checksum of its contents, so that a damaged file is never handed to the driver.

use std::path::PathBuf;
use std::sync::Mutex;

/// A device's pipeline cache and the file it persists to.
pub(crate) struct PipelineCache {
    pub(crate) cache: wgpu::PipelineCache,
    path: PathBuf,
    /// Bytes of the data last read or written: the file is rewritten only when it grew.
    saved: Mutex<usize>,
}

/// FNV-1a over `data`: stable across builds, which a file read by later processes needs.
fn checksum(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3))
}

impl PipelineCache {
    /// The cache of `device` on the adapter of `info`, loaded from its file where there is a
    /// valid one; `None` where the device lacks `Features::PIPELINE_CACHE` or no cache
    /// directory is kept.
    pub(crate) fn open(device: &wgpu::Device, info: &wgpu::AdapterInfo) -> Option<Self> {
        if !device.features().contains(wgpu::Features::PIPELINE_CACHE) {
            return None;
        }
        let path = crate::cache_dir::cache_dir()?.join(wgpu::util::pipeline_cache_key(info)?);
        let file = std::fs::read(&path).unwrap_or_default();
        let data = (file.len() > 8)
            .then(|| file.split_at(8))
            .filter(|(sum, data)| sum == &checksum(data).to_le_bytes().as_slice())
            .map(|(_, data)| data);
        // SAFETY: `data` is what `get_data` gave an earlier process for an adapter with the same
        // key, unchanged (its checksum matches); wgpu checks its header against this device and
        // falls back to an empty cache where it does not match.
        let cache = unsafe {
            device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                label: Some("webgpu-msm pipelines"),
                data,
                fallback: true,
            })
        };
        Some(PipelineCache { cache, path, saved: Mutex::new(data.map_or(0, <[u8]>::len)) })
    }

    /// Writes the cache to its file if it grew; failures only cost the next process a compilation.
    pub(crate) fn save(&self) {
        let Some(data) = self.cache.get_data() else { return };
        let Ok(mut saved) = self.saved.lock() else { return };
        if data.len() <= *saved {
            return;
        }
        let mut file = checksum(&data).to_le_bytes().to_vec();
        file.extend_from_slice(&data);
        let temporary = self.path.with_extension(format!("{}.tmp", std::process::id()));
        let written = self.path.parent().is_some_and(|dir| std::fs::create_dir_all(dir).is_ok())
            && std::fs::write(&temporary, &file).is_ok()
            && std::fs::rename(&temporary, &self.path).is_ok();
        if written {
            *saved = data.len();
        } else {
            let _ = std::fs::remove_file(&temporary);
        }
    }
}
