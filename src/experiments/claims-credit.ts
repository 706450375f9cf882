/**
 * The mechanism claims: what each paper's reward pays, read off the training
 * rollouts of RL steps 1–5 of each seed (docs/reward-spec.md §6; statistic
 * decided 2026-12-06, docs/results.md). Each compares two kinds of right
 * answer WITHIN the groups that hold both (src/rl/credit.ts, the
 * `credit/contrast/<name>/<part>` values of the step rows), so a group's
 * composition does not decide it, and each is paired per seed with outcome-
 * only RLVR on the same prompts, which pays every right answer alike (its
 * gap is 0 up to the format term), as the control.
 */
import type { MetricRow } from "../run/run-types";
import type { ContrastName } from "../settings/credit-table";
import { contrastKey } from "../settings/credit-table";
import type { ClaimInputs, Comparison } from "./claim-values";
import type { VariantName } from "../settings/experiment";

/** The RL steps the mechanism claims read: 1–5 (the first five updates of every arm). */
const MECHANISM_STEPS = 5;

/**
 * An arm's within-group gap of `name` over RL steps 1–MECHANISM_STEPS of a
 * seed: Σ_s gap_s·groups_s / Σ_s groups_s (the mean over every group of
 * those steps that holds both sides). `part` "low" is instead the mean
 * over the steps of the low side's mean advantage (each step one weight).
 * @throws Error naming the arm, seed and contrast when no such group exists.
 */
export function pooledGap(
  rows: readonly MetricRow[],
  arm: string,
  seed: number,
  name: ContrastName,
  part: "advantage" | "reward" | "low",
): number {
  let sum = 0;
  let groups = 0;
  for (const r of rows) {
    if (r.kind !== "train" || r.variant !== arm || r.seed !== seed) continue;
    if (r.step < 1 || r.step > MECHANISM_STEPS) continue;
    const n = part === "low" ? 1 : (r.values[contrastKey(name, "groups")] ?? 0);
    const v = r.values[contrastKey(name, part)];
    if (n > 0 && v !== undefined && Number.isFinite(v)) {
      sum += v * n;
      groups += n;
    }
  }
  if (groups === 0)
    throw new Error(
      `claims: no ${part === "low" ? "rollout" : "group"} of ${arm} (seed ${seed}) in RL steps 1–${MECHANISM_STEPS} ${part === "low" ? "is on the low side" : "holds both sides"} of '${name}'`,
    );
  return sum / groups;
}

/**
 * A comparison of within-group gaps: `a`'s pooled gap minus `b`'s (paired
 * per seed), or `a`'s alone when `b` is null.
 */
function gapComparison(spec: {
  name: ContrastName;
  part: "advantage" | "reward" | "low";
  a: string;
  b: string | null;
  direction: 1 | -1;
  label: string;
}): Comparison {
  return {
    label: spec.label,
    series: spec.label,
    direction: spec.direction,
    paperEffect: null,
    perSeed: ({ rows }: ClaimInputs, seed: number) =>
      pooledGap(rows, spec.a, seed, spec.name, spec.part) -
      (spec.b === null ? 0 : pooledGap(rows, spec.b, seed, spec.name, spec.part)),
  };
}

/** Ids of the mechanism claims (part of CLAIM_IDS, ./claims.ts). */
export const MECHANISM_CLAIM_IDS = [
  "scs-pays-faithful",
  "scs-pays-guesses",
  "grr-ranks-support",
  "acre-pays-content",
  "structreward-rule",
  "prm-steps",
] as const;

/** A mechanism claim: the fields of ClaimSpec (./claims.ts) it sets. */
interface MechanismClaim {
  id: (typeof MECHANISM_CLAIM_IDS)[number];
  paper: string;
  statement: string;
  paper_figure: string;
  metric: string;
  variants: VariantName[];
  stability: false;
  runs?: ("scs" | "acre")[];
  rlSteps: number;
  comparisons: Comparison[];
}

