/**
 * Shader sources and small launch helpers for the decode kernels
 * (shaders/decode_*.wgsl, kv_append.wgsl, sample.wgsl, prng.wgsl).
 */
import advanceCode from "../../../shaders/decode_advance.wgsl?raw";
import gatherCode from "../../../shaders/decode_gather.wgsl?raw";
import sampleCode from "../../../shaders/sample.wgsl?raw";
import prngCode from "../../../shaders/prng.wgsl?raw";
import type { GpuContext, Kernel } from "../../gpu/context";

/** Invocations per workgroup of every 1-D decode kernel (must match @workgroup_size(64)). */
export const WG = 64;

/**
 * Workgroup grid for `threads` invocations of a 64-wide kernel; splits into a
 * 2-D grid past the 65535-per-dimension limit (kernels rebuild the linear id
 * as x + y·64·num_workgroups.x).
 */
export function grid(threads: number): [number, number] {
  const groups = Math.max(1, Math.ceil(threads / WG));
  if (groups <= 65535) return [groups, 1];
  return [65535, Math.ceil(groups / 65535)];
}

/**
 * Keeps the `//>>NAME … //<<NAME` blocks whose NAME is in `keep` and drops the
 * other marked blocks (unmarked code is kept); blocks may nest.
 */
export function selectBlocks(code: string, keep: string[]): string {
  const block = /\/\/>>(\w+)\n([\s\S]*?)\/\/<<\1\n/g;
  let prev = "";
  let cur = code;
  while (cur !== prev) {
    prev = cur;
    cur = cur.replace(block, (_m, name: string, body: string) => (keep.includes(name) ? body : ""));
  }
  return cur;
}

export function gatherKernel(ctx: GpuContext): Kernel {
  return ctx.kernel("decode_gather", gatherCode);
}

export function advanceKernel(ctx: GpuContext): Kernel {
  return ctx.kernel("decode_advance", advanceCode);
}

export function sampleKernel(ctx: GpuContext): Kernel {
  return ctx.kernel("sample", `${prngCode}\n${sampleCode}`);
}

/** Raw sources, for compile-message checks in tests. */
export const SOURCES = {
  advanceCode,
  gatherCode,
  sampleCode,
  prngCode,
};
