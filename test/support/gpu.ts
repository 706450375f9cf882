/**
 * One WebGPU device per test file, set up and torn down in one call:
 *
 *   describe("matmul kernels", () => {
 *     const gpu = useGpu(); // beforeAll: device + GpuContext; afterAll: destroy
 *     it("…", async () => { gpu.ctx.run(…); });
 *   });
 *
 * Call it at the top of the describe block whose tests use the device, before
 * that block's own hooks that read `gpu.ctx` (beforeAll hooks run in the order
 * they are registered; afterAll hooks in reverse, so the block's own cleanup
 * runs before the device goes). Without an adapter the beforeAll fails with
 * requestNodeDevice's message, which says what to install (NO_ADAPTER_HELP in
 * src/gpu/device.ts): a GPU test never skips.
 */
import { afterAll, beforeAll } from "vitest";
import { GpuContext } from "../../src/gpu/context";
import { requestNodeDevice } from "../../src/gpu/node-gpu";

/** The device of one test file; `ctx` is readable from its beforeAll to its afterAll. */
export interface GpuHandle {
  /** @throws Error when read outside the hooks and tests of the block that called useGpu. */
  readonly ctx: GpuContext;
}

/**
 * Registers the beforeAll that requests a Node WebGPU device (SwiftShader on a
 * CPU) and wraps it in a GpuContext, and the afterAll that destroys it.
 * @throws (in beforeAll) Error with the install instructions when no adapter is found.
 */
export function useGpu(): GpuHandle {
  let ctx: GpuContext | undefined;
  beforeAll(async () => {
    ctx = new GpuContext(await requestNodeDevice());
  });
  afterAll(() => {
    ctx?.destroy();
    ctx = undefined;
  });
  return {
    get ctx(): GpuContext {
      if (!ctx)
        throw new Error(
          "useGpu: no device here; read gpu.ctx inside a test or a hook of the block that called useGpu()",
        );
      return ctx;
    },
  };
}
