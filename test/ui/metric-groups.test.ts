// Which chart goes where: the overview's held-out metrics in the preset's
// order, the rest in the five groups by the metric table's group.
import { describe, expect, it } from "vitest";
import { splitSpecs, type ChartSpec } from "../../src/ui/lib/metric-groups";
import { overviewMetrics } from "../../src/store/lesson";
import { presetExperiment } from "../../src/settings/presets";

const spec = (key: string, kind: "eval" | "train"): ChartSpec => ({ key, testId: key, kind });

describe("metric groups", () => {
  it("splits the overview from held-out, training, rewards, credit and cost", () => {
    const specs = [
      spec("rcAcc", "eval"),
      spec("acc", "eval"),
      spec("incR", "eval"),
      spec("cbir", "eval"),
      spec("train_incr", "train"),
      spec("kl", "train"),
      spec("reward_mean", "train"),
      spec("components/rRank", "train"),
      spec("step_time_ms", "train"),
      spec("submits", "train"),
      spec("aux_loss", "train"),
      spec("credit/flawed-right/advantage", "train"),
    ];
    const { overview, groups } = splitSpecs(specs, ["incR", "rcAcc", "acc"]);
    expect(overview.map((s) => s.key)).toEqual(["incR", "rcAcc", "acc"]);
    expect(groups["held-out"].map((s) => s.key)).toEqual(["cbir"]);
    expect(groups.training.map((s) => s.key)).toEqual(["train_incr", "kl", "aux_loss"]);
    expect(groups.rewards.map((s) => s.key)).toEqual(["reward_mean", "components/rRank"]);
    expect(groups.cost.map((s) => s.key)).toEqual(["step_time_ms", "submits"]);
    expect(groups.credit.map((s) => s.key)).toEqual(["credit/flawed-right/advantage"]);
  });

  it("the overview's metrics: the preset's, else RC-Acc, IncR, Acc (and OSCR on multiple choice)", () => {
    expect(overviewMetrics("acre-paper", presetExperiment("acre-paper"))).toEqual([
      "oscr",
      "acc",
      "cacr",
    ]);
    expect(overviewMetrics(null, presetExperiment("default"))).toEqual(["rcAcc", "incR", "acc"]);
    expect(overviewMetrics(null, presetExperiment("scs-paper"))).toEqual([
      "rcAcc",
      "incR",
      "acc",
      "oscr",
    ]);
  });
});
