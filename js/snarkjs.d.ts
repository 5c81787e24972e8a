/** The snarkjs module (or any object with its `curves.getCurveFromName`). */
export interface Snarkjs {
  curves: { getCurveFromName(name: string, options?: object): Promise<unknown> };
}

export type SnarkjsCurve = "bn128" | "bls12381";
export type SnarkjsGroup = "G1" | "G2";

export interface AccelerateOptions {
  /**
   * MSMs over fewer points stay on snarkjs' CPU path. Default: measured once the first group is
   * prepared (snarkjs' CPU against this GPU at 4096 points; Infinity where the GPU is slower
   * there, as on software GPUs). 0 sends every MSM to the GPU. It is also the pending floor:
   * until a group is ready, its MSMs below it (4096 points by default) run on the CPU and larger
   * ones wait for the GPU.
   */
  minPoints?: number;
  /**
   * Which engines and groups to accelerate, prepared (compiled and checked) in the background
   * at once, in this order. Default: both groups of bn128 and bls12381, each prepared only when
   * an MSM (or ready()) first asks for it.
   */
  groups?: Partial<Record<SnarkjsCurve, SnarkjsGroup[]>>;
  /** GPU bytes the cached base sets may hold; least recently used sets are dropped past it. */
  maxGpuBytes?: number;
  /** A context to run on (default: a new one on the default adapter). */
  context?: import("./webgpu_msm.js").MsmContext;
  /** Test mode: every GPU MSM is also computed by snarkjs on the CPU; a difference throws. */
  checkEachCall?: boolean;
  /** Where warnings go (default: console.warn). */
  warn?: (message: string) => void;
}

export interface AcceleratorStats {
  /** `multiExpAffine` calls computed on the GPU, and their points. */
  gpuCalls: number;
  gpuPoints: number;
  /** Calls left to (or fallen back to) snarkjs' CPU path, and their points. */
  cpuCalls: number;
  cpuPoints: number;
  /** Calls that fell back to the CPU after a GPU error (counted in cpuCalls too). */
  fallbacks: number;
  /** Calls compared with the CPU result (checkEachCall), and those that differed (each throws). */
  checked: number;
  mismatches: number;
  /** Base cache: calls on cached bases, uploads, dropped sets, sets and GPU bytes held. */
  cacheHits: number;
  cacheUploads: number;
  cacheEvictions: number;
  cacheSets: number;
  cacheGpuBytes: number;
  /** MSMs that waited for their group's preparation, and the milliseconds they waited in all. */
  waits: number;
  waitedMs: number;
  /** The minPoints in force; null until measured (the first group's preparation). */
  minPoints: number | null;
  /** The groups running on the GPU, e.g. "bn128 G1". */
  accelerated: string[];
  /** The groups whose kernels are compiling or being checked, or queued for it. */
  pending: string[];
  /** The default groups no MSM has asked for yet (nothing of theirs compiled). */
  idle: string[];
  /** Groups left on the CPU because their install check failed, and why. */
  disabled: { curve: SnarkjsCurve; group: SnarkjsGroup; reason: string }[];
}

export interface Accelerator {
  stats(): AcceleratorStats;
  /**
   * Prepares every group not yet prepared and resolves with stats() once all are: compiled and
   * checked (or left on the CPU by its check), and minPoints measured. For apps that want every
   * later MSM on the GPU from the start, or a page that prepares at load and shows when it is done.
   */
  ready(): Promise<AcceleratorStats>;
  /** Puts snarkjs' own multiExpAffine functions back and frees the cached bases. */
  restore(): void;
}

/**
 * Makes snarkjs' own bn128 and bls12381 engines run `G1.multiExpAffine` and
 * `G2.multiExpAffine` on the GPU; snarkjs' provers (groth16, plonk, fflonk) then use it
 * unchanged. Resolves before any kernel compiles: each group is then prepared in the
 * background (those of `groups` at once, in order; by default each at its first MSM), its
 * kernels compiled and checked against snarkjs' CPU result (a mismatch leaves it on the CPU,
 * with a warning); until then its small MSMs run on the CPU and large ones wait for it. A GPU
 * error during a proof falls back to the CPU for that call; bases that are not valid points
 * reject naming the MSM and the point.
 */
export function accelerateSnarkjs(snarkjs: Snarkjs, options?: AccelerateOptions): Promise<Accelerator>;
