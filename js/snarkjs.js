// webgpu-msm/snarkjs: snarkjs' own provers with every large MSM on the GPU.
//
// snarkjs (0.7.x) computes each MSM of a Groth16, PLONK or fflonk proof by calling
// `curve.G1.multiExpAffine(bases, scalars, logger, name)` or `curve.G2.multiExpAffine(…)` on the
// curve engine ffjavascript caches on globalThis, the object `snarkjs.curves.getCurveFromName`
// returns. `accelerateSnarkjs` replaces those two functions on the bn128 and bls12381 engines:
// the bases (affine x‖y, Montgomery-form coordinates, as the zkey stores them) go to the GPU as
// they are, through a BaseCache that recognises them by content, so a proving key's sections
// are uploaded once and PLONK's and fflonk's MSMs over one SRS section share one set.
import { BaseCache, MsmContext } from "./webgpu_msm.js";

// The library's names of snarkjs' curves and groups.
const CURVES = {
  bn128: { G1: "bn254", G2: "bn254-g2" },
  bls12381: { G1: "bls12-381", G2: "bls12-381-g2" },
};
const SCALAR_BYTES = 32;
// Points of the install check: enough to fill several buckets of every window.
const CHECK_POINTS = 64;
// Points of the measurement that chooses the default minPoints.
const MEASURE_POINTS = 1 << 12;
// What marks an engine group as accelerated (one accelerator per engine at a time).
const INSTALLED = Symbol.for("webgpu-msm/snarkjs");

/**
 * Makes snarkjs' bn128 and bls12381 engines compute `G1.multiExpAffine` and
 * `G2.multiExpAffine` on the GPU. Call after `init()` of webgpu-msm and after every bundle that
 * carries ffjavascript has loaded (each copy resets the cached engines when it loads).
 *
 * Resolves once the functions are replaced, before any kernel compiles. Groups are then prepared
 * in the background, one at a time: their kernels compile and an install check compares one MSM
 * with snarkjs' CPU result. The groups of `options.groups` are queued at once, in the order
 * given, so the compilation overlaps whatever the app does before its first large MSM (loading
 * the key, the witness, the FFTs); without it, a group is prepared when an MSM first asks for it,
 * so no unused curve compiles. A group an MSM asks for moves to the front. Until a group is
 * ready its MSMs below the pending floor run on the CPU and larger ones wait for it. `ready()`
 * prepares every group and waits for all.
 */
