//! CPU models of the GPU stages, on the same data layouts. Tests check each GPU stage against
//! its model, and the composition of the models against arkworks. Not used to compute results.

use ark_ff::Zero;

use crate::combine::combine_windows;
use crate::curve::{push_scalar_words, GpuCurve, SCALAR_WORDS};
use crate::limbs::{Montgomery, LIMB_BITS, LIMB_MASK};
use crate::plan::Plan;

/// Sign bit of an encoded digit or CSR entry (`DIGIT_NEGATIVE` in `common.wgsl`).
pub const DIGIT_NEGATIVE: u32 = 0x8000_0000;

/// Stage 1 (scalar part): encoded signed digits, two 16-bit ones per word as the GPU packs them
/// (windows 2k and 2k + 1 of point i in `digits[k·n + i]`, the even one low; [`unpack_digits`]),
/// and bucket counts (`counts[w·h + b − 1]`). Points flagged in `skip` (the identity) get no digits. With
/// a precompute factor F ([`Plan::fold`]) each of the m scalars has W·F digits, and digit
/// j = q·W + w goes to window w of stored point q·m + i, as `decompose_scalars` places them.
pub fn decompose(raw_scalars: &[u32], skip: &[bool], plan: &Plan) -> (Vec<u32>, Vec<u32>) {
    let (n, m) = (plan.n as usize, plan.scalars_per_set() as usize);
    let c = plan.window_bits;
    let digit_count = plan.num_windows * plan.fold;
    let pairs = plan.num_windows.div_ceil(2) as usize;
    let mut digits = vec![0u32; pairs * n];
    let mut counts = vec![0u32; plan.total_buckets() as usize];
    for i in 0..m {
        let words = &raw_scalars[i * SCALAR_WORDS..(i + 1) * SCALAR_WORDS];
        let mut carry = 0u32;
        for j in 0..digit_count {
            let (w, point) = (j % plan.num_windows, (j / plan.num_windows) as usize * m + i);
            let v = window_bits(words, j * c, c) + carry;
            let (mut digit, last) = (v, j + 1 == digit_count);
            carry = 0;
            if v >= plan.num_buckets && !last {
                digit = if v == 1 << c { 0 } else { ((1 << c) - v) | DIGIT_NEGATIVE };
                carry = 1;
            }
            if skip[point] {
                digit = 0;
            }
            // Two 16-bit digits per word (`digit_word` and `pack_digit` in common.wgsl).
            let packed = (digit & 0x7fff) | ((digit >> 16) & 0x8000);
            digits[(w / 2) as usize * n + point] |= packed << (16 * (w % 2));
            if digit != 0 {
                counts[(w * plan.num_buckets + (digit & !DIGIT_NEGATIVE) - 1) as usize] += 1;
            }
        }
    }
    (digits, counts)
}

fn window_bits(words: &[u32], bit: u32, width: u32) -> u32 {
    let (word, shift) = ((bit / 32) as usize, bit % 32);
    let low = words.get(word).map_or(0, |w| w >> shift);
    let high = match words.get(word + 1) {
        Some(w) if shift + width > 32 => w << (32 - shift),
        _ => 0,
    };
    (low | high) & ((1 << width) - 1)
}

/// Stage 2 output: for bucket `j = w·h + b − 1`, `entries[starts[j]..ends[j]]` lists its points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr {
    /// Start offset of each bucket's entries.
    pub starts: Vec<u32>,
    /// End offset of each bucket's entries.
    pub ends: Vec<u32>,
    /// Point indices, `| DIGIT_NEGATIVE` for a negated point; window w's start at `w·n`.
    pub entries: Vec<u32>,
}

/// Packed digits ([`decompose`]) as one encoded digit (magnitude | [`DIGIT_NEGATIVE`]) per
/// window and point, window-major (`digits[w·n + i]`).
pub fn unpack_digits(packed: &[u32], plan: &Plan) -> Vec<u32> {
    let n = plan.n as usize;
    (0..plan.num_windows as usize * n)
        .map(|k| {
            let (w, i) = (k / n, k % n);
            let half = packed[(w / 2) * n + i] >> (16 * (w % 2));
            (half & 0x7fff) | ((half & 0x8000) << 16)
        })
        .collect()
}

/// Stage 2: the transposition of the digit matrix (packed, as [`decompose`] gives it), entries
/// in ascending point order (the GPU's order within a bucket is arbitrary).
pub fn transpose(packed: &[u32], plan: &Plan) -> Csr {
    let digits = unpack_digits(packed, plan);
    let n = plan.n as usize;
    let h = plan.num_buckets as usize;
    let mut starts = vec![0u32; plan.total_buckets() as usize];
    let mut ends = starts.clone();
    let mut entries = vec![0u32; digits.len()];
    for w in 0..plan.num_windows as usize {
        let row = &digits[w * n..(w + 1) * n];
        let mut offset = (w * n) as u32;
        for b in 0..h {
            starts[w * h + b] = offset;
            for (i, &d) in row.iter().enumerate() {
                if d != 0 && (d & !DIGIT_NEGATIVE) as usize == b + 1 {
                    entries[offset as usize] = i as u32 | (d & DIGIT_NEGATIVE);
                    offset += 1;
                }
            }
            ends[w * h + b] = offset;
        }
    }
    Csr { starts, ends, entries }
}

