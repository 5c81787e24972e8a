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

// Like the adapter, it resolves before its groups are "prepared" (here: one macrotask each):
// those of `groups` at once, the default ones at their first MSM; until a group is ready its MSMs
// below the pending floor (minPoints, else 4096) run on the CPU and larger ones wait.
export async function accelerateSnarkjs(snarkjs, { minPoints, groups } = {}) {
  const stats = { gpuCalls: 0, gpuPoints: 0, cpuCalls: 0, cpuPoints: 0, fallbacks: 0, checked: 0, mismatches: 0, waits: 0,
    waitedMs: 0, cacheHits: 0, cacheUploads: 0 };
  const floor = minPoints ?? 4096;
  const states = new Map();
  const settled = new Map();
  const prepare = (label) => {
    if (states.get(label) !== "idle") return;
    states.set(label, "pending");
    settled.set(label, new Promise((resolve) => setTimeout(resolve, 0)).then(() => states.get(label) === "pending" && states.set(label, "ready")));
  };
  const cache = new Set();
  const restores = [];
  for (const [name, names] of Object.entries(groups ?? { bn128: ["G1", "G2"], bls12381: ["G1", "G2"] })) {
    const curve = await snarkjs.curves.getCurveFromName(name);
    for (const group of names) {
      const G = curve[group];
      const original = G.multiExpAffine;
      const label = `${name} ${group}`;
      states.set(label, "idle");
      if (groups) prepare(label);
      G.multiExpAffine = async function (bases, scalars, logger, msmName) {
        const n = bases.byteLength / (G.F.n8 * 2);
        if (states.get(label) !== "ready" && n >= floor) {
          prepare(label);
          stats.waits++;
          await settled.get(label);
        }
        if (states.get(label) !== "ready" || n < (minPoints ?? 0)) {
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
  const having = (state) => [...states].filter(([, s]) => s === state).map(([label]) => label);
  const accelerator = {
    stats: () => ({ ...stats, minPoints: having("ready").length ? (minPoints ?? 0) : (minPoints ?? null),
      accelerated: having("ready"), pending: having("pending"), idle: having("idle"), disabled: [] }),
    ready: async () => {
      for (const label of states.keys()) prepare(label);
      await Promise.all(settled.values());
      return accelerator.stats();
    },
    restore: () => {
      restores.forEach((r) => r());
      for (const [label, state] of states) if (state !== "ready") states.set(label, "disabled");
    },
  };
  return accelerator;
}