/**
 * The six mechanism claims, in CLAIM_IDS order; their statistic and
 * threshold (a 95 % t-interval over seeds on the paper's side of 0, the
 * claims' rule) were decided before any run of them (docs/results.md).
 */
export const MECHANISM_CLAIMS: readonly MechanismClaim[] = [
  {
    id: "scs-pays-faithful",
    paper: "SCS",
    statement:
      "SCS pays a lucky guess less than a faithful answer: within a group, a right answer with wrong steps gets a lower advantage than a right answer with the reference steps (RLOO pays them alike), and a lower advantage than RLOO gives it.",
    paper_figure:
      "SCS Abstract: “unfaithful trajectories that guess the correct option after a faulty chain of thought receive the same reward as genuine reasoning … agreement among the resulting trajectories yields a differentiable consistency score that down‑weights unreliable traces during policy updates”",
    metric:
      "within-group advantage gap (right answer with reference steps − with wrong steps), RL steps 1–5, RLOO + SCS minus RLOO; RLOO's mean advantage of right answers with wrong steps minus SCS's (SCS scenario, per seed)",
    variants: ["rlvr", "scs"],
    stability: false,
    runs: ["scs"],
    rlSteps: MECHANISM_STEPS,
    comparisons: [
      gapComparison({
        name: "wrong-steps",
        part: "advantage",
        a: "scs",
        b: "rlvr",
        direction: 1,
        label: "SCS − RLOO, within-group advantage gap (reference steps − wrong steps)",
      }),
      gapComparison({
        name: "wrong-steps",
        part: "low",
        a: "rlvr",
        b: "scs",
        direction: 1,
        label: "RLOO − SCS, mean advantage of right answers with wrong steps",
      }),
    ],
  },
  {
    // Fixed 2026-12-06 14:35 UTC (docs/results.md), after scs-pays-faithful's low side turned out to be mostly
    // misreads that do not change the answer: the low side here is the guess itself, run on seeds 307–312.
    id: "scs-pays-guesses",
    paper: "SCS",
    statement:
      "SCS pays a guess less than a faithful answer: within a group, a right answer its own steps do not conclude gets a lower advantage than a faithful right answer (RLOO pays them alike), and a lower advantage than RLOO gives it.",
    paper_figure:
      "SCS §4.3 with Fig. 4: “a lucky-guess case: the model fails to perceive the gradations of color in the image; instead, it hallucinates a non-existent point and happens to guess the correct answer. These fake successes still receive full reward, so the policy continues to reinforce unreliable chains of thought.”",
    metric:
      "within-group advantage gap (faithful right − right answer the trace does not conclude), RL steps 1–5, RLOO + SCS minus RLOO; RLOO's mean advantage of right answers the trace does not conclude minus SCS's (SCS scenario, per seed)",
    variants: ["rlvr", "scs"],
    stability: false,
    runs: ["scs"],
    rlSteps: MECHANISM_STEPS,
    comparisons: [
      gapComparison({
        name: "guess",
        part: "advantage",
        a: "scs",
        b: "rlvr",
        direction: 1,
        label: "SCS − RLOO, within-group advantage gap (faithful right − unsupported right)",
      }),
      gapComparison({
        name: "guess",
        part: "low",
        a: "rlvr",
        b: "scs",
        direction: 1,
        label: "RLOO − SCS, mean advantage of unsupported right answers",
      }),
    ],
  },
  {
    id: "grr-ranks-support",
    paper: "GRR",
    statement:
      "GRR ranks a right answer its own steps do not support below one they do: within a group, the unsupported right answer gets the lower advantage, where RLVR pays both alike.",
    paper_figure:
      "GRR Abstract: “answer‑correct trajectories may still rely on incomplete derivations, weak evidence, or statements that contradict their conclusions”; App. B (groupwise ranking prompt): “Audit the reasoning steps, not just the final answer; flag leaps, contradictions, or missing justification”",
    metric:
      "within-group advantage gap (supported right − unsupported right), RL steps 1–5, GRR minus RLVR (per seed)",
    variants: ["rlvr", "grr"],
    stability: false,
    rlSteps: MECHANISM_STEPS,
    comparisons: [
      gapComparison({
        name: "unsupported",
        part: "advantage",
        a: "grr",
        b: "rlvr",
        direction: 1,
        label: "GRR − RLVR, within-group advantage gap (supported − unsupported right answers)",
      }),
    ],
  },
  {
    id: "acre-pays-content",
    paper: "ACRE",
    statement:
      "ACRE pays a right answer that changes when the options are shuffled less than one that does not; and, against GRPO, it pays an index-bound right answer (the kind that changes) less than the other right answers.",
    paper_figure:
      "ACRE §1: “A maximal reward r_max is given only if the answers from both the original and the shuffled-option settings are consistent with each other and match the ground truth. Otherwise, a lower reward is assigned.”; §4 eq. 3: r_c = α1 if agree and both correct, α2 if they disagree and one is correct",
    metric:
      "within-group advantage gap (right answer unchanged under the shuffle − changed), RL steps 1–5, ACRE alone (GRPO asks no second time); within-group advantage gap (other right answers − index-bound right answers), ACRE minus GRPO (ACRE scenario, per seed)",
    variants: ["rlvr", "acre"],
    stability: false,
    runs: ["acre"],
    rlSteps: MECHANISM_STEPS,
    comparisons: [
      gapComparison({
        name: "shuffle",
        part: "advantage",
        a: "acre",
        b: null,
        direction: 1,
        label: "ACRE, within-group advantage gap (unchanged − changed under the shuffle)",
      }),
      gapComparison({
        name: "index-bound",
        part: "advantage",
        a: "acre",
        b: "rlvr",
        direction: 1,
        label: "ACRE − GRPO, within-group advantage gap (other right − index-bound right)",
      }),
    ],
  },
  {
    id: "structreward-rule",
    paper: "StructReward",
    statement:
      "StructReward's rule term separates right answers with wrong steps from right answers with the reference steps: within a group, the wrong steps get the lower reward, where RLVR pays both alike.",
    paper_figure:
      "StructReward §3 (Structured Reward Design, Gated Total Reward) eq. 10: R_total = λ_fmt R_fmt + λ_right R_right + λ_rule R_right R_rule (1 + λ_cons R_cons); “R_rule supplies resolution among trajectories that reach the correct answer”",
    metric:
      "within-group reward gap (right answer with reference steps − with wrong steps), RL steps 1–5, StructReward minus RLVR (per seed)",
    variants: ["rlvr", "structreward"],
    stability: false,
    rlSteps: MECHANISM_STEPS,
    comparisons: [
      gapComparison({
        name: "wrong-steps",
        part: "reward",
        a: "structreward",
        b: "rlvr",
        direction: 1,
        label: "StructReward − RLVR, within-group reward gap (reference steps − wrong steps)",
      }),
    ],
  },
  {
    id: "prm-steps",
    paper: "GRR",
    statement:
      "The PRM arm's reward tracks step correctness: within a group, a right answer with wrong steps gets a lower reward than one with the reference steps, where RLVR pays both alike.",
    paper_figure:
      "GRR §3.1 eq. 3: r_prm,i = Agg({s_i,t}); “we instantiate the RM as a fine‑grained PRM that decomposes the reasoning trajectory into intermediate steps and assigns a step‑level quality signal along the trajectory”",
    metric:
      "within-group reward gap (right answer with reference steps − with wrong steps), RL steps 1–5, PRM minus RLVR (per seed)",
    variants: ["rlvr", "prm"],
    stability: false,
    rlSteps: MECHANISM_STEPS,
    comparisons: [
      gapComparison({
        name: "wrong-steps",
        part: "reward",
        a: "prm",
        b: "rlvr",
        direction: 1,
        label: "PRM − RLVR, within-group reward gap (reference steps − wrong steps)",
      }),
    ],
  },
];
