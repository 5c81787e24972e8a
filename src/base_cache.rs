//! Base sets recognised by their contents, so that a prover that hands the same bases in new
//! buffers on every proof (snarkjs reads its proving key's sections anew each time) uploads them
//! once: [`BaseCache`] keeps each set it has seen as [`PreparedBytes`] and runs later MSMs over
//! the same points, or over their first n points, on them, uploading only scalars. Bases with a
//! precompute factor are recognised whole, not by their prefixes (their MSMs take every base).
//!
//! A set is known by a 128-bit [`Fingerprint`] of its bytes: a keyed hash whose key is drawn
//! anew for every cache and never leaves it, so bases that differ collide with probability
//! about 2^-128 unless they were crafted against that key, which no caller sees. Hashing runs
//! over every byte once per call, at a memory scan's speed: the price of not uploading them.
//!
//! Prefixes: PLONK and fflonk commit to polynomials of different degrees over one SRS section,
//! handing its first n + 1 … n + 6 points (fflonk also about 8n and 9n), new copies each time.
//! A set therefore keeps the fingerprints of its last [`PREFIX_WINDOW`] prefixes, and a request
//! that matches one runs on the set; a request that extends a cached set replaces it and takes
//! over the prefixes it knew. So one proof's commitments end on one set on the GPU, and later
//! proofs upload none.

use std::sync::{Arc, Mutex};

use crate::bytes::{check_lengths_of, PointForm, PreparedBytes};
use crate::config::MsmConfig;
use crate::curve::CurveId;
use crate::{MsmContext, MsmError};

/// Prefix lengths a cached set recognises below its own: requests of `len − PREFIX_WINDOW + 1`
/// to `len` points run on a set of `len`.
pub(crate) const PREFIX_WINDOW: usize = 64;

/// What a [`BaseCache`] has done and holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// MSMs that ran on a cached set.
    pub hits: u64,
    /// MSMs that uploaded and prepared their bases.
    pub uploads: u64,
    /// Sets dropped to stay within the budget or because a longer set replaced them.
    pub evictions: u64,
    /// Sets held now.
    pub sets: usize,
    /// GPU bytes the sets hold now ([`crate::PreparedBases::gpu_bytes`]).
    pub gpu_bytes: u64,
}

/// Bases of the bytes API kept on the GPU between calls and recognised by content, for MSMs
/// given the cache in their [`MsmConfig::cache`] ([`MsmContext::msm_bytes`]): a call over
/// points that a cached set holds, or begins with, runs on that set and uploads only scalars;
/// other points are prepared and kept. Each set is prepared on the context of the call that
/// first saw it, and only calls on that context (in the same point form, precompute factor,
/// subgroup check and blinding) find it. Sets are recognised by a keyed 128-bit hash of their
/// bytes, drawn anew for each cache, and by the hashes of their last 64 prefixes.
pub struct BaseCache {
    key: [u64; 4],
    max_gpu_bytes: Option<u64>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    entries: Vec<Entry>,
    clock: u64,
    stats: CacheStats,
}

/// What a set is prepared for: calls find only sets of their own kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Kind {
    context_id: u64,
    curve: CurveId,
    form: PointForm,
    /// The precompute factor: sets with multiples (above 1) are found only whole.
    factor: u32,
    /// Whether the set's points were checked to lie in the prime-order group
    /// ([`MsmConfig::check_subgroup`]): checked calls find only checked sets.
    checked: bool,
    /// Whether the set is blinded ([`MsmConfig::blinding`], with the seed of the call that
    /// prepared it): blinded calls find only blinded sets.
    blinded: bool,
}

struct Entry {
    kind: Kind,
    len: usize,
    /// Fingerprints of the set's prefixes it recognises, by length: its last
    /// [`PREFIX_WINDOW`] and those of the sets it replaced.
    prefixes: Vec<(usize, Fingerprint)>,
    bases: Arc<PreparedBytes>,
    gpu_bytes: u64,
    last_used: u64,
}

impl Entry {
    /// The fingerprint of this set's first `n` points, where the set keeps it.
    fn prefix(&self, n: usize) -> Option<Fingerprint> {
        self.prefixes.iter().find(|(len, _)| *len == n).map(|&(_, fingerprint)| fingerprint)
    }
}

