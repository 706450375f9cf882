/**
 * Titles and plain-language explanations of the metrics the trainer sends
 * (docs/reward-spec.md §1, §2 "Metrics", §5). The trainer may send any key; known ones
 * (matched loosely: case, `_`, `-`, `/` ignored) get a proper title, unknown
 * ones are still plotted under their own name.
 */

export type MetricGroup = "paper" | "reward" | "component" | "health" | "cost" | "other";

export interface MetricMeta {
  title: string;
  description: string;
  group: MetricGroup;
  /** Lower sorts first; RC-Acc (the primary metric) is 0. */
  order: number;
}

const KNOWN: Record<string, MetricMeta> = {
  rcacc: {
    title: "RC-Acc (primary)",
    group: "paper",
    order: 0,
    description:
      "Reasoning-consistent accuracy = Acc − CBIR: answers that are right AND supported by their own reasoning. The GRR paper's primary metric; higher is better.",
  },
  acc: {
    title: "Acc",
    group: "paper",
    order: 1,
    description:
      "Accuracy on the held-out eval set (greedy decoding): correct final answers / all.",
  },
  incr: {
    title: "IncR",
    group: "paper",
    order: 2,
    description:
      "Inconsistency rate: responses whose reasoning implies a different answer than the one given / responses with a valid answer. Lower is better.",
  },
  cbir: {
    title: "CBIR",
    group: "paper",
    order: 3,
    description:
      "Correct-but-inconsistent rate: right answer, reasoning that does not support it / all. The 'right answer, wrong reasoning' case.",
  },
  cacr: {
    title: "CACR",
    group: "paper",
    order: 4,
    description:
      "Consistent-answer rate (ACRE): responses judged consistent / all; no answer counts as not consistent.",
  },
  oscr: {
    title: "OSCR",
    group: "paper",
    order: 5,
    description:
      "Option-shuffle consistency (ACRE): same answer content after the options are shuffled, same trace.",
  },
  hintfollow: {
    title: "Hint follow",
    group: "paper",
    order: 6,
    description:
      "Shortcut rate (lab metric): of the held-out questions whose leaked hint is wrong, the share whose final answer copies the hint instead of the model's own steps. Outcome-only RL pays for copying a hint that is usually right; reasoning-aware rewards do not.",
  },
  trainincr: {
    title: "IncR (rollouts)",
    group: "paper",
    order: 7,
    description:
      "IncR of this step's sampled training rollouts (not the held-out set): the drift shows here every step, between held-out evals.",
  },
  traincbir: {
    title: "CBIR (rollouts)",
    group: "paper",
    order: 8,
    description:
      "CBIR of this step's sampled training rollouts: right answer, reasoning that does not support it.",
  },
  trainrcacc: {
    title: "RC-Acc (rollouts)",
    group: "paper",
    order: 7.5,
    description: "RC-Acc of this step's sampled training rollouts.",
  },
  trainhintfollow: {
    title: "Hint follow (rollouts)",
    group: "paper",
    order: 8.5,
    description:
      "Of this step's rollouts whose question leaks a wrong hint, the share that box the hint.",
  },
  trainstepacc: {
    title: "Step accuracy (rollouts)",
    group: "paper",
    order: 9,
    description: "Share of digit-reading steps with the true value in this step's rollouts.",
  },
  stepacc: {
    title: "Step accuracy",
    group: "paper",
    order: 5.5,
    description:
      "Held-out: share of the digit-reading steps whose box holds the true digit (greedy).",
  },
  rewardmean: {
    title: "Reward mean",
    group: "reward",
    order: 10,
    description: "Mean total reward R over the step's rollouts.",
  },
  rewardstd: {
    title: "Reward std",
    group: "reward",
    order: 11,
    description:
      "Std of the total reward within groups: GRPO needs spread inside a group to learn anything.",
  },
  fracrewardzerostd: {
    title: "Zero-std groups",
    group: "health",
    order: 30,
    description:
      "frac_reward_zero_std: fraction of groups where all G rollouts got the same reward, so every advantage is 0 and the group teaches nothing.",
  },
  fracunscorable: {
    title: "Unscorable rollouts",
    group: "health",
    order: 31,
    description:
      "frac_unscorable: rollouts whose reward was missing or not finite; left out of the statistics with advantage 0.",
  },
  judgefailures: {
    title: "Judge failures",
    group: "health",
    order: 32,
    description:
      "Judge replies that could not be parsed or repaired; that group's judge term is 0.",
  },
  kl: {
    title: "KL to reference",
    group: "health",
    order: 33,
    description:
      "KL(π_θ ‖ π_ref), k3 estimator: how far the policy moved from the cold-start (SFT) model. β in the loss pulls it back.",
  },
  entropy: {
    title: "Entropy",
    group: "health",
    order: 34,
    description:
      "Mean per-token entropy of the policy: falling entropy = the model becomes more certain (less exploration).",
  },
  loss: {
    title: "Policy loss",
    group: "health",
    order: 35,
    description: "The clipped policy-gradient surrogate plus β·KL.",
  },
  gradnorm: {
    title: "Grad norm",
    group: "health",
    order: 36,
    description: "Gradient norm before clipping.",
  },
  clipfrac: {
    title: "Clip fraction",
    group: "health",
    order: 37,
    description: "Fraction of tokens whose ratio ρ was clipped to [1−ε, 1+ε].",
  },
  responselength: {
    title: "Response length",
    group: "cost",
    order: 40,
    description: "Mean rollout length in tokens.",
  },
  steptime: {
    title: "Step time",
    group: "cost",
    order: 41,
    description: "Wall-clock seconds per RL step (all variants of the step).",
  },
  judgecalls: {
    title: "Judge calls",
    group: "cost",
    order: 42,
    description: "Judge calls per step: pointwise GR makes G per group, GRR one per group.",
  },
  rver: {
    title: "r_ver (verifier)",
    group: "component",
    order: 20,
    description: "1 if the final answer matches the ground truth, else 0.",
  },
  rrank: {
    title: "r_rank (GRR)",
    group: "component",
    order: 21,
    description:
      "Groupwise ranking reward: the passed rollout's tier score s̃ minus the mean s̃ over passed rollouts, in [−0.5, 0.5].",
  },
  rgr: {
    title: "r_gr (pointwise judge)",
    group: "component",
    order: 22,
    description: "Pointwise judge score in [0, 1] (anchored levels 1, .8, .5, .2, 0).",
  },
  judgescore: {
    title: "Judge score",
    group: "component",
    order: 22,
    description: "Pointwise judge score in [0, 1] (anchored levels 1, .8, .5, .2, 0).",
  },
  rprm: {
    title: "r_prm",
    group: "component",
    order: 23,
    description: "Process reward model: mean of the step labels (+ = 1, − = 0).",
  },
  rfmt: {
    title: "R_fmt (StructReward)",
    group: "component",
    order: 24,
    description:
      "1 iff the response has exactly one think block, steps numbered 1, 2, … each with a boxed local result, and a separate final answer.",
  },
  rright: {
    title: "R_right (StructReward)",
    group: "component",
    order: 25,
    description: "1 iff the final answer is right.",
  },
  rrule: {
    title: "R_rule (StructReward)",
    group: "component",
    order: 26,
    description:
      "Fraction of the generated steps that match a reference step (in order, one-to-one).",
  },
  rcons: {
    title: "R_cons (StructReward)",
    group: "component",
    order: 27,
    description: "1 iff the last local result equals the final answer.",
  },
};

