// A CPU stand-in for `webgpu-msm/snarkjs`'s accelerateSnarkjs, with the same API and stats, so
// the tests' own logic (keys, proofs, tampering, corrupted zkeys, restore) can be checked where
// the package or a GPU is missing. Never a substitute in a real run: the tests take it only with
// --stand-in (Node) or ?standin=1 (page) and print that they did.
// It runs snarkjs' own multiExpAffine, counts as the adapter would, "caches" bases by content and
// rejects bases holding a point off the curve, naming the MSM and the point index.

/** A content key for a base set (FNV-1a over the bytes, with the length). */
function contentKey(bytes) {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return `${bytes.length}:${h >>> 0}`;
}

/** Index of the first point in `bases` that is neither all-zero (infinity) nor on the curve. */
function firstInvalid(G, bases) {
  const size = G.F.n8 * 2;
  for (let i = 0; i * size < bases.length; i++) {
    const p = bases.slice(i * size, (i + 1) * size);
    if (p.some((b) => b !== 0) && !G.isValid(p)) return i;
  }
  return -1;
}

export async function accelerateSnarkjs(snarkjs, { minPoints = 0, groups = { bn128: ["G1", "G2"], bls12381: ["G1", "G2"] } } = {}) {
  const stats = { gpuCalls: 0, gpuPoints: 0, cpuCalls: 0, cpuPoints: 0, fallbacks: 0, checked: 0, mismatches: 0, cacheHits: 0, cacheUploads: 0 };
  const cache = new Set();
  const restores = [];
  for (const [name, names] of Object.entries(groups)) {
    const curve = await snarkjs.curves.getCurveFromName(name);
    for (const group of names) {
      const G = curve[group];
      const original = G.multiExpAffine;
      G.multiExpAffine = async function (bases, scalars, logger, msmName) {
        const n = bases.byteLength / (G.F.n8 * 2);
        if (n < minPoints) {
          stats.cpuCalls++;
          stats.cpuPoints += n;
          return original.call(G, bases, scalars, logger, msmName);
        }
        const bytes = bases instanceof Uint8Array ? bases : bases.slice(0, bases.byteLength);
        const key = contentKey(bytes);
        if (cache.has(key)) stats.cacheHits++;
        else {
          const bad = firstInvalid(G, bytes);
          if (bad >= 0) throw new Error(`stand-in: ${name} ${group} MSM "${msmName}": base point ${bad} is not on the curve`);
          cache.add(key);
          stats.cacheUploads++;
        }
        stats.gpuCalls++;
        stats.gpuPoints += n;
        stats.checked++;
        return original.call(G, bases, scalars, logger, msmName);
      };
      restores.push(() => (G.multiExpAffine = original));
    }
  }
  return { stats: () => ({ ...stats, minPoints }), restore: () => restores.forEach((r) => r()) };
}