impl BaseCache {
    /// An empty cache; with `max_gpu_bytes`, least recently used sets are dropped while the
    /// sets hold more GPU memory than that (a set larger than the budget runs once, uncached).
    pub fn new(max_gpu_bytes: Option<u64>) -> Self {
        BaseCache { key: random_key(), max_gpu_bytes, state: Mutex::default() }
    }

    /// The bases for an MSM over `points` of `curve` and `sets` on `ctx` as `config` says: a
    /// cached set that holds these points or extends them, else the points prepared on `ctx`
    /// and kept; `None` for no points (the call needs no bases). The lengths are checked first
    /// (the errors of [`MsmContext::msm_bytes`]).
    pub(crate) async fn bases(
        &self,
        ctx: &MsmContext,
        curve: CurveId,
        points: &[u8],
        sets: &[&[u8]],
        config: &MsmConfig<'_>,
    ) -> Result<Option<Arc<PreparedBytes>>, MsmError> {
        let n = check_lengths_of(curve, points, sets)?;
        if n == 0 {
            return Ok(None);
        }
        let point_bytes = points.len() / n;
        let kind = Kind {
            context_id: ctx.id,
            curve,
            form: config.point_form,
            factor: config.precompute_factor,
            checked: config.check_subgroup,
            blinded: config.blinding.is_some(),
        };
        // Whole sets only where the bases store multiples, which take every base.
        let window = if kind.factor == 1 { PREFIX_WINDOW } else { 1 };
        let candidates = self.lock()?.prefix_lengths(kind, n);
        let fingerprints = Fingerprints::of(&self.key, points, point_bytes, &candidates, n, window);
        if let Some(bases) = self.lock()?.find(kind, n, fingerprints.at(n)) {
            return Ok(Some(bases));
        }
        let bases = Arc::new(ctx.prepare_bytes(curve, points, config).await?);
        let entry = Entry {
            kind,
            len: n,
            prefixes: (n + 1 - n.min(window)..=n).map(|k| (k, fingerprints.at(k))).collect(),
            gpu_bytes: bases.gpu_bytes(),
            bases: bases.clone(),
            last_used: 0,
        };
        self.lock()?.insert(entry, &fingerprints, self.max_gpu_bytes);
        Ok(Some(bases))
    }

    /// What the cache has done and holds.
    pub fn stats(&self) -> CacheStats {
        self.state.lock().map(|state| state.stats).unwrap_or_default()
    }

    /// Drops every set (their GPU memory is freed once no call uses them).
    pub fn clear(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.stats.evictions += state.entries.len() as u64;
            state.entries.clear();
            state.update_totals();
        }
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, State>, MsmError> {
        self.state.lock().map_err(|_| MsmError::Gpu("base cache lock poisoned".into()))
    }
}

impl std::fmt::Debug for BaseCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BaseCache").field("max_gpu_bytes", &self.max_gpu_bytes).field("stats", &self.stats()).finish()
    }
}

impl State {
    /// The lengths below `n` at which a request of `n` points must be fingerprinted to tell
    /// whether it extends a cached set of its kind (none for sets with multiples, which are
    /// not extended).
    fn prefix_lengths(&self, kind: Kind, n: usize) -> Vec<usize> {
        let same = |e: &&Entry| e.kind == kind && kind.factor == 1;
        let mut lengths: Vec<usize> = self.entries.iter().filter(same).map(|e| e.len).filter(|&len| len < n).collect();
        lengths.sort_unstable();
        lengths.dedup();
        lengths
    }

    /// The cached set whose first `n` points have `fingerprint`, marked as used.
    fn find(&mut self, kind: Kind, n: usize, fingerprint: Fingerprint) -> Option<Arc<PreparedBytes>> {
        self.clock += 1;
        let clock = self.clock;
        let entry = self.entries.iter_mut().find(|e| e.kind == kind && e.prefix(n) == Some(fingerprint))?;
        entry.last_used = clock;
        self.stats.hits += 1;
        Some(entry.bases.clone())
    }

