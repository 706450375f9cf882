/**
 * The rollout classes (one per training rollout: what the reward paid for)
 * and the credit metrics that follow from them: each class's share, mean
 * reward and mean advantage per RL step, and the within-group contrasts the
 * mechanism claims read (src/rl/credit.ts computes them; docs/reward-spec.md
 * §6 gives the rule). The metric table (src/settings/metric-table.ts) lists
 * these rows beside its fixed ones.
 */
import type { MetricDef } from "./metric-def";

/**
 * The classes every training rollout falls in (one each: the first that
 * applies, in this order; ../rl/rollout-class.ts rolloutClass), with the
 * paper term each mirrors. docs/reward-spec.md §6 gives the rule in full.
 */
export const ROLLOUT_CLASSES = [
  {
    key: "no-answer",
    label: "no answer",
    definition: "No final answer could be parsed (none, or cut off).",
    paperTerm: "GRR §4.1 N/A",
  },
  {
    key: "unsupported",
    label: "unsupported",
    definition:
      "The final answer is not what the trace's own last step concluded (or the trace concludes nothing).",
    // A right answer here is a guess: SCS §3.2 (guessing when the right answer is not reachable), §4.3.
    paperTerm:
      "GRR §4.1 reasoning–answer inconsistency; when right, SCS §4.3 (Fig. 4) lucky-guess case",
  },
  {
    key: "index-bound",
    label: "index-bound",
    definition:
      "Multiple choice: the trace names an option letter right before </think> and the answer copies it.",
    paperTerm: "ACRE §3.3 index-binding effect",
  },
  {
    // Not a guess: the steps conclude the answer; on the lab's tasks mostly a misread that
    // leaves it unchanged (docs/results.md, 2026-12-06). Named `lucky-guess` before 2026-12-06;
    // stored rows are read through src/run/stored-keys.ts.
    key: "flawed-right",
    label: "right, flawed steps",
    definition:
      "Right answer that the trace's own last step concludes, but the steps are not the reference solution's (e.g. a misread that does not change the answer).",
    paperTerm: "ACRE §1 WR–CA (wrong reasoning, correct answer)",
  },
  {
    key: "faithful-right",
    label: "faithful right",
    definition: "Right answer, reasoning the reference solution's.",
    paperTerm: "ACRE §1: right answer, neither WR–CA nor CR–WA",
  },
  {
    key: "faithful-wrong",
    label: "faithful wrong",
    definition: "Wrong answer that the trace's last step does conclude.",
    paperTerm: "GRR §4.1 consistent, incorrect",
  },
] as const satisfies readonly {
  key: string;
  label: string;
  definition: string;
  paperTerm: string;
}[];

/** A rollout class's key. */
export type RolloutClassKey = (typeof ROLLOUT_CLASSES)[number]["key"];

/** What a credit metric of a class measures: its share, mean reward, mean advantage. */
const CREDIT_PARTS = ["share", "reward", "advantage"] as const;
type CreditPart = (typeof CREDIT_PARTS)[number];

/** A credit metric's key, `credit/<class>/<part>`. */
export type CreditMetricKey = `credit/${RolloutClassKey}/${CreditPart}`;

/** The key of a class's credit metric. */
export function creditKey(cls: RolloutClassKey, part: CreditPart): CreditMetricKey {
  return `credit/${cls}/${part}`;
}

/** The credit metrics: three per class (share, mean reward, mean advantage), RL step rows. */
export const CREDIT_METRICS: readonly MetricDef[] = ROLLOUT_CLASSES.flatMap((c, i) => [
  {
    key: creditKey(c.key, "share"),
    label: `Share: ${c.label}`,
    unit: "fraction" as const,
    formula: `rollouts in class '${c.label}' / all rollouts of the step`,
    source: `${c.paperTerm}; lab metric`,
    description: `Share of the step's training rollouts in class '${c.label}': ${c.definition}`,
    group: "credit" as const,
    order: 60 + i * 0.1,
    rows: ["credit" as const],
  },
  {
    key: creditKey(c.key, "reward"),
    label: `Reward: ${c.label}`,
    unit: "reward" as const,
    formula: `mean R_i over the class's scorable rollouts (NaN when none)`,
    source: `${c.paperTerm}; lab metric`,
    description: `Mean total reward the variant paid the step's '${c.label}' rollouts (without a folded KL penalty). ${c.definition}`,
    group: "credit" as const,
    order: 61 + i * 0.1,
    rows: ["credit" as const],
  },
  {
    key: creditKey(c.key, "advantage"),
    label: `Advantage: ${c.label}`,
    unit: "reward" as const,
    formula: `mean A_i over the class's rollouts, as the update used it (NaN when none)`,
    source: `${c.paperTerm}; docs/reward-spec.md §1 (estimators)`,
    description: `Mean advantage the update gave the step's '${c.label}' rollouts, after the estimator (positive: made more likely). ${c.definition}`,
    group: "credit" as const,
    order: 62 + i * 0.1,
    rows: ["credit" as const],
  },
]);

