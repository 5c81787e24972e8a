/** The snarkjs module (or any object with its `curves.getCurveFromName`). */
export interface Snarkjs {
  curves: { getCurveFromName(name: string, options?: object): Promise<unknown> };
}

export type SnarkjsCurve = "bn128" | "bls12381";
export type SnarkjsGroup = "G1" | "G2";

export interface AccelerateOptions {
  /**
   * MSMs over fewer points stay on snarkjs' CPU path. Default: measured at install (snarkjs'
   * CPU against this GPU at 4096 points; Infinity where the GPU is slower there, as on
   * software GPUs). 0 sends every MSM to the GPU.
   */
  minPoints?: number;
  /** Which engines and groups to accelerate (default: both groups of bn128 and bls12381). */
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
  /** The minPoints in force. */
  minPoints: number;
  /** The groups running on the GPU, e.g. "bn128 G1". */
  accelerated: string[];
  /** Groups left on the CPU because their install check failed, and why. */
  disabled: { curve: SnarkjsCurve; group: SnarkjsGroup; reason: string }[];
}

export interface Accelerator {
  stats(): AcceleratorStats;
  /** Puts snarkjs' own multiExpAffine functions back and frees the cached bases. */
  restore(): void;
}

/**
 * Makes snarkjs' own bn128 and bls12381 engines run `G1.multiExpAffine` and
 * `G2.multiExpAffine` on the GPU; snarkjs' provers (groth16, plonk, fflonk) then use it
 * unchanged. Each group is checked at install against snarkjs' CPU result (a mismatch leaves
 * it on the CPU, with a warning). A GPU error during a proof falls back to the CPU for that
 * call; bases that are not valid points reject naming the MSM and the point.
 */
export function accelerateSnarkjs(snarkjs: Snarkjs, options?: AccelerateOptions): Promise<Accelerator>;