    /// Keeps `entry`, replacing the sets it extends (their points are its first points, so the
    /// prefixes they knew are its prefixes too), then dropping least recently used sets while
    /// the budget is exceeded.
    fn insert(&mut self, mut entry: Entry, fingerprints: &Fingerprints, max_gpu_bytes: Option<u64>) {
        self.clock += 1;
        entry.last_used = self.clock;
        self.stats.uploads += 1;
        let (extended, kept): (Vec<Entry>, Vec<Entry>) = std::mem::take(&mut self.entries).into_iter().partition(|e| {
            let same = e.kind == entry.kind && entry.kind.factor == 1;
            same && e.len < entry.len && fingerprints.get(e.len).is_some() && fingerprints.get(e.len) == e.prefix(e.len)
        });
        self.entries = kept;
        self.stats.evictions += extended.len() as u64;
        for old in extended {
            let known: Vec<(usize, Fingerprint)> = entry.prefixes.clone();
            entry.prefixes.extend(old.prefixes.into_iter().filter(|(len, _)| !known.iter().any(|(k, _)| k == len)));
        }
        self.entries.push(entry);
        if let Some(budget) = max_gpu_bytes {
            while self.entries.iter().map(|e| e.gpu_bytes).sum::<u64>() > budget && !self.entries.is_empty() {
                let oldest = (0..self.entries.len()).min_by_key(|&i| self.entries[i].last_used).expect("not empty");
                self.entries.remove(oldest);
                self.stats.evictions += 1;
            }
        }
        self.update_totals();
    }

    fn update_totals(&mut self) {
        self.stats.sets = self.entries.len();
        self.stats.gpu_bytes = self.entries.iter().map(|e| e.gpu_bytes).sum();
    }
}

/// A set's identity: 128 bits of a keyed hash of its bytes and its length.
type Fingerprint = [u64; 2];

/// The fingerprints of a request's prefixes at the lengths asked for.
struct Fingerprints {
    at: Vec<(usize, Fingerprint)>,
}

impl Fingerprints {
    /// Hashes `points` (whole points of `point_bytes`) once, recording the fingerprint after
    /// each of `lengths` and each of the last `window` lengths up to `n`.
    fn of(key: &[u64; 4], points: &[u8], point_bytes: usize, lengths: &[usize], n: usize, window: usize) -> Self {
        let mut stops: Vec<usize> = lengths.iter().copied().chain(n + 1 - n.min(window)..=n).collect();
        stops.sort_unstable();
        stops.dedup();
        let mut hasher = Hasher::new(key);
        let mut done = 0;
        let at = stops
            .into_iter()
            .map(|stop| {
                hasher.update(&points[done * point_bytes..stop * point_bytes]);
                done = stop;
                (stop, hasher.finish())
            })
            .collect();
        Fingerprints { at }
    }

    fn get(&self, n: usize) -> Option<Fingerprint> {
        self.at.iter().find(|(len, _)| *len == n).map(|&(_, f)| f)
    }

    fn at(&self, n: usize) -> Fingerprint {
        self.get(n).expect("fingerprinted at every length asked for")
    }
}

/// A streaming keyed hash over 32-byte stripes: four 64-bit lanes, each absorbing one word per
/// stripe by a multiply-rotate-multiply round, so that the lanes run independently (the loop
/// keeps four multiplications in flight) and a prefix's state is the stream's state at its end.
/// `finish` folds the lanes and the length into two words under two halves of the key.
struct Hasher {
    lanes: [u64; 4],
    key: [u64; 4],
    bytes: u64,
    /// Bytes of a stripe not yet absorbed (inputs need not end on a stripe).
    pending: [u8; 32],
    pending_len: usize,
}

const STRIPE: usize = 32;
// Odd 64-bit constants with well-spread bits (the golden ratio's and two primes near 2^64·φ⁻¹).
const MUL_IN: u64 = 0x9E37_79B9_7F4A_7C15;
const MUL_OUT: u64 = 0xC2B2_AE3D_27D4_EB4F;
const MUL_FOLD: u64 = 0x1656_67B1_9E37_79F9;

impl Hasher {
    fn new(key: &[u64; 4]) -> Self {
        Hasher { lanes: *key, key: *key, bytes: 0, pending: [0; STRIPE], pending_len: 0 }
    }

    fn round(lane: u64, word: u64) -> u64 {
        lane.wrapping_add(word.wrapping_mul(MUL_IN)).rotate_left(31).wrapping_mul(MUL_OUT)
    }