/// Stage 3: the sum of each bucket.
pub fn smvp<G: GpuCurve>(points: &[G], csr: &Csr) -> Vec<G::Group> {
    csr.starts
        .iter()
        .zip(&csr.ends)
        .map(|(&start, &end)| {
            csr.entries[start as usize..end as usize]
                .iter()
                .map(|&e| {
                    let p = points[(e & !DIGIT_NEGATIVE) as usize].into_group();
                    if e & DIGIT_NEGATIVE != 0 {
                        -p
                    } else {
                        p
                    }
                })
                .sum()
        })
        .collect()
}

/// Stage 4: the running-sum partial results, `partials[w·T + t]`.
pub fn bucket_reduce<G: GpuCurve>(buckets: &[G::Group], plan: &Plan) -> Vec<G::Group> {
    let len = plan.segment_len as usize;
    buckets
        .chunks_exact(len)
        .enumerate()
        .map(|(segment, chunk)| {
            let t = (segment % plan.segments as usize) as u64;
            let (mut running, mut sum) = (G::Group::zero(), G::Group::zero());
            for bucket in chunk.iter().rev() {
                running += bucket;
                sum += running;
            }
            sum + running * G::ScalarField::from(t * len as u64)
        })
        .collect()
}

/// Stage 4b: the sum of each window's partial sums.
pub fn sum_windows<G: GpuCurve>(partials: &[G::Group], plan: &Plan) -> Vec<G::Group> {
    partials.chunks_exact(plan.segments as usize).map(|window| window.iter().sum()).collect()
}

/// The whole pipeline on the CPU: stages 1–4 then the host combination.
pub fn msm<G: GpuCurve>(points: &[G], scalars: &[G::ScalarField], plan: &Plan) -> G::Group {
    let mut raw_scalars = Vec::new();
    scalars.iter().for_each(|s| push_scalar_words(s, &mut raw_scalars));
    let skip: Vec<bool> = points.iter().map(|p| p.is_zero()).collect();
    let (digits, _) = decompose(&raw_scalars, &skip, plan);
    let buckets = smvp(points, &transpose(&digits, plan));
    combine_windows(&sum_windows::<G>(&bucket_reduce::<G>(&buckets, plan), plan), plan)
}

/// The Montgomery multiplication of `field_mul` in `field_gen.rs`, step for step, with every
/// u32 operation checked for overflow: the proof that its accumulators fit.
pub fn mont_mul_limbs(a: &[u32], b: &[u32], m: &Montgomery) -> Vec<u32> {
    let n = m.limbs;
    let p = crate::limbs::to_limbs(&m.modulus, n);
    let add = |x: u32, y: u32| x.checked_add(y).expect("accumulator overflow");
    let mul = |x: u32, y: u32| x.checked_mul(y).expect("product overflow");
    let mut t = vec![0u32; n - 1];
    for &ai in a.iter().take(n) {
        let x = add(t[0], mul(ai, b[0]));
        let q = x.wrapping_mul(m.mu) & LIMB_MASK;
        let carry = add(x, mul(q, p[0])) >> LIMB_BITS;
        for j in 1..n {
            let prev = if j < n - 1 { t[j] } else { 0 };
            let mut v = add(add(prev, mul(ai, b[j])), mul(q, p[j]));
            if j == 1 {
                v = add(v, carry);
            }
            t[j - 1] = v;
        }
    }
    let mut out = Vec::with_capacity(n);
    let mut carry = 0;
    for &tj in &t {
        let u = add(tj, carry);
        out.push(u & LIMB_MASK);
        carry = u >> LIMB_BITS;
    }
    out.push(carry);
    let value = crate::limbs::from_limbs(&out);
    assert!(value < &m.modulus * 2u32, "result below 2p");
    let reduced = if value >= m.modulus { value - &m.modulus } else { value };
    crate::limbs::to_limbs(&reduced, n)
}

/// The straight-line product-scanned `field_mul` of `field_gen.rs` (`mul_scanned_products`),
/// column by column, with every u32 operation checked for overflow: the proof that its one
/// accumulator fits.
pub fn mont_mul_scanned(a: &[u32], b: &[u32], m: &Montgomery) -> Vec<u32> {
    let n = m.limbs;
    let p = crate::limbs::to_limbs(&m.modulus, n);
    let add = |x: u32, y: u32| x.checked_add(y).expect("accumulator overflow");
    let mul = |x: u32, y: u32| x.checked_mul(y).expect("product overflow");
    let (mut acc, mut q, mut out) = (0u32, vec![0u32; n], Vec::with_capacity(n));
    for col in 0..2 * n - 1 {
        let first = col.saturating_sub(n - 1);
        for s in first..=col.min(n - 1) {
            acc = add(acc, mul(a[s], b[col - s]));
        }
        for s in first..col.min(n) {
            acc = add(acc, mul(q[s], p[col - s]));
        }
        if col < n {
            q[col] = acc.wrapping_mul(m.mu) & LIMB_MASK;
            acc = add(acc, mul(q[col], p[0])) >> LIMB_BITS;
        } else {
            out.push(acc & LIMB_MASK);
            acc >>= LIMB_BITS;
        }
    }
    out.push(acc);
    let value = crate::limbs::from_limbs(&out);
    assert!(value < &m.modulus * 2u32, "result below 2p");
    let reduced = if value >= m.modulus { value - &m.modulus } else { value };
    crate::limbs::to_limbs(&reduced, n)
}
