/**
 * Cold-start resolution (src/run/cold-start.ts), the one function the trainer
 * and the CLI use: adapter → model size, the task form a checkpoint was
 * trained on, its model config, the hint note. No GPU: the adapter is
 * described, the checkpoints are the shipped files.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/cli/node-run";
import { loadCheckpoint } from "../../src/model/checkpoint";
import { checkpointPath } from "../../src/settings/checkpoints";
import { resolveColdStart, type SourcedCheckpoint } from "../../src/run/cold-start";
import { parseExperiment, type Experiment } from "../../src/settings/experiment";
import { loadMnistSubsetNode } from "../../src/tasks/mnist-data-node";

const mnist = loadMnistSubsetNode();
const CPU = { description: "SwiftShader", isFallback: true };
const GPU = { description: "a discrete GPU", isFallback: false };
const open = parseExperiment({ task: { hintRate: 0, traceSlipRate: 0 }, evalSize: 4 });

function file(path: string): SourcedCheckpoint {
  const bytes = new Uint8Array(readFileSync(join(REPO_ROOT, "public", path)));
  return { checkpoint: loadCheckpoint(bytes), source: path };
}
const shipped = (exp: Experiment) => file(checkpointPath(exp));

describe("resolveColdStart", () => {
  it("gives a CPU adapter the small model (unless kept) and reads the checkpoint for the size it picked", async () => {
    const asked: string[] = [];
    const read = (exp: Experiment) => {
      asked.push(exp.modelSize);
      return shipped(exp);
    };
    const cpu = await resolveColdStart({
      experiment: open,
      adapter: CPU,
      mnist,
      readCheckpoint: read,
    });
    expect(cpu.experiment.modelSize).toBe("small");
    expect(cpu.sizeNote).toContain("SwiftShader");
    expect(cpu.checkpoint?.source).toBe("checkpoints/sft-digits2-open-small.ckpt");
    expect(cpu.config).toEqual(cpu.checkpoint?.checkpoint.config);
    expect(cpu.notes).toEqual([]);

    const kept = await resolveColdStart({
      experiment: open,
      adapter: CPU,
      keepModelSize: true,
      mnist,
      readCheckpoint: read,
    });
    const gpu = await resolveColdStart({
      experiment: open,
      adapter: GPU,
      mnist,
      readCheckpoint: read,
    });
    for (const r of [kept, gpu]) {
      expect(r.experiment.modelSize).toBe("default");
      expect(r.sizeNote).toBeUndefined();
      expect(r.checkpoint?.source).toBe("checkpoints/sft-digits2-open-default.ckpt");
    }
    expect(asked).toEqual(["small", "default", "default"]);

    const none = await resolveColdStart({
      experiment: open,
      adapter: GPU,
      mnist,
      readCheckpoint: () => null,
    });
    expect(none.checkpoint).toBeNull();
    expect(none.config.dModel).toBe(kept.config.dModel);
  });

  it("refuses a checkpoint of another task form or model config, and notes differing hints", async () => {
    const small = parseExperiment({ ...open, modelSize: "small" });
    await expect(
      resolveColdStart({
        experiment: small,
        adapter: GPU,
        mnist,
        readCheckpoint: () => file("checkpoints/sft-digits2-mc-small.ckpt"),
      }),
    ).rejects.toThrow(
      "the checkpoint checkpoints/sft-digits2-mc-small.ckpt was trained on the multiple-choice task; this experiment runs the open-ended one",
    );
    await expect(
      resolveColdStart({
        experiment: small,
        adapter: GPU,
        mnist,
        readCheckpoint: () => file("checkpoints/sft-digits2-open-default.ckpt"),
      }),
    ).rejects.toThrow(
      /sft-digits2-open-default\.ckpt: checkpoint config .* does not match this task's model/,
    );
    const hinted = await resolveColdStart({
      experiment: small,
      adapter: GPU,
      mnist,
      readCheckpoint: () => file("checkpoints/sft-digits2-open-hint-small.ckpt"),
    });
    expect(hinted.notes).toEqual([
      "note: the cold start was trained with answer hints; this run's questions carry no hints (hint rate 0)",
    ]);
  });
});
