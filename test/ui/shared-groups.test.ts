// Which groups the token view shows side by side (src/ui/lib/shared-groups.ts):
// at step 1 the other variants' copy of the same question, seed and rollouts
// (each variant numbers its prompts itself, so the prompt ids differ);
// nothing after step 1, and nothing when a rollout's text differs.
import { describe, expect, it } from "vitest";
import type { GroupView } from "../../src/rl/step-types";
import { sharedGroups } from "../../src/ui/lib/shared-groups";

function group(
  variant: string,
  step: number,
  texts: string[],
  question = "sum?",
  seed = 31,
): GroupView {
  return {
    variant,
    step,
    promptId: `${variant}/${question}`,
    seed,
    question,
    options: null,
    answer: "9",
    image: { data: new Float32Array(4), height: 2, width: 2, channels: 1 },
    rollouts: texts.map((text) => ({
      text,
      total: 1,
      components: {},
      verifierPassed: true,
      judgment: "consistent" as const,
      advantage: 0,
    })),
  };
}

describe("shared groups", () => {
  const texts = ["<think> Step 1: 4 </think> 9", "<think> Step 1: 5 </think> 9"];
  it("finds the other variants' copy of a step-1 group", () => {
    const g = group("rlvr", 1, texts);
    const scs = group("scs", 1, texts);
    const byVariant = {
      rlvr: [g],
      scs: [group("scs", 1, texts, "difference?"), scs],
      grr: [group("grr", 1, [texts[0], "other"])],
    };
    const found = sharedGroups(g, byVariant);
    expect(found.length).toBe(1);
    expect(found[0]).toBe(scs);
  });

  it("finds none after step 1, nor under another seed", () => {
    const g = group("rlvr", 2, texts);
    expect(sharedGroups(g, { rlvr: [g], scs: [group("scs", 2, texts)] })).toEqual([]);
    const h = group("rlvr", 1, texts);
    expect(sharedGroups(h, { rlvr: [h], scs: [group("scs", 1, texts, "sum?", 32)] })).toEqual([]);
  });
});