    fn absorb(&mut self, stripe: &[u8]) {
        for (lane, word) in self.lanes.iter_mut().zip(stripe.chunks_exact(8)) {
            *lane = Self::round(*lane, u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
    }

    fn update(&mut self, mut bytes: &[u8]) {
        self.bytes += bytes.len() as u64;
        if self.pending_len > 0 {
            let take = (STRIPE - self.pending_len).min(bytes.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&bytes[..take]);
            self.pending_len += take;
            bytes = &bytes[take..];
            if self.pending_len < STRIPE {
                return;
            }
            let stripe = self.pending;
            self.absorb(&stripe);
            self.pending_len = 0;
        }
        let mut stripes = bytes.chunks_exact(STRIPE);
        for stripe in &mut stripes {
            self.absorb(stripe);
        }
        let rest = stripes.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// The fingerprint of everything absorbed so far; the stream may go on.
    fn finish(&self) -> Fingerprint {
        let mut lanes = self.lanes;
        if self.pending_len > 0 {
            let mut stripe = [0u8; STRIPE];
            stripe[..self.pending_len].copy_from_slice(&self.pending[..self.pending_len]);
            for (lane, word) in lanes.iter_mut().zip(stripe.chunks_exact(8)) {
                *lane = Self::round(*lane, u64::from_le_bytes(word.try_into().expect("8 bytes")));
            }
        }
        let fold = |seed: u64| {
            let mut h = seed ^ self.bytes.wrapping_mul(MUL_FOLD);
            for (i, lane) in lanes.iter().enumerate() {
                h = (h ^ Self::round(0, *lane)).rotate_left(27 + i as u32).wrapping_mul(MUL_IN).wrapping_add(MUL_FOLD);
            }
            avalanche(h)
        };
        [fold(self.key[0] ^ self.key[2]), fold(self.key[1] ^ self.key[3])]
    }
}

/// A final mix in which every input bit flips about half the output bits.
fn avalanche(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(MUL_OUT);
    h ^= h >> 29;
    h = h.wrapping_mul(MUL_FOLD);
    h ^ (h >> 32)
}

/// A fresh key: the process's random hash seeds natively, the JS engine's random numbers in
/// WASM (neither is a cryptographic secret, and neither needs to be: the key only has to be
/// unknown to whoever made the bases).
fn random_key() -> [u64; 4] {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::hash::{BuildHasher, Hasher as _};
        let state = std::collections::hash_map::RandomState::new();
        std::array::from_fn(|i| {
            let mut hasher = state.build_hasher();
            hasher.write_usize(i);
            hasher.finish()
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        let word = || {
            ((js_sys::Math::random() * 2f64.powi(32)) as u64) << 32 | (js_sys::Math::random() * 2f64.powi(32)) as u64
        };
        std::array::from_fn(|_| word())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprint(key: &[u64; 4], bytes: &[u8]) -> Fingerprint {
        let mut hasher = Hasher::new(key);
        hasher.update(bytes);
        hasher.finish()
    }

    #[test]
    fn streaming_equals_one_update_and_prefixes_are_snapshots() {
        let key = random_key();
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
        let whole = fingerprint(&key, &bytes);
        let mut hasher = Hasher::new(&key);
        for piece in bytes.chunks(13) {
            hasher.update(piece);
        }
        assert_eq!(hasher.finish(), whole);
        let fingerprints = Fingerprints::of(&key, &bytes, 8, &[10, 40], 125, PREFIX_WINDOW);
        assert_eq!(fingerprints.at(10), fingerprint(&key, &bytes[..80]));
        assert_eq!(fingerprints.at(40), fingerprint(&key, &bytes[..320]));
        assert_eq!(fingerprints.at(125), whole);
        assert_eq!(fingerprints.at(62), fingerprint(&key, &bytes[..496]));
    }

    #[test]
    fn every_byte_and_the_length_count() {
        let key = random_key();
        let bytes = vec![0u8; 256];
        let base = fingerprint(&key, &bytes);
        for i in 0..bytes.len() {
            for bit in [0, 7] {
                let mut changed = bytes.clone();
                changed[i] ^= 1 << bit;
                assert_ne!(fingerprint(&key, &changed), base, "byte {i} bit {bit}");
            }
        }
        // Zeros of other lengths (a prefix of identity points is all zeros too).
        assert_ne!(fingerprint(&key, &bytes[..224]), base);
        assert_ne!(fingerprint(&key, &bytes[..255]), base);
        // Another key, another fingerprint.
        assert_ne!(fingerprint(&random_key(), &bytes), base);
    }
}