export async function accelerateSnarkjs(snarkjs, options = {}) {
  if (!snarkjs?.curves?.getCurveFromName) {
    throw new TypeError("accelerateSnarkjs: pass the snarkjs module (it has no curves.getCurveFromName)");
  }
  const groups = options.groups ?? { bn128: ["G1", "G2"], bls12381: ["G1", "G2"] };
  for (const [curve, names] of Object.entries(groups)) {
    if (!CURVES[curve]) throw new TypeError(`accelerateSnarkjs: unknown curve "${curve}": bn128 or bls12381`);
    for (const group of names) {
      if (!CURVES[curve][group]) throw new TypeError(`accelerateSnarkjs: unknown group "${group}": G1 or G2`);
    }
  }
  if (options.minPoints !== undefined && !(options.minPoints >= 0)) {
    throw new TypeError("accelerateSnarkjs: minPoints must be a number ≥ 0");
  }
  const warn = options.warn ?? ((message) => console.warn(message));
  const gpu = new Gpu(options.context, options.maxGpuBytes);
  await gpu.ready();
  const counts = {
    gpuCalls: 0, gpuPoints: 0, cpuCalls: 0, cpuPoints: 0, fallbacks: 0, checked: 0, mismatches: 0, waits: 0, waitedMs: 0,
  };
  const targets = [];
  for (const [curveName, names] of Object.entries(groups)) {
    const engine = await snarkjs.curves.getCurveFromName(curveName);
    for (const group of names) {
      const G = engine[group];
      if (G[INSTALLED]) throw new Error(`accelerateSnarkjs: ${curveName} ${group} is already accelerated; restore() it first`);
      targets.push(idleTarget({ engine, G, curveName, group, name: CURVES[curveName][group], original: G.multiExpAffine }));
    }
  }
  const disabled = [];
  // Until a group is ready, MSMs below this many points run on the CPU rather than wait: with
  // minPoints given they would anyway; by default, at fewer points than the minPoints measurement
  // takes, snarkjs' CPU path needs tens of milliseconds, less than a compilation.
  const pendingFloor = options.minPoints ?? MEASURE_POINTS;
  let minPoints = options.minPoints;
  let active = true;

  // The background preparation: the queued groups' install checks in turn, then (once, on the
  // first group that passes) the default minPoints. It never rejects: a failed check disables its
  // group. Groups named in options.groups are queued at once; the default groups only when an
  // MSM or ready() asks for them, so an app compiles no curve it does not use.
  const queue = [];
  let draining = null;
  const prepare = (target, first) => {
    if (!active || target.state !== "idle") return;
    target.state = "pending";
    if (first) queue.unshift(target);
    else queue.push(target);
    draining ??= drain();
  };
  const drain = async () => {
    while (active && queue.length) {
      const target = queue.shift();
      const problem = await installCheck(target, gpu);
      if (!active) {
        target.settle("disabled");
        break;
      }
      if (problem) {
        disabled.push({ curve: target.curveName, group: target.group, reason: problem });
        warn(`webgpu-msm: ${target.curveName} ${target.group} MSMs stay on the CPU: ${problem}`);
        target.settle("disabled");
        continue;
      }
      if (minPoints === undefined) minPoints = await measureMinPoints(target, gpu);
      target.settle(active ? "ready" : "disabled");
    }
    // restore() stopped the preparation: the bases of the check it let finish are freed.
    if (!active) gpu.clear();
    draining = null;
  };
  if (options.groups) for (const target of targets) prepare(target, false);

  for (const target of targets) {
    const { G, original } = target;
    G[INSTALLED] = true;
    G.multiExpAffine = async function multiExpAffine(bases, scalars, logger, name, ...rest) {
      const n = Math.floor(bases.byteLength / (2 * G.F.n8));
      const shaped = n > 0 && bases.byteLength === n * 2 * G.F.n8 && scalars.byteLength === n * SCALAR_BYTES &&
        fitsOneBuffer(bases) && fitsOneBuffer(scalars);
      if (active && shaped && (target.state === "idle" || target.state === "pending") && n >= pendingFloor) {
        const at = queue.indexOf(target);
        if (at > 0) queue.unshift(...queue.splice(at, 1));
        prepare(target, true);
        const start = performance.now();
        await target.settled;
        counts.waits += 1;
        counts.waitedMs += performance.now() - start;
      }
      if (!(active && shaped && target.state === "ready" && n >= minPoints)) {
        if (active) {
          counts.cpuCalls += 1;
          counts.cpuPoints += n;
        }
        return original.call(this, bases, scalars, logger, name, ...rest);
      }
      let result;
      try {
        result = await gpu.msm(target, bases, scalars);
      } catch (e) {
        if (isInputError(e)) {
          throw new Error(`webgpu-msm: ${name ?? "multiExpAffine"} (${target.curveName} ${target.group}): ${e.message}`);
        }
        counts.fallbacks += 1;
        counts.cpuCalls += 1;
        counts.cpuPoints += n;
        warn(`webgpu-msm: ${name ?? "an MSM"} ran on the CPU after a GPU error: ${e?.message ?? e}`);
        return original.call(this, bases, scalars, logger, name, ...rest);
      }
      counts.gpuCalls += 1;
      counts.gpuPoints += n;
      if (options.checkEachCall) {
        const cpu = await original.call(this, bases, scalars, logger, name, ...rest);
        counts.checked += 1;
        if (!G.eq(cpu, result)) {
          counts.mismatches += 1;
          throw new Error(`webgpu-msm: ${name ?? "multiExpAffine"} (${target.curveName} ${target.group}, ${n} points): the GPU's result differs from snarkjs' CPU result`);
        }
      }
      return result;
    };
  }

  const label = ({ curveName, group }) => `${curveName} ${group}`;
  const accelerator = {
    /** Counts of `multiExpAffine` calls and their points, on the GPU and on the CPU. */
    stats() {
      const cache = gpu.cacheStats();
      return {
        ...counts,
        waitedMs: Math.round(counts.waitedMs),
        cacheHits: cache.hits,
        cacheUploads: cache.uploads,
        cacheEvictions: cache.evictions,
        cacheSets: cache.sets,
        cacheGpuBytes: cache.gpuBytes,
        minPoints: minPoints ?? null,
        accelerated: targets.filter((t) => t.state === "ready").map(label),
        pending: targets.filter((t) => t.state === "pending").map(label),
        idle: targets.filter((t) => t.state === "idle").map(label),
        disabled: disabled.slice(),
      };
    },
    /** Prepares every group not yet prepared; resolves with stats() once all are. */
    async ready() {
      for (const target of targets) prepare(target, false);
      await Promise.all(targets.map((t) => t.settled));
      return accelerator.stats();
    },
    /** Puts snarkjs' own functions back and frees the cached bases. */
    restore() {
      if (!active) return;
      active = false;
      for (const { G, original } of targets) {
        G.multiExpAffine = original;
        delete G[INSTALLED];
      }
      // Groups not reached release their waiting calls, which then run snarkjs' own function.
      for (const target of queue.splice(0)) target.settle("disabled");
      for (const target of targets) if (target.state === "idle") target.settle("disabled");
      gpu.clear();
    },
  };
  return accelerator;
}

// A group to accelerate: "idle" until asked for, "pending" while queued or being prepared, then
// settled as "ready" or "disabled".
function idleTarget(target) {
  target.state = "idle";
  target.settled = new Promise((resolve) => {
    target.settle = (state) => {
      target.state = state;
      resolve();
    };
  });
  return target;
}

// The GPU side: one context and one BaseCache, made again after the device is lost.
class Gpu {
  constructor(context, maxGpuBytes) {
    this.options = maxGpuBytes === undefined ? undefined : { maxGpuBytes };
    this.context = context;
    this.cache = undefined;
  }

