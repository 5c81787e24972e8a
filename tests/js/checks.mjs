// The checks the Node.js, Deno and Web Worker tests run against the webgpu-msm package: MSMs
// with answers known without the package (curve constants below, copied from the curves'
// specifications as arkworks 0.6 states them), the package's own arkworks (`arkworksMsm`) on
// random inputs, and bad inputs that must reject with an Error naming the problem.
// Plain ES module without imports: it runs unchanged in Node.js, Deno and a browser Worker.

// p: base field modulus, r: prime subgroup order, g: the generator (x, y), bytes: coordinate size.
// On G2 curves a coordinate is in Fp2: [c0, c1], encoded c0 then c1, each half of the bytes.
export const CURVES = {
  "bls12-377": {
    form: "short-weierstrass",
    bytes: 48,
    p: 258664426012969094010652733694893533536393512754914660539884262666720468348340822774968888139573360124440321458177n,
    r: 8444461749428370424248824938781546531375899335154063827935233455917409239041n,
    g: [
      81937999373150964239938255573465948239988671502647976594219695644855304257327692006745978603320413799295628339695n,
      241266749859715473739788878240585681733927191168601896383759122102112907357779751001206799952863815012735208165030n,
    ],
  },
  "ed-on-bls12-377": {
    form: "twisted-edwards",
    bytes: 32,
    p: 8444461749428370424248824938781546531375899335154063827935233455917409239041n,
    r: 2111115437357092606062206234695386632838870926408408195193685246394721360383n,
    g: [
      4497879464030519973909970603271755437257548612157028181994697785683032656389n,
      4357141146396347889246900916607623952598927460421559113092863576544024487809n,
    ],
  },
  bn254: {
    form: "short-weierstrass",
    bytes: 32,
    p: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
    r: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
    g: [1n, 2n],
  },
  "bls12-381": {
    form: "short-weierstrass",
    bytes: 48,
    p: 4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787n,
    r: 52435875175126190479447740508185965837690552500527637822603658699938581184513n,
    g: [
      3685416753713387016781088315183077757961620795782546409894578378688607592378376318836054947676345821548104185464507n,
      1339506544944476473020471379941921221584933875938349620426543736416511423956333506472724655353366534992391756441569n,
    ],
  },
  "bn254-g2": {
    form: "short-weierstrass",
    bytes: 64,
    p: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
    r: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
    g: [
      [
        10857046999023057135944570762232829481370756359578518086990519993285655852781n,
        11559732032986387107991004021392285783925812861821192530917403151452391805634n,
      ],
      [
        8495653923123431417604973247489272438418190587263600148770280649306958101930n,
        4082367875863433681332203403145435568316851327593401208105741076214120093531n,
      ],
    ],
  },
  "bls12-381-g2": {
    form: "short-weierstrass",
    bytes: 96,
    p: 4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787n,
    r: 52435875175126190479447740508185965837690552500527637822603658699938581184513n,
    g: [
      [
        352701069587466618187139116011060144890029952792775240219908644239793785735715026873347600343865175952761926303160n,
        3059144344244213709971259814753781636986470325476647558659373206291635324768958432433509563104347017837885763365758n,
      ],
      [
        1985150602287291935568054521177171638300868978215655730859378665066344726373823718423869104263333984641494340347905n,
        927553665492332455747201965776037880757740193453592970025027978793976877002675564980949289727957565575433344219582n,
      ],
    ],
  },
  "bls12-377-g2": {
    form: "short-weierstrass",
    bytes: 96,
    p: 258664426012969094010652733694893533536393512754914660539884262666720468348340822774968888139573360124440321458177n,
    r: 8444461749428370424248824938781546531375899335154063827935233455917409239041n,
    g: [
      [
        233578398248691099356572568220835526895379068987715365179118596935057653620464273615301663571204657964920925606294n,
        140913150380207355837477652521042157274541796891053068589147167627541651775299824604154852141315666357241556069118n,
      ],
      [
        63160294768292073209381361943935198908131692476676907196754037919244929611450776219210369229519898517858833747423n,
        149157405641012693445398062341192467754805999074082136895788947234480009303640899064710353187729182149407503257491n,
      ],
    ],
  },
  grumpkin: {
    form: "short-weierstrass",
    bytes: 32,
    p: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
    r: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
    g: [1n, 17631683881184975370165255887551781615748388533673675138860n],
  },
  pallas: {
    form: "short-weierstrass",
    bytes: 32,
    p: 28948022309329048855892746252171976963363056481941560715954676764349967630337n,
    r: 28948022309329048855892746252171976963363056481941647379679742748393362948097n,
    g: [28948022309329048855892746252171976963363056481941560715954676764349967630336n, 2n],
  },
  vesta: {
    form: "short-weierstrass",
    bytes: 32,
    p: 28948022309329048855892746252171976963363056481941647379679742748393362948097n,
    r: 28948022309329048855892746252171976963363056481941560715954676764349967630337n,
    g: [28948022309329048855892746252171976963363056481941647379679742748393362948096n, 2n],
  },
  secp256k1: {
    form: "short-weierstrass",
    bytes: 32,
    p: 115792089237316195423570985008687907853269984665640564039457584007908834671663n,
    r: 115792089237316195423570985008687907852837564279074904382605163141518161494337n,
    g: [
      55066263022277343669578718895168534326250603453777594175500187360389116729240n,
      32670510020758816978083085130507043184471273380659243275938904335757337482424n,
    ],
  },
};

