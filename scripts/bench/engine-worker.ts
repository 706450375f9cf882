/**
 * The worker of the Chromium engine benchmark (scripts/bench/engine-page.ts):
 * the same core timings as Node (scripts/bench/engine-core.ts) on the
 * browser's WebGPU adapter. Posts {log} lines while it runs and one {line}.
 */
import { GpuContext } from "../../src/gpu/context";
import { requestLabDevice } from "../../src/gpu/device";
import { DEFAULT_CONFIG, numPatches, paramLayout } from "../../src/model/config";
import { initParams } from "../../src/model/init";
import { GEN, headline, MM, runEngineCore, TRAIN } from "./engine-core";

self.onmessage = async (ev: MessageEvent) => {
  const { repeats } = ev.data as { repeats: number };
  try {
    const c = DEFAULT_CONFIG;
    const lab = await requestLabDevice(navigator.gpu);
    const ctx = new GpuContext(lab);
    const env = { repeats, log: (log: string) => self.postMessage({ log }) };
    const core = await runEngineCore(env, ctx, c, initParams(c, 1));
    ctx.destroy();
    self.postMessage({
      line: {
        environment: "chromium",
        adapter: lab.adapter.description,
        config: c,
        params: paramLayout(c).count,
        ...headline(core),
        batch: {
          train: { ...TRAIN, T: numPatches(c) + TRAIN.textLen },
          generate: GEN,
          matmul: [MM, MM, MM],
        },
        runs: repeats,
        details: { matmul_ms: core.mm, generate_ms: core.gen, train_step_ms: core.train.t },
        notes: [
          `train loss over the runs: ${core.train.loss.map((l) => l.toFixed(3)).join(" ")}`,
          "tfjs: node only",
        ],
      },
    });
  } catch (e) {
    self.postMessage({ line: { environment: "chromium", error: (e as Error).message } });
  }
};
