// The trainer worker's "Export ONNX" (src/workers/onnx-export.ts) in Node: the
// snapshot's policy of the variant becomes a file whose logits in
// onnxruntime-web are the reference forward's; a run without a snapshot or
// without the variant gives a clear error; the page's event reducer logs it.
import { describe, expect, it } from "vitest";
import { SMALL_CONFIG } from "../../src/model/config";
import { initParams } from "../../src/model/init";
import { referenceForward } from "../../src/model/reference";
import { createOnnxSession } from "../../src/onnx/session";
import { parseExperiment } from "../../src/settings/experiment";
import type { RunSnapshot } from "../../src/run/snapshot";
import { exportVariantOnnx } from "../../src/workers/onnx-export";
import { asTrainerCommand, asTrainerEvent } from "../../src/workers/protocol";
import { tinyBatch } from "../model/tiny";

const reference = initParams(SMALL_CONFIG, 1);
const grr = initParams(SMALL_CONFIG, 2);
const policy = (key: string, seed: number, params: Float32Array) => ({
  key,
  seed,
  params,
  m: new Float32Array(params.length),
  v: new Float32Array(params.length),
  t: 0,
  skipStreak: 0,
});
const snap: RunSnapshot = {
  experiment: parseExperiment({
    modelSize: "small",
    variants: [{ name: "rlvr" }, { name: "grr" }],
  }),
  config: SMALL_CONFIG,
  step: 3,
  elapsed: 1,
  reference,
  policies: [policy("rlvr", 1, reference), policy("grr", 1, grr)],
};

describe("exportVariantOnnx", () => {
  it("exports the variant's own parameters, runs them once, and says what it ran", async () => {
    const r = await exportVariantOnnx(snap, "grr", { numThreads: 1 });
    expect(r).toMatchObject({ variant: "grr", seed: 1, step: 3, probe: { numThreads: 1 } });
    expect(r.probe.maxAbsLogit).toBeGreaterThan(0);
    const batch = tinyBatch(SMALL_CONFIG, 2, 20, 10, 8);
    const s = await createOnnxSession(r.bytes);
    const got = await s.run(batch.images, batch.tokens, 2);
    await s.release();
    const want = referenceForward(SMALL_CONFIG, grr, batch).logits;
    const other = referenceForward(SMALL_CONFIG, reference, batch).logits;
    let d = 0;
    let dOther = 0;
    let m = 0;
    for (let i = 0; i < want.length; i++) {
      d = Math.max(d, Math.abs(got[i] - want[i]));
      dOther = Math.max(dOther, Math.abs(got[i] - other[i]));
      m = Math.max(m, Math.abs(want[i]));
    }
    expect(d / m).toBeLessThan(1e-4);
    expect(dOther / m).toBeGreaterThan(1e-2); // not the rlvr policy's weights
  });

  it("names what is missing", async () => {
    await expect(exportVariantOnnx(null, "grr", {})).rejects.toThrow(
      "Nothing to export yet: the run has not started (press Train or Step).",
    );
    await expect(exportVariantOnnx(snap, "acre", {})).rejects.toThrow(
      "No policy 'acre' in the run (it has rlvr, grr)",
    );
  });

  it("the protocol knows the command and the event", () => {
    expect(asTrainerCommand({ type: "exportOnnx", variant: "grr" }).type).toBe("exportOnnx");
    expect(asTrainerEvent({ type: "onnx" }).type).toBe("onnx");
  });
});