const SCALAR_BYTES = 32;

/** `value` as `length` little-endian bytes. */
export function le(value, length) {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    out[i] = Number(value & 0xffn);
    value >>= 8n;
  }
  if (value !== 0n) throw new Error("value does not fit");
  return out;
}

const concat = (parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** The encoding of one coordinate on `curve`: an integer, or [c0, c1] in Fp2. */
function coordinate(curve, c) {
  const { bytes } = CURVES[curve];
  return Array.isArray(c) ? concat(c.map((v) => le(v, bytes / 2))) : le(c, bytes);
}
/** The points encoding of affine points [[x, y], …] on `curve`. */
export const points = (curve, list) => concat(list.flatMap(([x, y]) => [coordinate(curve, x), coordinate(curve, y)]));
/** The scalars encoding of integers below 2^256. */
export const scalars = (list) => concat(list.map((k) => le(k, SCALAR_BYTES)));
/** The identity: (0, 0) on the short Weierstrass curves, (0, 1) on the Edwards curve. */
export const identity = (curve) => (CURVES[curve].form === "twisted-edwards" ? [0n, 1n] : [0n, 0n]);
/** −c of a coordinate (each component of an Fp2 one). */
const minus = (p, c) => (Array.isArray(c) ? c.map((v) => (p - v) % p) : (p - c) % p);
/** c + 1 of a coordinate (its c0 in Fp2). */
const plusOne = (p, c) => (Array.isArray(c) ? [(c[0] + 1n) % p, c[1]] : (c + 1n) % p);
/** The generator with y + 1: not on the curve. */
const offCurve = (curve) => {
  const { p, g } = CURVES[curve];
  return [g[0], plusOne(p, g[1])];
};
/**
 * A point on `curve` outside its prime-order group, where the curve has one: a point of small
 * order (x = 0 on y² = x³ + 4 has order 3, (−1, 0) on y² = x³ + 1 and (0, −1) on the Edwards
 * curve order 2).
 */
const OUTSIDE_SUBGROUP = {
  "bls12-381": (p) => [0n, 2n],
  "bls12-377": (p) => [p - 1n, 0n],
  "ed-on-bls12-377": (p) => [0n, p - 1n],
};
/** −P: (x, −y) on short Weierstrass curves, (−x, y) on twisted Edwards curves. */
export function negate(curve, [x, y]) {
  const { p, form } = CURVES[curve];
  return form === "twisted-edwards" ? [minus(p, x), y] : [x, minus(p, y)];
}

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

function expectBytes(actual, expected, what) {
  if (!(actual instanceof Uint8Array)) throw new Error(`${what}: not a Uint8Array: ${actual}`);
  if (hex(actual) !== hex(expected)) throw new Error(`${what}: got ${hex(actual)}, expected ${hex(expected)}`);
}

/** The promise must reject with an Error whose message matches `pattern`. */
async function expectRejection(promiseOrThunk, pattern) {
  let result;
  try {
    result = await (typeof promiseOrThunk === "function" ? promiseOrThunk() : promiseOrThunk);
  } catch (e) {
    if (!(e instanceof Error)) throw new Error(`rejected with a non-Error: ${e}`);
    if (!pattern.test(e.message)) throw new Error(`rejected with "${e.message}", expected ${pattern}`);
    return e.message;
  }
  throw new Error(`resolved to ${result instanceof Uint8Array ? hex(result) : result}, expected a rejection ${pattern}`);
}

/** An error's message and stack (Firefox's `stack` leaves the message out). */
export const errorText = (e) => (e instanceof Error && e.stack && !e.stack.includes(e.message) ? `${e}\n${e.stack}` : e?.stack ?? e);

/** Counts and prints checks: `ok NAME (ms)` or `FAIL NAME: why`. */
export class Tally {
  constructor(log = console.log) {
    this.log = log;
    this.passed = 0;
    this.failed = 0;
  }

  async check(name, f) {
    const start = Date.now();
    try {
      const note = await f();
      this.passed++;
      this.log(`ok ${name} (${Date.now() - start} ms)${typeof note === "string" ? `: ${note}` : ""}`);
    } catch (e) {
      this.failed++;
      this.log(`FAIL ${name}: ${errorText(e)}`);
    }
  }
}

// Deterministic "random" scalars below 2^256 for the known-answer checks.
const big = (i) => (0x9e3779b97f4a7c15n * BigInt(i + 1)) ** 4n % (1n << 256n);

/**
 * Runs every check of one curve on `ctx` (an `MsmContext`); `m` is the package module.
 * `sizes`: random MSMs checked against `arkworksMsm`.
 */
export async function checkCurve(m, ctx, curve, tally, { sizes = [0, 1, 50] } = {}) {
  const { p, r, g } = CURVES[curve];
  const G = points(curve, [g]);
  const O = points(curve, [identity(curve)]);
  const t = (name, f) => tally.check(`${curve}: ${name}`, f);
  const gpu = (pts, ks) => ctx.msm(curve, points(curve, pts), scalars(ks));

  // Answers known without the package.
  await t("1·G = G", async () => expectBytes(await gpu([g], [1n]), G, "1·G"));
  await t("r·G = identity, (r+1)·G = G", async () => {
    expectBytes(await gpu([g], [r]), O, "r·G");
    expectBytes(await gpu([g], [r + 1n]), G, "(r+1)·G");
  });
  await t("k·G + k·(−G) = identity", async () => expectBytes(await gpu([g, negate(curve, g)], [big(1), big(1)]), O, "k·G + k·(−G)"));
  await t("k·identity + 1·G = G", async () => expectBytes(await gpu([identity(curve), g], [big(2), 1n]), G, "k·O + G"));
  let fiveG;
  await t("2·G + 3·G = G+G+G+G+G = 5·G (arkworks)", async () => {
    fiveG = await gpu([g], [5n]);
    expectBytes(await gpu([g, g], [2n, 3n]), fiveG, "2·G + 3·G");
    expectBytes(await gpu([g, g, g, g, g], [1n, 1n, 1n, 1n, 1n]), fiveG, "G+G+G+G+G");
    expectBytes(m.arkworksMsm(curve, G, scalars([5n])), fiveG, "arkworks 5·G");
    if (hex(fiveG) === hex(G) || hex(fiveG) === hex(O)) throw new Error("5·G equals G or the identity");
  });
  await t("scalars are integers below 2^256: (2^256−1)·G = ((2^256−1) mod r)·G", async () => {
    const k = (1n << 256n) - 1n;
    expectBytes(await gpu([g], [k]), await gpu([g], [k % r]), "(2^256−1)·G");
  });
  await t("arkworksMsm anchors: 1·G = G, r·G = identity", async () => {
    expectBytes(m.arkworksMsm(curve, G, scalars([1n])), G, "arkworks 1·G");
    expectBytes(m.arkworksMsm(curve, G, scalars([r])), O, "arkworks r·G");
  });

  // Random inputs against the package's arkworks.
  for (const n of sizes) {
    await t(`n = ${n} random against arkworksMsm`, async () => {
      const [pts, ks] = m.randomInputs(curve, n, BigInt(n + 7));
      if (pts.length !== n * 2 * CURVES[curve].bytes || ks.length !== n * SCALAR_BYTES) throw new Error("randomInputs sizes");
      const expected = m.arkworksMsm(curve, pts, ks);
      if (n === 0) expectBytes(expected, O, "arkworks on n = 0");
      expectBytes(await ctx.msm(curve, pts, ks), expected, `msm n = ${n}`);
    });
  }
  await t("prepare: points once, several scalar vectors", async () => {
    const bases = await ctx.prepare(curve, points(curve, [g, g]));
    try {
      if (bases.length !== 2) throw new Error(`length ${bases.length}`);
      if (bases.curve !== curve) throw new Error(`curve ${bases.curve}`);
      expectBytes(await ctx.msm(curve, bases, scalars([2n, 3n])), fiveG, "prepared 2·G + 3·G");
      expectBytes(await ctx.msm(curve, bases, scalars([r, 1n])), G, "prepared r·G + G");
      // Fewer scalars take the first points (a prefix, as PLONK commits over an SRS); more fail.
      expectBytes(await ctx.msm(curve, bases, scalars([1n])), G, "prepared prefix 1·G");
      await expectRejection(ctx.msm(curve, bases, scalars([1n, 2n, 3n])), /length mismatch: 2 points but 3 scalars/);
      const other = m.curves().find((c) => c !== curve);
      if (other) {
        await expectRejection(ctx.msm(other, bases, scalars([1n])), new RegExp(`^prepared bases of ${curve} given for an MSM on ${other}$`));
      }
    } finally {
      bases.free();
    }
    await expectRejection(ctx.msm(curve, bases, scalars([1n])), /^the object was freed$/);
    await expectRejection(ctx.msm(curve, {}, scalars([1n])), /^points must be a Uint8Array or a PreparedBases$/);
  });

  await t("prepare with precomputeFactor: stored multiples, the same results", async () => {
    const n = 40;
    const [pts, ks1] = m.randomInputs(curve, n, 13n);
    const [, ks2] = m.randomInputs(curve, n, 14n);
    const expected = [m.arkworksMsm(curve, pts, ks1), m.arkworksMsm(curve, pts, ks2)];
    const bases = await ctx.prepare(curve, pts, { precomputeFactor: 4 });
    try {
      expectBytes(await ctx.msm(curve, bases, ks1), expected[0], "precomputed msm");
      const both = await ctx.msm(curve, bases, [ks2, ks1]);
      expectBytes(both[0], expected[1], "precomputed set 0");
      expectBytes(both[1], expected[0], "precomputed set 1");
    } finally {
      bases.free();
    }
    // An MSM over points with a factor: prepared for that call.
    expectBytes(await ctx.msm(curve, pts, ks1, { precomputeFactor: 2 }), expected[0], "points with a factor");
    (await ctx.prepare(curve, pts, {})).free();
    await expectRejection(ctx.prepare(curve, pts, { precomputeFactor: 0 }), /^precompute factor 0 is outside 1..=16$/);
    await expectRejection(ctx.prepare(curve, pts, { precomputeFactor: 17 }), /^precompute factor 17 is outside 1..=16$/);
    await expectRejection(ctx.prepare(curve, pts, { precomputeFactor: 2.5 }), /^precomputeFactor must be an integer$/);
  });

  await t("msm of an array of scalar sets: one result per set, over points and prepared bases", async () => {
    const n = 40;
    const [pts, ks1] = m.randomInputs(curve, n, 11n);
    const [, ks2] = m.randomInputs(curve, n, 12n);
    const zeros = scalars(new Array(n).fill(0n));
    const expected = [m.arkworksMsm(curve, pts, ks1), m.arkworksMsm(curve, pts, ks2), O];
    const got = await ctx.msm(curve, pts, [ks1, ks2, zeros]);
    if (!Array.isArray(got) || got.length !== 3) throw new Error(`a batch gave ${got?.length} results for 3 sets`);
    got.forEach((r, i) => expectBytes(r, expected[i], `set ${i}`));
    if ((await ctx.msm(curve, pts, [])).length !== 0) throw new Error("no sets must give no results");
    const one = await ctx.msm(curve, pts, [ks1]);
    if (!Array.isArray(one) || one.length !== 1) throw new Error("a batch of one set gives an array of one result");
    const bases = await ctx.prepare(curve, pts);
    try {
      const prepared = await ctx.msm(curve, bases, [ks2, ks1]);
      expectBytes(prepared[0], expected[1], "prepared set 0");
      expectBytes(prepared[1], expected[0], "prepared set 1");
      await expectRejection(ctx.msm(curve, bases, [ks1, scalars([1n])]), /^length mismatch: 40 points but scalar set 1 has 1 scalars$/);
    } finally {
      bases.free();
    }
    await expectRejection(ctx.msm(curve, pts, [ks1, scalars([1n])]), /^length mismatch: 40 points but scalar set 1 has 1 scalars$/);
    await expectRejection(ctx.msm(curve, pts, [ks1, new Uint8Array(31)]), /^scalars buffer of 31 bytes is not a multiple of 32 bytes$/);
    await expectRejection(ctx.msm(curve, pts, [ks1, "ks2"]), /^scalar set 1 is not a Uint8Array$/);
    await expectRejection(ctx.msm(curve, pts, "ks1"), /^scalars must be a Uint8Array or an array of Uint8Array$/);
  });

  await t("BaseCache in the options: bases recognised by their bytes", async () => {
    const n = 40;
    const [pts, ks] = m.randomInputs(curve, n, 15n);
    const expected = m.arkworksMsm(curve, pts, ks);
    const cache = new m.BaseCache();
    try {
      expectBytes(await ctx.msm(curve, pts, ks, { cache }), expected, "first sight");
      expectBytes(await ctx.msm(curve, pts.slice(), ks, { cache }), expected, "the same bytes, a new buffer");
      const stats = cache.stats();
      if (stats.uploads !== 1 || stats.hits !== 1 || stats.sets !== 1 || !(stats.gpuBytes > 0)) {
        throw new Error(`stats ${JSON.stringify(stats)}`);
      }
      await expectRejection(ctx.msm(curve, pts, ks, { cache: {} }), /^cache must be a BaseCache$/);
      cache.clear();
      if (cache.stats().sets !== 0) throw new Error("clear() leaves no sets");
    } finally {
      cache.free();
    }
  });

  await t("MsmContext.create({ maxGpuBytes }): a budget that holds no pass rejects, naming it", async () => {
    await expectRejection(m.MsmContext.create({ maxGpuBytes: -1 }), /^maxGpuBytes must be a non-negative integer$/);
    const small = await m.MsmContext.create({ maxGpuBytes: 1024 });
    try {
      const [pts, ks] = m.randomInputs(curve, 4, 17n);
      await expectRejection(small.msm(curve, pts, ks), /^a GPU memory budget of 1024 bytes holds no pass on this curve: the smallest needs \d+$/);
    } finally {
      small.free();
    }
  });

  await t("profile: the same result, with the plan and every GPU step timed", async () => {
    const n = 40;
    const [pts, ks] = m.randomInputs(curve, n, 16n);
    const profiled = await ctx.msm(curve, pts, ks, { profile: true });
    expectBytes(profiled.result, m.arkworksMsm(curve, pts, ks), "profiled result");
    if (profiled.points !== n || !(profiled.windowBits > 0) || !(profiled.windows > 0)) {
      throw new Error(`plan ${JSON.stringify({ ...profiled, result: undefined, steps: undefined })}`);
    }
    const names = profiled.steps.map((s) => s.name);
    if (names[0] !== "upload" || names.at(-1) !== "readback" || names.length < 4) throw new Error(`steps ${names}`);
    if (!profiled.steps.every((s) => s.ms >= 0 && s.fieldMuls >= 0) || !profiled.steps.some((s) => s.fieldMuls > 0)) {
      throw new Error(`step figures ${JSON.stringify(profiled.steps)}`);
    }
    expectBytes(await ctx.msm(curve, pts, ks, { profile: false }), m.arkworksMsm(curve, pts, ks), "profile: false");
    await expectRejection(ctx.msm(curve, pts, [ks, ks], { profile: true }), /profiled call takes one scalar set, not 2/);
    await expectRejection(ctx.msm(curve, pts, ks, { profile: "yes" }), /^profile must be a boolean$/);
  });

  // Bad input: each rejects with an Error naming the problem.
  await t("bad inputs reject with named errors", async () => {
    // x = p: out of range (in Fp2 its c0, then its c1).
    const outOfRange = Array.isArray(g[0]) ? [[[p, g[0][1]], g[1]], [[g[0][0], p], g[1]]] : [[p, g[1]]];
    await expectRejection(ctx.msm(curve, points(curve, [g, offCurve(curve)]), scalars([1n, 1n])), /^point 1 is not on the curve$/);
    for (const bad of outOfRange) {
      await expectRejection(ctx.msm(curve, points(curve, [bad]), scalars([1n])), /^point 0: coordinate is not below the field modulus$/);
    }
    await expectRejection(ctx.msm(curve, G, scalars([1n, 2n])), /^length mismatch: 1 points but 2 scalars$/);
    await expectRejection(ctx.msm(curve, G.subarray(1), scalars([1n])), /^points buffer of \d+ bytes is not a multiple of \d+ bytes$/);
    await expectRejection(ctx.msm(curve, G, new Uint8Array(31)), /^scalars buffer of 31 bytes is not a multiple of 32 bytes$/);
    await expectRejection(ctx.prepare(curve, points(curve, [offCurve(curve)])), /^point 0 is not on the curve$/);
    await expectRejection(() => m.arkworksMsm(curve, points(curve, [offCurve(curve)]), scalars([1n])), /^point 0 is not on the curve$/);
  });

  await t("checkSubgroup: points in the group pass, a point outside it rejects, naming it", async () => {
    const pts = points(curve, [g, negate(curve, g), g]);
    const ks = scalars([5n, 2n, r - 1n]);
    expectBytes(await ctx.msm(curve, pts, ks, { checkSubgroup: true }), m.arkworksMsm(curve, pts, ks), "checked");
    await expectRejection(ctx.msm(curve, pts, ks, { checkSubgroup: "yes" }), /^checkSubgroup must be a boolean$/);
    const outside = OUTSIDE_SUBGROUP[curve]?.(p);
    if (!outside) return "no point outside the group here";
    const bad = points(curve, [g, outside, g]);
    await expectRejection(ctx.msm(curve, bad, ks, { checkSubgroup: true }), /^point 1 is not in the prime-order subgroup$/);
    await expectRejection(ctx.prepare(curve, bad, { checkSubgroup: true }), /^point 1 is not in the prime-order subgroup$/);
    // Without the check a point on the curve is accepted.
    if (!((await ctx.msm(curve, bad, ks)) instanceof Uint8Array)) throw new Error("unchecked call did not resolve to bytes");
  });

  await t("blind: blinded prepared bases give the same results, prefixes and zero scalars too", async () => {
    const pts = points(curve, [g, negate(curve, g), g, identity(curve)]);
    const ks = scalars([big(1), big(2) % r, 2n ** 256n - 1n, big(3)]);
    const bases = await ctx.prepare(curve, pts, { blind: true });
    expectBytes(await ctx.msm(curve, bases, ks), m.arkworksMsm(curve, pts, ks), "blinded");
    const prefix = ks.subarray(0, 64);
    expectBytes(await ctx.msm(curve, bases, prefix), m.arkworksMsm(curve, pts.subarray(0, 2 * pts.length / 4), prefix), "a prefix");
    const zeros = new Uint8Array(ks.length);
    expectBytes(await ctx.msm(curve, bases, zeros), points(curve, [identity(curve)]), "zero scalars");
    bases.free();
    await expectRejection(ctx.prepare(curve, pts, { blind: 1 }), /^blind must be a boolean$/);
  });
}

/**
 * The whole suite on `curves` (default: every curve of the build), with a context created here.
 * Returns the tally; `log` prints one line per check.
 */
// `more(ctx)`, when given, runs after the curves' checks on the same context (the Node lane runs
// the snarkjs checks there) and returns a tally to add. `sharedContext: false` leaves out the
// check of the top-level msm(), whose context compiles the curve's kernels once more (a minute on
// SwiftShader): the Node lane leaves it to the Deno and Worker lanes. `blankAdapterInfo: true`
// admits an empty `adapterInfo`, where the browser's GPUAdapterInfo is blank (Firefox's vendor,
// architecture, device and description are always empty strings).
export async function runChecks(m, { curves = m.curves(), sizes, log = console.log, more, sharedContext = true, blankAdapterInfo = false } = {}) {
  const tally = new Tally(log);
  await tally.check("curves() lists the known curves", () => {
    const listed = m.curves();
    if (!Array.isArray(listed) || listed.length === 0) throw new Error(`curves() = ${listed}`);
    for (const c of listed) if (!(c in CURVES)) throw new Error(`no constants for curve ${c}`);
    for (const c of curves) if (!listed.includes(c)) throw new Error(`${c} is not in curves() = ${listed}`);
    return listed.join(", ");
  });
  await tally.check("unknown curve rejects", async () => {
    await expectRejection(m.msm("bn255", new Uint8Array(0), new Uint8Array(0)), /^unknown curve "bn255": expected one of /);
    await expectRejection(() => m.randomInputs("bn255", 1, 1n), /^unknown curve "bn255"/);
  });
  let ctx;
  await tally.check("MsmContext.create", async () => {
    ctx = await m.MsmContext.create();
    const described = ctx.adapterInfo.replaceAll("/", "").trim();
    if (!described && !blankAdapterInfo) throw new Error("empty adapterInfo");
    if (ctx.backend !== "BrowserWebGpu") throw new Error(`backend ${ctx.backend}`);
    return `${described ? ctx.adapterInfo : "blank adapterInfo, as the browser's GPUAdapterInfo"} (${ctx.backend})`;
  });
  if (!ctx) return tally;
  try {
    for (const curve of curves) await checkCurve(m, ctx, curve, tally, { sizes });
    // Browsers, Node and Deno expose no 64-bit integers to WebGPU: the 13-bit form, and the
    // default accumulation (the form is not measured, so neither are the accumulations):
    // bls12-377 on its twisted Edwards model, the other curves projective. Every adapter these
    // tests run on is a software GPU (SwiftShader or llvmpipe), told by its name: products
    // batched, and bls12-377's stored points affine.
    await tally.check(`${curves[0]}: warmUp()`, async () => {
      const kernels = await ctx.warmUp(curves[0]);
      const accumulation = curves[0] === "bls12-377" ? "edwards-affine" : "projective";
      if (kernels.limbBits !== 13 || kernels.batched !== true || kernels.accumulation !== accumulation) {
        throw new Error(`kernels ${JSON.stringify(kernels)}`);
      }
      await expectRejection(ctx.warmUp("bn255"), /^unknown curve "bn255"/);
      return JSON.stringify(kernels);
    });
    // The shared context of the top-level msm(), on one curve: it compiles its own pipelines
    // (up to two minutes a curve on SwiftShader), and its validation is the context's.
    if (sharedContext) await tally.check(`${curves[0]}: msm() on the shared context`, async () => {
      const { g } = CURVES[curves[0]];
      expectBytes(await m.msm(curves[0], points(curves[0], [g, g]), scalars([2n, 3n])),
        await ctx.msm(curves[0], points(curves[0], [g]), scalars([5n])), "msm() 2·G + 3·G");
      await expectRejection(m.msm(curves[0], points(curves[0], [offCurve(curves[0])]), scalars([1n])), /^point 0 is not on the curve$/);
    });
    if (more) {
      const extra = await more(ctx);
      tally.passed += extra.passed;
      tally.failed += extra.failed;
    }
  } finally {
    ctx.free();
  }
  return tally;
}
