import { describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { defineKernel } from "../../src/gpu/kernel-spec";

// A two-line kernel: out[i] = a[i] * p.scale + i, on a size that is not a multiple of 64.
const SCALE = defineKernel({
  name: "test.scale",
  source: /* wgsl */ `
@compute @workgroup_size(WG) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x >= p.n) { return; }
  out[g.x] = a[g.x] * p.scale + f32(g.x);
}`,
  uniforms: { n: "u32", scale: "f32" },
  bindings: { a: ["read", "f32"], out: ["read_write", "f32"] },
  workgroupSize: 64,
  grid: { kind: "x", threads: (u) => u.n },
});

describe("GpuContext", () => {
  const gpu = useGpu();

  it("runs a prepared dispatch, rewrites its params, and reads back", async () => {
    const n = 1000;
    const a = gpu.ctx.createBufferFrom(
      "a",
      Float32Array.from({ length: n }, (_, i) => i * 0.5),
    );
    const out = gpu.ctx.createBuffer("out", n * 4);
    const call = SCALE.call(gpu.ctx, { a, out }, { n, scale: 2 });
    gpu.ctx.run(call);
    const r1 = await gpu.ctx.readF32(out);
    expect(r1[999]).toBeCloseTo(999 * 0.5 * 2 + 999, 3);
    call.set({ scale: -1 });
    gpu.ctx.run(call);
    const before = gpu.ctx.stats.buffersCreated;
    const r2 = await gpu.ctx.readF32(out);
    expect(r2[10]).toBeCloseTo(-5 + 10, 5);
    expect(gpu.ctx.stats.buffersCreated).toBe(before); // staging reused
  });

  it("names the buffer and the limit when a buffer is too large", () => {
    const limit = gpu.ctx.adapter.limits.maxStorageBufferBindingSize;
    expect(() => gpu.ctx.createBuffer("huge.activations", limit + 1024)).toThrow(
      /huge\.activations.*maxStorageBufferBindingSize/,
    );
  });
});

describe("without an adapter", () => {
  it("fails and says what to install (never skips)", async () => {
    const { requestLabDevice } = await import("../../src/gpu/device");
    await expect(requestLabDevice(undefined)).rejects.toThrow(
      /install Debian's `chromium` and `libvulkan1`/,
    );
    const noAdapter = { requestAdapter: async () => null } as unknown as GPU;
    await expect(requestLabDevice(noAdapter)).rejects.toThrow(/No WebGPU adapter found/);
  });
});