const PREFIXES = [
  "components",
  "component",
  "comp",
  "reward",
  "rewards",
  "eval",
  "train",
  "charts",
  "metrics",
];

/** Lower-case alphanumerics only: `frac_reward_zero_std` → `fracrewardzerostd`. */
export function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** Meta for a metric key, or a generic one naming the key. */
export function metricMeta(key: string): MetricMeta {
  const n = normalizeKey(key);
  if (KNOWN[n]) return KNOWN[n];
  const segs = key.toLowerCase().split(/[/.:]/);
  if (segs.length > 1 && PREFIXES.includes(segs[0])) {
    const rest = normalizeKey(segs.slice(1).join(""));
    if (KNOWN[rest]) return KNOWN[rest];
    if (segs[0].startsWith("comp"))
      return {
        title: key,
        group: "component",
        order: 28,
        description: `Reward component '${segs.slice(1).join("/")}'.`,
      };
  }
  if (/^r_|^r[A-Z]/.test(key))
    return { title: key, group: "component", order: 28, description: `Reward component '${key}'.` };
  return {
    title: key,
    group: "other",
    order: 90,
    description: `Metric '${key}' as sent by the trainer.`,
  };
}

/** Sorts metric keys: known ones by their order (RC-Acc first), then the rest by name. */
export function sortMetricKeys(keys: readonly string[]): string[] {
  return [...keys].sort((a, b) => metricMeta(a).order - metricMeta(b).order || a.localeCompare(b));
}
