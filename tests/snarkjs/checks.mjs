// The snarkjs checks the Node and Chromium tests run: real Groth16, PLONK and fflonk proofs from
// snarkjs 0.7.6 with `accelerateSnarkjs` routing their MSMs to the GPU, each one also computed by
// snarkjs' CPU path (checkEachCall) and every proof verified by snarkjs.
// Plain ES modules only (keys.mjs, and tests/js's Tally): it runs unchanged in Node and in a page
// served from the repository root, which hand it snarkjs, accelerateSnarkjs and a build/ loader.
import { Tally } from "../js/checks.mjs";
import { TEST_KEYS, circuitInput, paths } from "./keys.mjs";

/**
 * The groups the tests accelerate. BLS12-381's G2 stays on snarkjs' CPU path: SwiftShader
 * compiles the BLS12-381 G2 kernels for about four minutes, too long for CI (scripts/test-page.sh
 * says the same); BN254's G2 (Groth16's B2) runs on the GPU.
 */
export const TEST_GROUPS = { bn128: ["G1", "G2"], bls12381: ["G1"] };

/**
 * Records the GPUDevices the page or process creates from now on (wgpu asks navigator.gpu for an
 * adapter, then the adapter for a device), so a check can lose them as a GPU reset would:
 * `loseDevice()` destroys every device created since. Call before the contexts are made.
 */
export function captureDevices() {
  const devices = [];
  const gpu = navigator.gpu;
  const requestAdapter = gpu.requestAdapter.bind(gpu);
  gpu.requestAdapter = async (...args) => {
    const adapter = await requestAdapter(...args);
    if (adapter) {
      const requestDevice = adapter.requestDevice.bind(adapter);
      adapter.requestDevice = async (...a) => {
        const device = await requestDevice(...a);
        devices.push(device);
        return device;
      };
    }
    return adapter;
  };
  return () => {
    if (!devices.length) throw new Error("no GPUDevice was created after captureDevices()");
    for (const device of devices) device.destroy();
  };
}

const assert = (ok, message) => {
  if (!ok) throw new Error(message);
};

/** The numeric stats fields the checks read, failing clearly if the adapter lacks one. */
function stats(gpu) {
  const s = gpu.stats();
  for (const field of ["gpuCalls", "cacheUploads", "cacheHits", "checked"]) {
    assert(typeof s[field] === "number", `stats().${field} is ${s[field]}, not a number: ${JSON.stringify(s)}`);
  }
  return s;
}

/**
 * Wraps every curve's G1 and G2 multiExpAffine (the adapter's, once installed) to record each MSM
 * snarkjs makes and whether stats().gpuCalls grew during it (snarkjs awaits its MSMs one by one).
 */
function spyMsms(curves, gpu) {
  const calls = [];
  const undo = [];
  for (const [curve, engine] of Object.entries(curves)) {
    for (const group of ["G1", "G2"]) {
      const G = engine[group];
      const inner = G.multiExpAffine;
      G.multiExpAffine = async function (bases, scalars, logger, name, ...rest) {
        const call = { curve, group, name, points: bases.byteLength / (2 * G.F.n8), gpu: false, uploads: 0 };
        calls.push(call);
        const before = gpu.stats();
        try {
          return await inner.call(this, bases, scalars, logger, name, ...rest);
        } finally {
          const after = gpu.stats();
          call.gpu = after.gpuCalls > before.gpuCalls;
          call.uploads = after.cacheUploads - before.cacheUploads;
        }
      };
      undo.push(() => (G.multiExpAffine = inner));
    }
  }
  return { calls, undo: () => undo.forEach((f) => f()) };
}

/** The byte offset and size of section `type` in a zkey (magic, version, count, then sections). */
export function zkeySection(zkey, type) {
  const view = new DataView(zkey.buffer, zkey.byteOffset, zkey.byteLength);
  const magic = String.fromCharCode(...zkey.subarray(0, 4));
  assert(magic === "zkey", `not a zkey file (magic "${magic}")`);
  const count = view.getUint32(8, true);
  let at = 12;
  for (let i = 0; i < count; i++) {
    const t = view.getUint32(at, true), size = Number(view.getBigUint64(at + 4, true));
    if (t === type) return { offset: at + 12, size };
    at += 12 + size;
  }
  throw new Error(`zkey has no section ${type}`);
}

