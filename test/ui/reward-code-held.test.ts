// A written reward that arrives in a shared link is shown and runs only after
// the user presses Run (src/store/reward-code.ts, the store's train/step gate).
import { describe, expect, it, vi } from "vitest";
import { createLabStore, WEIGHT_DEBOUNCE_MS } from "../../src/store/lab-store";
import { heldRewardCode } from "../../src/store/reward-code";
import { decodeExperiment, encodeLink } from "../../src/ui/lib/url-state";
import { DEFAULT_EXPERIMENT, VariantSchema } from "../../src/settings/experiment";
import type { TrainerCommand } from "../../src/workers/protocol";

const code = "function reward(group) {\n  return group.rollouts.map(() => 1);\n}\n";
const withCode = {
  ...DEFAULT_EXPERIMENT,
  variants: [
    ...DEFAULT_EXPERIMENT.variants,
    VariantSchema.parse({ name: "user", weights: { code } }),
  ],
};

describe("a written reward from a link", () => {
  it("the link carries the code, and its experiment holds it", () => {
    const { experiment, error } = decodeExperiment(`#${encodeLink(withCode, null)}`);
    expect(error).toBeNull();
    expect(experiment.variants.find((v) => v.name === "user")?.weights.code).toBe(code);
    expect(heldRewardCode(experiment)).toBe(true);
    // The default code (RLVR in the editor's terms) and an experiment without the variant hold nothing.
    const plain = {
      ...withCode,
      variants: [...DEFAULT_EXPERIMENT.variants, VariantSchema.parse({ name: "user" })],
    };
    expect(heldRewardCode(plain)).toBe(false);
    expect(heldRewardCode(DEFAULT_EXPERIMENT)).toBe(false);
  });

  it("Train and Step send nothing while it is held; after Run they start the trainer", () => {
    const store = createLabStore({ experiment: withCode });
    const sent: TrainerCommand[] = [];
    store.getState().attachTrainer({ send: (c) => sent.push(c) });
    store.setState({ rewardCodeHeld: true });
    store.getState().train();
    store.getState().stepOnce();
    expect(sent).toEqual([]);
    expect(store.getState().errors.map((e) => e.message)).toEqual([
      expect.stringContaining("came with the link and has not run"),
      expect.stringContaining("came with the link and has not run"),
    ]);
    store.getState().runRewardCode();
    store.getState().train();
    expect(sent.map((c) => c.type)).toContain("start");
  });

  it("a link's code that arrives during a run reaches the trainer only after Run", () => {
    vi.useFakeTimers();
    try {
      const plain = {
        ...withCode,
        variants: [...DEFAULT_EXPERIMENT.variants, VariantSchema.parse({ name: "user" })],
      };
      const store = createLabStore({ experiment: plain });
      const sent: TrainerCommand[] = [];
      store.getState().attachTrainer({ send: (c) => sent.push(c) });
      store.getState().train();
      expect(sent.map((c) => c.type)).toEqual(["init", "start"]);
      // The link's code comes in (the editor passes it on as an edit would) and is held.
      store.setState({ rewardCodeHeld: true });
      store.getState().setVariantWeights("user", { code });
      vi.advanceTimersByTime(WEIGHT_DEBOUNCE_MS + 1);
      store.getState().flushWeights();
      expect(sent.map((c) => c.type)).toEqual(["init", "start"]);
      // Run sends it, once, as a live edit.
      store.getState().runRewardCode();
      expect(sent.slice(2)).toEqual([
        expect.objectContaining({ type: "setWeights", variant: "user", weights: { code } }),
      ]);
      store.getState().runRewardCode();
      expect(sent).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });
});
