// onnxruntime-web with 2 wasm threads in Node (its own test file: the thread
// count is fixed per process by the first session): the exported policy gives
// the reference logits, and a session asking for 1 thread afterwards is refused.
import { describe, expect, it } from "vitest";
import { initParams } from "../../src/model/init";
import { referenceForward } from "../../src/model/reference";
import { exportPolicyOnnx } from "../../src/onnx/export";
import { createOnnxSession } from "../../src/onnx/session";
import { TINY, tinyBatch } from "../model/tiny";

describe("createOnnxSession with 2 threads", () => {
  it("runs the exported policy with the reference logits; the thread count then stays", async () => {
    const params = initParams(TINY, 21);
    const batch = tinyBatch(TINY, 4, 8, 3, 22);
    const bytes = exportPolicyOnnx(TINY, params);
    const s = await createOnnxSession(bytes, { numThreads: 2 });
    expect(s.numThreads).toBe(2);
    const got = await s.run(batch.images, batch.tokens, 4);
    const ref = referenceForward(TINY, params, batch).logits;
    let d = 0;
    let m = 0;
    for (let i = 0; i < ref.length; i++) {
      d = Math.max(d, Math.abs(got[i] - ref[i]));
      m = Math.max(m, Math.abs(ref[i]));
    }
    expect(d / m).toBeLessThan(1e-5);
    await expect(createOnnxSession(bytes, { numThreads: 1 })).rejects.toThrow(
      "onnxruntime-web's wasm runtime already runs with 2 thread(s) here; it cannot switch to 1 (use another worker or process)",
    );
    await s.release();
  });
});