/**
 * A copy of `zkey` with one G1 point of section `type` moved off the curve (the low byte of its x
 * flipped): a point past the middle that is not infinity. Returns [bytes, index].
 */
export function corruptPoint(zkey, type, pointBytes) {
  const { offset, size } = zkeySection(zkey, type);
  const out = zkey.slice();
  const n = size / pointBytes;
  for (let i = Math.floor(n / 2); i < n; i++) {
    const at = offset + i * pointBytes;
    if (out.subarray(at, at + pointBytes).some((b) => b !== 0)) {
      out[at] ^= 1;
      return [out, i];
    }
  }
  throw new Error(`section ${type} has no finite point past its middle`);
}

/**
 * Runs the checks. `snarkjs`: the module (or the browser bundle's global); `accelerateSnarkjs`:
 * the adapter's function; `load(path)`: a build/ file's bytes (Uint8Array); `log`: a line printer;
 * `options`: added to every accelerateSnarkjs call (the Node lane passes its MsmContext, whose
 * kernels its other checks compiled). Returns the Tally.
 */
export async function runChecks({ snarkjs, accelerateSnarkjs, load, log = console.log, keys = TEST_KEYS, options = {},
  groups: accelerated = TEST_GROUPS, loseDevice }) {
  const tally = new Tally(log);
  const t = (name, f) => tally.check(name, f);
  const curves = {
    bn128: await snarkjs.curves.getCurveFromName("bn128"),
    bls12381: await snarkjs.curves.getCurveFromName("bls12381"),
  };
  const originals = Object.values(curves).flatMap((c) => [c.G1, c.G2].map((G) => [G, G.multiExpAffine]));
  const files = new Map();
  const file = async (path) => files.get(path) ?? files.set(path, await load(path)).get(path);
  const json = async (path) => JSON.parse(new TextDecoder().decode(await file(path)));

  let gpu = null;
  await t("accelerateSnarkjs installs its MSMs on the groups asked for", async () => {
    gpu = await accelerateSnarkjs(snarkjs, { ...options, minPoints: 0, checkEachCall: true, groups: accelerated });
    assert(typeof gpu?.stats === "function" && typeof gpu?.restore === "function" && typeof gpu?.ready === "function",
      "no stats()/ready()/restore()");
    // It resolves before the preparation (compiles and install checks, which take GPU round trips
    // and so at least one macrotask) has settled any group.
    const asked = Object.entries(accelerated).flatMap(([curve, groups]) => groups.map((g) => `${curve} ${g}`));
    const pending = gpu.stats().pending;
    assert(JSON.stringify(pending) === JSON.stringify(asked),
      `stats().pending right after accelerateSnarkjs is ${JSON.stringify(pending)}, not ${JSON.stringify(asked)}`);
    for (const [curve, groups] of Object.entries(accelerated)) {
      for (const group of groups) {
        const original = originals.find(([G]) => G === curves[curve][group])[1];
        assert(curves[curve][group].multiExpAffine !== original,
          `${curve} ${group}.multiExpAffine is still snarkjs' own (stats().disabled: ${JSON.stringify(gpu.stats().disabled)})`);
      }
    }
    return JSON.stringify(stats(gpu));
  });
  if (!gpu) return tally;
  const spy = spyMsms(curves, gpu);

  /** A 16-point MSM (multiples of the generator, every scalar byte `fill`) through G's
   * multiExpAffine as installed, and by snarkjs' own function: [result, expected]. */
  async function smallMsm(G, fill) {
    const n = 16;
    const bases = new Uint8Array(n * 2 * G.F.n8);
    for (let i = 0, point = G.g; i < n; i++, point = G.add(point, G.g)) bases.set(G.toAffine(point), i * 2 * G.F.n8);
    const scalars = new Uint8Array(n * 32).fill(fill);
    const result = await G.multiExpAffine(bases, scalars);
    return [result, await originals.find(([g]) => g === G)[1].call(G, bases, scalars)];
  }

  /** One proof, its verification and what its MSMs did. */
  async function prove(key, protocol, seed, zkeyBytes) {
    const p = paths(key);
    const first = spy.calls.length;
    const before = stats(gpu);
    const start = Date.now();
    const { proof, publicSignals } = await snarkjs[protocol].fullProve(
      circuitInput(key.circuit, key.log, seed), await file(p.wasm), zkeyBytes ?? (await file(p.zkey(protocol))));
    const ms = Date.now() - start;
    const after = stats(gpu);
    // The prove's MSMs only: Groth16's verify makes one more (the public inputs' sum).
    const calls = spy.calls.slice(first);
    const verified = await snarkjs[protocol].verify(await json(p.vkey(protocol)), publicSignals, proof);
    return { proof, publicSignals, verified, ms, before, after, calls };
  }

  for (const key of keys) {
    for (const protocol of key.protocols) {
      const label = `${key.curve} ${protocol} ${key.circuit} 2^${key.log}`;
      let firstProof = null;
      await t(`${label}: proves with its MSMs on the GPU, and verifies`, async () => {
        const r = await prove(key, protocol, 1);
        assert(r.verified === true, `snarkjs.${protocol}.verify returned ${r.verified}`);
        assert(r.calls.length > 0, "snarkjs made no MSM through multiExpAffine");
        const acceleratedHere = accelerated[key.curve];
        for (const c of r.calls) {
          const expected = acceleratedHere.includes(c.group);
          assert(c.gpu === expected, `MSM "${c.name}" (${c.group}) ${c.gpu ? "ran" : "did not run"} on the GPU`);
        }
        const onGpu = r.calls.filter((c) => c.gpu).length;
        assert(r.after.gpuCalls - r.before.gpuCalls === onGpu, `gpuCalls grew by ${r.after.gpuCalls - r.before.gpuCalls}, not ${onGpu}`);
        firstProof = r;
        const groups = [...new Set(r.calls.filter((c) => c.gpu).map((c) => c.group))].join("+");
        const waits = `${r.after.waits - r.before.waits} waited ${r.after.waitedMs - r.before.waitedMs} ms for their group's preparation`;
        return `${r.calls.length} MSMs, ${onGpu} on the GPU (${groups}), ${waits}, ${r.after.cacheUploads - r.before.cacheUploads} base uploads, prove ${r.ms} ms`;
      });
      if (!firstProof) continue;
      await t(`${label}: a tampered public signal fails verification`, async () => {
        const vkey = await json(paths(key).vkey(protocol));
        const tampered = [...firstProof.publicSignals];
        tampered[tampered.length - 1] = String(BigInt(tampered[tampered.length - 1]) + 1n);
        const verified = await snarkjs[protocol].verify(vkey, tampered, firstProof.proof);
        assert(verified === false, `verify returned ${verified} for a tampered public signal`);
      });
      await t(`${label}: a second proof (another witness) uploads no bases`, async () => {
        const r = await prove(key, protocol, 2);
        assert(r.verified === true, `snarkjs.${protocol}.verify returned ${r.verified}`);
        const uploaded = r.calls.filter((c) => c.uploads).map((c) => `"${c.name}" (${c.points} points) uploaded ${c.uploads}`);
        assert(r.after.cacheUploads === r.before.cacheUploads,
          `cacheUploads grew by ${r.after.cacheUploads - r.before.cacheUploads}: ${uploaded.join(", ")}; ` +
          `the first proof's MSMs: ${firstProof.calls.map((c) => `"${c.name}" ${c.points} points, ${c.uploads} uploads`).join("; ")}`);
        assert(r.after.cacheHits > r.before.cacheHits, "cacheHits did not grow");
        assert(r.after.gpuCalls > r.before.gpuCalls, "gpuCalls did not grow");
        return `${r.after.cacheHits - r.before.cacheHits} cache hits, prove ${r.ms} ms`;
      });
    }
  }

  // A corrupted zkey must make the prove reject with the MSM's name and the point's index, never
  // return a proof. Groth16: section 5 (A's bases, "multiexp A"); PLONK: section 14 (the SRS,
  // whose first MSM is "A").
  const bn = TEST_KEYS[0];
  const corruptions = [
    { protocol: "groth16", section: 5, name: "multiexp A" },
    { protocol: "plonk", section: 14, name: "A" },
  ];
  for (const { protocol, section, name } of corruptions) {
    if (!bn.protocols.includes(protocol)) continue;
    await t(`bn128 ${protocol}: one point off the curve in zkey section ${section} rejects, naming "${name}" and the point`, async () => {
      const [zkey, index] = corruptPoint(await file(paths(bn).zkey(protocol)), section, 64);
      let r;
      try {
        r = await prove(bn, protocol, 3, zkey);
      } catch (e) {
        const message = String(e?.message ?? e);
        assert(e instanceof Error, `rejected with a non-Error: ${message}`);
        const word = (w) => new RegExp(`(^|[^\\w])${w}([^\\w]|$)`).test(message);
        assert(word(name), `the message does not name the MSM "${name}": ${message}`);
        assert(word(String(index)), `the message does not name point ${index}: ${message}`);
        return message;
      }
      throw new Error(`the prove resolved (the proof ${r.verified ? "verifies!" : "does not verify"}) instead of rejecting`);
    });
  }
  await t("bn128 groth16: after the rejections the unchanged key still proves, without uploads", async () => {
    const r = await prove(bn, "groth16", 4);
    assert(r.verified === true, `verify returned ${r.verified}`);
    assert(r.after.cacheUploads === r.before.cacheUploads, `cacheUploads grew by ${r.after.cacheUploads - r.before.cacheUploads}`);
  });
  await t("every GPU MSM was checked against snarkjs' CPU MSM, none differed", async () => {
    const s = stats(gpu);
    assert(s.checked > 0, `stats().checked is ${s.checked}`);
    assert(s.mismatches === 0, `stats().mismatches is ${s.mismatches}`);
    return JSON.stringify(s);
  });

  await t("restore() gives back snarkjs' own MSMs: a CPU proof verifies and stats stop counting", async () => {
    await gpu.ready(); // every group settled, so only restore() could change the stats
    spy.undo();
    gpu.restore();
    for (const [G, original] of originals) assert(G.multiExpAffine === original, "a multiExpAffine is not snarkjs' own");
    const before = JSON.stringify(gpu.stats());
    const r = await prove(bn, "groth16", 5);
    assert(r.verified === true, `verify returned ${r.verified}`);
    assert(JSON.stringify(gpu.stats()) === before, `stats changed: ${before} → ${JSON.stringify(gpu.stats())}`);
  });

  // What an app gets without options: minPoints measured once the group is prepared. While it is
  // pending, an MSM below the pending floor (4096 points) runs on the CPU at once. On a software
  // GPU the measured minPoints may keep every MSM on the CPU; either way the proof must verify
  // and restore() must undo it.
  await t("with its defaults (minPoints measured) accelerateSnarkjs installs, and a PLONK proof verifies", async () => {
    const fresh = await accelerateSnarkjs(snarkjs, { ...options, groups: { bn128: ["G1"] } });
    try {
      const early = fresh.stats();
      assert(early.minPoints === null && early.pending.join() === "bn128 G1",
        `right after accelerateSnarkjs: minPoints ${early.minPoints}, pending ${JSON.stringify(early.pending)}`);
      const [small, expected] = await smallMsm(curves.bn128.G1, 7);
      const s0 = fresh.stats();
      assert(curves.bn128.G1.eq(small, expected), "a 16-point MSM while pending differs from snarkjs' CPU result");
      assert(s0.cpuCalls === 1 && s0.gpuCalls === 0 && s0.waits === 0,
        `a 16-point MSM while pending: ${JSON.stringify(s0)} (it should run on the CPU without waiting)`);
      const ready = await fresh.ready();
      const { minPoints } = ready;
      assert(typeof minPoints === "number" && minPoints >= 0, `stats().minPoints after ready() is ${minPoints}`);
      assert(ready.pending.length === 0 && ready.accelerated.join() === "bn128 G1",
        `after ready(): accelerated ${JSON.stringify(ready.accelerated)}, pending ${JSON.stringify(ready.pending)}`);
      const p = paths(bn);
      const { proof, publicSignals } = await snarkjs.plonk.fullProve(circuitInput(bn.circuit, bn.log, 6), await file(p.wasm), await file(p.zkey("plonk")));
      assert(await snarkjs.plonk.verify(await json(p.vkey("plonk")), publicSignals, proof), "the proof does not verify");
      const s = fresh.stats();
      return `minPoints ${minPoints}: ${s.gpuCalls} MSMs on the GPU, ${s.cpuCalls} on the CPU`;
    } finally {
      fresh.restore();
    }
  });

  await t("without groups, a group is prepared only when an MSM asks for it", async () => {
    const lazy = await accelerateSnarkjs(snarkjs, { ...options, minPoints: 0 });
    try {
      const all = ["bn128 G1", "bn128 G2", "bls12381 G1", "bls12381 G2"];
      const early = lazy.stats();
      assert(early.pending.length === 0 && early.idle.join() === all.join(),
        `right after accelerateSnarkjs: pending ${JSON.stringify(early.pending)}, idle ${JSON.stringify(early.idle)}`);
      const [got, expected] = await smallMsm(curves.bn128.G1, 9);
      assert(curves.bn128.G1.eq(got, expected), "the MSM differs from snarkjs' CPU result");
      const s = lazy.stats();
      assert(s.gpuCalls === 1 && s.waits === 1 && s.accelerated.join() === "bn128 G1" && s.idle.join() === all.slice(1).join(),
        `after one bn128 G1 MSM: ${JSON.stringify(s)}`);
      return `waited ${s.waitedMs} ms; idle: ${s.idle.join(", ")}`;
    } finally {
      lazy.restore();
    }
  });

  await t("restore() during the preparation: ready() resolves, snarkjs' own MSMs are back and a proof verifies", async () => {
    const early = await accelerateSnarkjs(snarkjs, { ...options, minPoints: 0, groups: { bn128: ["G1", "G2"] } });
    early.restore();
    for (const [G, original] of originals) assert(G.multiExpAffine === original, "a multiExpAffine is not snarkjs' own");
    const s = await early.ready();
    assert(s.pending.length === 0, `stats().pending after ready() is ${JSON.stringify(s.pending)}`);
    const p = paths(bn);
    const { proof, publicSignals } = await snarkjs.groth16.fullProve(circuitInput(bn.circuit, bn.log, 8), await file(p.wasm), await file(p.zkey("groth16")));
    assert(await snarkjs.groth16.verify(await json(p.vkey("groth16")), publicSignals, proof), "the proof does not verify");
    assert(early.stats().gpuCalls === 0 && early.stats().cpuCalls === 0, `stats counted after restore(): ${JSON.stringify(early.stats())}`);
    return JSON.stringify(s);
  });

  // A GPU reset during a proof: the MSM that meets the lost device runs on snarkjs' CPU path
  // (counted in fallbacks), later ones on a new device, and the proof verifies. Needs
  // `loseDevice` (captureDevices, installed before the checks' context was made).
  if (loseDevice) {
    await t("bn128 groth16: a device lost during a proof falls back to the CPU for that MSM, and the proof verifies", async () => {
      const warnings = [];
      const lossy = await accelerateSnarkjs(snarkjs, {
        ...options, minPoints: 0, groups: { bn128: ["G1"] }, warn: (w) => warnings.push(w),
      });
      try {
        // Prepared first: a device lost during the preparation would only fail its install check.
        await lossy.ready();
        loseDevice();
        const p = paths(bn);
        const { proof, publicSignals } = await snarkjs.groth16.fullProve(circuitInput(bn.circuit, bn.log, 7), await file(p.wasm), await file(p.zkey("groth16")));
        assert(await snarkjs.groth16.verify(await json(p.vkey("groth16")), publicSignals, proof), "the proof does not verify");
        const s = lossy.stats();
        assert(s.fallbacks >= 1, `stats().fallbacks is ${s.fallbacks}: ${JSON.stringify(s)}`);
        assert(warnings.some((w) => /device lost/i.test(w)), `no warning names the lost device: ${JSON.stringify(warnings)}`);
        return `${s.fallbacks} fallback(s), ${s.gpuCalls} MSMs on a new device: ${warnings[0]}`;
      } finally {
        lossy.restore();
      }
    });
  }
  return tally;
}