/**
 * The within-group contrasts of right answers the mechanism claims read
 * (../rl/credit.ts contrastSide: which rollouts are on the low and the high
 * side), each with the paper mechanism it tests.
 */
const CONTRAST_TABLE = {
  "wrong-steps": {
    label: "right answer: reference steps − wrong steps",
    source: "SCS §4.3 (Fig. 4) lucky-guess case; StructReward eq. 10 rule term; GRR eq. 3 PRM",
  },
  unsupported: {
    label: "right answer: supported − unsupported",
    source: "GRR §3.2, §4.1",
  },
  shuffle: {
    label: "right answer: same under option shuffle − changed",
    source: "ACRE §4 eq. 3",
  },
  "index-bound": {
    label: "right answer: not index-bound − index-bound",
    source: "ACRE §3.3",
  },
  guess: {
    label: "right answer: faithful right − unsupported (a guess)",
    source:
      "SCS §4.3 (Fig. 4) lucky-guess case: a misread, then an option the steps do not conclude",
  },
} as const;

/** A within-group contrast's name. */
export type ContrastName = keyof typeof CONTRAST_TABLE;
/** The contrasts, in table order. */
export const CONTRASTS = Object.keys(CONTRAST_TABLE) as ContrastName[];
/** What a contrast metric gives: the advantage and reward differences, the groups behind them, the low side's mean advantage. */
export const CONTRAST_PARTS = ["advantage", "reward", "groups", "low"] as const;
type ContrastPart = (typeof CONTRAST_PARTS)[number];
/** A contrast metric's key, `credit/contrast/<name>/<part>`. */
export type ContrastMetricKey = `credit/contrast/${ContrastName}/${ContrastPart}`;

/** The key of a contrast metric. */
export function contrastKey(name: ContrastName, part: ContrastPart): ContrastMetricKey {
  return `credit/contrast/${name}/${part}`;
}

export const CONTRAST_METRICS: readonly MetricDef[] = CONTRASTS.flatMap((name, i) => {
  const c = CONTRAST_TABLE[name];
  const base = {
    source: `${c.source}; lab metric (docs/reward-spec.md §6)`,
    group: "credit" as const,
    rows: ["credit" as const],
  };
  return [
    {
      ...base,
      key: contrastKey(name, "advantage"),
      label: `Advantage gap (${c.label})`,
      unit: "reward" as const,
      formula: "mean over groups with both sides of (mean A high − mean A low)",
      description: `Within each group that has both, how much more advantage the update gave one kind of right answer than the other (${c.label}); averaged over those groups. 0 when the reward pays both alike.`,
      order: 70 + i * 0.1,
    },
    {
      ...base,
      key: contrastKey(name, "reward"),
      label: `Reward gap (${c.label})`,
      unit: "reward" as const,
      formula: "mean over groups with both sides of (mean R high − mean R low)",
      description: `Within each group that has both, how much more reward one kind of right answer got than the other (${c.label}); averaged over those groups.`,
      order: 71 + i * 0.1,
    },
    {
      ...base,
      key: contrastKey(name, "groups"),
      label: `Groups with both sides (${c.label})`,
      unit: "count" as const,
      formula: "groups holding a rollout of each side",
      description: `How many of the step's groups the gap (${c.label}) is measured on.`,
      order: 72 + i * 0.1,
    },
    {
      ...base,
      key: contrastKey(name, "low"),
      label: `Advantage of the low side (${c.label})`,
      unit: "reward" as const,
      formula: "mean A over the step's rollouts on the low side",
      description: `Mean advantage of the right answers on the low side of (${c.label}) over the whole step.`,
      order: 73 + i * 0.1,
    },
  ];
});
