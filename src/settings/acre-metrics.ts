/**
 * The metric table's entries for ACRE's trace forms (docs/reward-spec.md
 * §5.2; produced by ../rl/option-shuffle-metrics.ts and ../rl/held-out.ts):
 * OSCR and Acc within each form, the bound-form share, OSCR over the re-asks
 * that moved the letter and OSCR at the paper's decoding. Spread into
 * METRIC_TABLE (./metric-table.ts) in place; kept here for the file size.
 */
import type { MetricDef } from "./metric-def";

export const ACRE_FORM_METRICS = [
  {
    key: "boundRate",
    label: "Index-bound traces",
    unit: "fraction",
    formula:
      "multiple-choice responses whose reasoning (before </think>) names an option letter / multiple-choice responses",
    source: "ACRE §3.3 (index binding: “thus the answer is (C)”); lab metric",
    description:
      "The share of held-out answers whose reasoning names a letter (… is A </think>): a re-ask with the options shuffled keeps that letter, so these traces agree only when the shuffle left it in place. OSCR is about 0.22 + 0.78 × (1 − this share).",
    group: "paper",
    order: 6.51,
    rows: ["eval"],
  },
  {
    key: "oscrBound",
    label: "OSCR, index-bound traces",
    unit: "fraction",
    formula:
      "OSCR among the multiple-choice responses whose reasoning names a letter (absent if none)",
    source: "ACRE eq. 2, split by trace form (lab metric)",
    description:
      "OSCR of the index-bound answers alone: near 5/23 ≈ 0.22 while the re-ask copies the letter, higher once the answer after the reasoning reads the options again.",
    group: "paper",
    order: 6.52,
    rows: ["eval"],
  },
  {
    key: "oscrFree",
    label: "OSCR, free traces",
    unit: "fraction",
    formula:
      "OSCR among the multiple-choice responses whose reasoning names no letter (absent if none)",
    source: "ACRE eq. 2, split by trace form (lab metric)",
    description:
      "OSCR of the answers whose reasoning names no letter: the answer after </think> checks each option again, so a shuffle rarely changes it.",
    group: "paper",
    order: 6.53,
    rows: ["eval"],
  },
  {
    key: "oscrMoved",
    label: "OSCR, moved letter",
    unit: "fraction",
    formula:
      "OSCR among the re-asks whose shuffle put other content at the first answer's letter (absent if none)",
    source: "ACRE eq. 2 over the re-asks that move the answer (lab metric)",
    description:
      "OSCR where copying the letter cannot agree: 0 for a policy that answers by position, 1 for one that answers by content. Plain OSCR has a floor of 5/23 from the shuffles that leave the letter in place.",
    group: "paper",
    order: 6.54,
    rows: ["eval"],
  },
  {
    key: "accBound",
    label: "Acc, index-bound traces",
    unit: "fraction",
    formula:
      "right first answers among the multiple-choice responses whose reasoning names a letter (absent if none)",
    source: "lab metric (ACRE §3.3's index binding, by trace form)",
    description:
      "Held-out accuracy of the index-bound answers alone. Beside the free traces' accuracy it says whether an outcome-only reward has a reason to prefer one form: if the two are equal, it has none.",
    group: "paper",
    order: 6.541,
    rows: ["eval"],
  },
  {
    key: "accFree",
    label: "Acc, free traces",
    unit: "fraction",
    formula:
      "right first answers among the multiple-choice responses whose reasoning names no letter (absent if none)",
    source: "lab metric (ACRE §3.3's index binding, by trace form)",
    description: "Held-out accuracy of the answers whose reasoning names no letter.",
    group: "paper",
    order: 6.542,
    rows: ["eval"],
  },
  {
    key: "oscrGreedy",
    label: "OSCR, greedy (paper decoding)",
    unit: "fraction",
    formula:
      "OSCR with the first answers and the re-asks decoded greedily (ACRE §5.1: τ 0.01, top-p 0.001, i.e. the most likely token)",
    source: "ACRE eq. 2 at ACRE §5.1's evaluation decoding",
    description:
      "OSCR as the paper evaluates it: both answers decoded at temperature 0.01 with top-p 0.001, which keeps only the most likely token (greedy). The plain OSCR beside it samples at the eval temperature.",
    group: "paper",
    order: 6.55,
    rows: ["eval"],
  },
] as const satisfies readonly MetricDef[];
