/**
 * A live setting is checked once, where it enters the trainer, with one
 * message whichever way it came: the page (the store's debounced
 * `setWeights` command, taken by the run controller's entry,
 * applyVariantPatch) or the CLI (`--set grr.lambda=99`, applyVariantSetting).
 * The GPU test test/controller/run-controller.test.ts sends the same command
 * to a running controller and gets the same message as an error event.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLabStore, WEIGHT_DEBOUNCE_MS } from "../../src/store/lab-store";
import { findVariant, parseExperiment } from "../../src/settings/experiment";
import { applyVariantPatch, applyVariantSetting } from "../../src/settings/variant-settings";
import { variantEntry } from "../../src/settings/variant-table";
import { sliderRange } from "../../src/settings/weight-controls";
import type { TrainerCommand } from "../../src/workers/protocol";

const TOO_BIG = "grr.weights.lambda: Too big: expected number to be <=10";

describe("a live setting out of range", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is refused at the entry with one message from the page and from the CLI", () => {
    const experiment = parseExperiment({ variants: [{ name: "rlvr" }, { name: "grr" }] });
    // The page: the store sends the slider's value as a typed setWeights command.
    const sent: TrainerCommand[] = [];
    const store = createLabStore({ experiment });
    store.getState().attachTrainer({ send: (c) => sent.push(c) });
    store.getState().init();
    store.getState().setVariantWeights("grr", { lambda: 99 });
    vi.advanceTimersByTime(WEIGHT_DEBOUNCE_MS + 1);
    const cmd = sent.find((c) => c.type === "setWeights");
    if (cmd?.type !== "setWeights") throw new Error("the store sent no setWeights");
    expect(cmd.weights).toMatchObject({ lambda: 99 });
    // The controller's entry: the command applied to the run's config of that variant.
    const current = experiment.variants.find((v) => v.name === cmd.variant)!;
    expect(() => applyVariantPatch(current, cmd)).toThrow(TOO_BIG);
    let page = "";
    try {
      applyVariantPatch(current, cmd);
    } catch (e) {
      page = (e as Error).message;
    }
    expect(page).toBe(TOO_BIG);
    // The CLI: the same message, after the flag it came from.
    expect(() => applyVariantSetting(experiment.variants, "grr.lambda=99")).toThrow(
      `'grr.lambda=99': ${TOO_BIG}`,
    );
  });

  it("in range, both ways give the same parsed config", () => {
    const experiment = parseExperiment({ variants: [{ name: "grr" }] });
    const viaPage = applyVariantPatch(findVariant(experiment, "grr")!, {
      weights: { lambda: 2.5 },
      judge: { sigmaJ: 0.2 },
    });
    const viaCli = applyVariantSetting(
      applyVariantSetting(experiment.variants, "grr.lambda=2.5"),
      "grr.sigmaJ=0.2",
    )[0];
    expect(viaPage).toEqual(viaCli);
    expect(findVariant({ variants: [viaPage] }, "grr")!.weights.lambda).toBe(2.5);
  });

  it("the page's slider stops inside the schema's range: λ 0–3 of the schema's 0–10", () => {
    expect(variantEntry("grr").ranges.lambda).toEqual({ min: 0, max: 10, integer: false });
    expect(sliderRange("grr", "lambda")).toEqual({ min: 0, max: 3, step: 0.01 });
    // SCS's k: the slider is the schema's whole range; m counts in steps of 1 from the schema's 1.
    expect(sliderRange("scs", "k")).toEqual({ min: 0, max: 1, step: 0.01 });
    expect(sliderRange("scs", "m")).toEqual({ min: 1, max: 8, step: 1 });
    expect(() => sliderRange("grr", "mapping")).toThrow(/grr has no number weight 'mapping'/);
  });

  it("a new estimator moves SCS's k and m at the entry, as --set does", () => {
    const experiment = parseExperiment({ variants: [{ name: "scs" }] });
    const scs = findVariant(experiment, "scs")!;
    const moved = applyVariantPatch(scs, { estimator: "grpo" });
    expect([moved.weights.k, moved.weights.m]).toEqual([0.4, 8]);
    const kept = applyVariantPatch(scs, { estimator: "grpo", weights: { k: 0.6 } });
    expect([kept.weights.k, kept.weights.m]).toEqual([0.6, 8]);
  });
});