  async ready() {
    this.context ??= await MsmContext.create();
    this.cache ??= new BaseCache(this.options);
  }

  async msm(target, bases, scalars) {
    await this.ready();
    try {
      const options = { pointForm: "montgomery", cache: this.cache };
      const result = await this.context.msm(target.name, bytes(bases), bytes(scalars), options);
      return jacobian(target.G, result);
    } catch (e) {
      if (/device lost/i.test(e?.message ?? "")) {
        // The next call starts on a new device; this one falls back to the CPU.
        this.context = undefined;
        this.cache = undefined;
      }
      throw e;
    }
  }

  cacheStats() {
    return this.cache?.stats() ?? { hits: 0, uploads: 0, evictions: 0, sets: 0, gpuBytes: 0 };
  }

  clear() {
    this.cache?.clear();
  }
}

// The GPU's affine x‖y (Montgomery form, the identity as zeros) as the Jacobian point
// ffjavascript returns from an MSM.
function jacobian(G, affine) {
  if (affine.every((b) => b === 0)) return G.zero.slice();
  const point = new Uint8Array(3 * G.F.n8);
  point.set(affine, 0);
  point.set(G.F.one, 2 * G.F.n8);
  return point;
}

// A Uint8Array, or the contents of an ffjavascript BigBuffer of one page (1 GiB).
function bytes(buffer) {
  return buffer instanceof Uint8Array ? buffer : buffer.slice(0, buffer.byteLength);
}

// Whether `bytes` gives one Uint8Array: a BigBuffer of several pages (past 1 GiB, more than
// WebAssembly's memory would hold beside everything else) stays on snarkjs' CPU path.
function fitsOneBuffer(buffer) {
  return buffer instanceof Uint8Array || (buffer.buffers?.length ?? 0) <= 1;
}

// Errors that say the bases are not valid points: these fail the proof instead of falling back
// (a CPU result over them would be a wrong proof, not a slower right one).
function isInputError(e) {
  return /not on the curve|not below the field modulus|length mismatch|not a multiple of/.test(e?.message ?? "");
}

// CHECK_POINTS multiples of the generator (one the identity) and random scalars below 2^248.
function checkInputs(G) {
  const n8 = G.F.n8;
  const bases = new Uint8Array(CHECK_POINTS * 2 * n8);
  let point = G.g;
  for (let i = 1; i < CHECK_POINTS; i += 1) {
    bases.set(G.toAffine(point), i * 2 * n8);
    point = G.add(G.double(point), G.g);
  }
  return { bases, scalars: randomScalars(CHECK_POINTS) };
}

// n random scalars below 2^248 (getRandomValues fills at most 64 KiB a call).
function randomScalars(n) {
  const scalars = new Uint8Array(n * SCALAR_BYTES);
  for (let i = 0; i < scalars.length; i += 65536) crypto.getRandomValues(scalars.subarray(i, i + 65536));
  for (let i = 0; i < n; i += 1) scalars[i * SCALAR_BYTES + SCALAR_BYTES - 1] = 0;
  return scalars;
}

// One MSM on the GPU against snarkjs' CPU result: undefined if they agree, else why not.
async function installCheck(target, gpu) {
  const { bases, scalars } = checkInputs(target.G);
  try {
    const [cpu, got] = [await target.original.call(target.G, bases, scalars), await gpu.msm(target, bases, scalars)];
    if (!target.G.eq(cpu, got)) return "the install check's MSM differed from snarkjs' CPU result";
  } catch (e) {
    return `the install check failed: ${e?.message ?? e}`;
  }
  return undefined;
}

// The default minPoints: snarkjs' CPU time and the GPU's (warm) at MEASURE_POINTS points. The
// CPU's time grows with the points; the GPU's is mostly its fixed cost at this size and grows
// no faster beyond it. So MSMs from the size where the CPU would take the GPU's time go to the
// GPU; where the GPU is slower even here (a software GPU), none do by default.
async function measureMinPoints(target, gpu) {
  const { G } = target;
  const n8 = G.F.n8;
  const bases = new Uint8Array(MEASURE_POINTS * 2 * n8);
  let point = G.g;
  for (let i = 0; i < MEASURE_POINTS; i += 1) {
    bases.set(G.toAffine(point), i * 2 * n8);
    point = G.add(point, G.g);
  }
  const scalars = randomScalars(MEASURE_POINTS);
  const time = async (f) => {
    const start = performance.now();
    await f();
    return performance.now() - start;
  };
  try {
    await gpu.msm(target, bases, scalars); // compiles this size's plan and caches the bases
    const gpuMs = Math.min(await time(() => gpu.msm(target, bases, scalars)), await time(() => gpu.msm(target, bases, scalars)));
    const cpuMs = await time(() => target.original.call(G, bases, scalars));
    gpu.clear();
    return gpuMs < cpuMs ? Math.ceil((MEASURE_POINTS * gpuMs) / cpuMs) : Infinity;
  } catch {
    return Infinity;
  }
}
