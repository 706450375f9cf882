/**
 * Scoring a request's rollouts with the lab's reward library: rollouts are
 * grouped (same prompt, or same group id), each group is scored by the
 * variant's own scorer from src/rewards (scoreRLVR, scoreStructReward,
 * scorePointwiseGR, scoreGRR) with the variant table's weights, and the
 * totals and components go back in the request's order.
 *
 * The library's judges are synchronous; an LLM judge is not. A judge
 * variant is therefore scored twice with the same scorer: once to learn
 * which texts it asks the judge about (GRR asks only about the
 * verifier-passed rollouts), then, after the LLM replied, again with a judge
 * that hands back those replies. The rewards are exactly the library's for
 * the same texts and replies.
 *
 * Within a group the rollouts are put in one canonical order (by the
 * SHA-256 of their text) before scoring, so that a group's rewards, and the
 * order in which the judge sees its candidates, do not depend on the order
 * in which the rollouts arrived.
 */
import { createHash } from "node:crypto";
import { scoreServedUser, type ServedUserReward } from "./user-scoring";
import {
  mulberry32,
  parseJudgeScore,
  scoreGRR,
  scorePointwiseGR,
  scoreRLVR,
  scoreStructReward,
  type GroupScore,
  type Judge,
  type RankMapping,
} from "../rewards/index";
import { variantEntry } from "../settings/variant-table";
import type { TaskPrompt } from "../tasks/types";
import type { AsyncJudge } from "./judge-client";
import { BadRequest, type GoldLabel, type RolloutInput } from "./protocol";

/** The variants the server computes from texts alone (names of src/settings/variant-table.ts). */
export const SERVED_VARIANTS = ["rlvr", "structreward", "pointwise-gr", "grr", "user"] as const;
export type ServedVariant = (typeof SERVED_VARIANTS)[number];

/** Which served variants call a judge. */
export const JUDGE_OF: Readonly<Record<ServedVariant, "none" | "pointwise" | "groupwise">> = {
  rlvr: "none",
  structreward: "none",
  "pointwise-gr": "pointwise",
  grr: "groupwise",
  user: "none",
};

/**
 * Component names of each served variant, in the order they are reported.
 * GRR's last three say how its group was formed: `groupSize` (rollouts ranked
 * together), `groupOfOne` (1 when the group was one rollout: r_rank is 0 and
 * GRR pays r_ver alone) and `groupTimedOut` (1 when an assembled group was
 * judged short of its size, src/server/assembly.ts).
 */
export const COMPONENTS_OF: Readonly<Record<ServedVariant, readonly string[]>> = {
  rlvr: ["rVer"],
  structreward: ["fmt", "right", "rule", "cons", "hasReference"],
  "pointwise-gr": ["rVer", "rGr", "judgeFailed"],
  grr: ["rVer", "rRank", "judgeFailed", "groupSize", "groupOfOne", "groupTimedOut"],
  // A written reward's components are the names its code returns (user-scoring.ts).
  user: [],
};

/** True when `name` is a served variant. */
export function isServedVariant(name: string): name is ServedVariant {
  return (SERVED_VARIANTS as readonly string[]).includes(name);
}

/**
 * The variant's weights, with its defaults, checked by its schema in the
 * variant table (e.g. `{lambda, mapping}` for GRR).
 * @throws Error naming the variant and the field.
 */
export function variantWeights(variant: ServedVariant, weights: unknown): Record<string, unknown> {
  const r = variantEntry(variant).weights.safeParse(weights ?? {});
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`weights (${variant}): ${i.path.join(".") || "(root)"}: ${i.message}`);
  }
  return r.data;
}

/** The reward of one rollout, as the server returns it. */
interface RolloutReward {
  total: number;
  /** The variant's components (COMPONENTS_OF), every one a finite number. */
  components: Record<string, number>;
  /** r_ver = 1 (for StructReward: R_right = 1). */
  verifierPassed: boolean;
}

/** The rewards of one request, in its order. */
export interface BatchRewards {
  rollouts: RolloutReward[];
  groups: number;
  judgeCalls: number;
  judgeFailures: number;
  /** Groups of a groupwise variant that held one rollout (never ranked). */
  groupsOfOne: number;
}

/** What scoreRequest needs besides the rollouts. */
export interface ScoreSettings {
  variant: ServedVariant;
  /** Parsed by variantWeights. */
  weights: Record<string, unknown>;
  /** Required by pointwise-gr and grr. */
  judge?: AsyncJudge;
  /** Largest group a groupwise judge ranks. */
  maxGroupSize: number;
  /** The operator's written reward (--reward FILE), required by the user variant. */
  user?: ServedUserReward;
}

/**
 * The prompt of a group as the reward library reads it: gold answer, options
 * and reference steps from the label, the question text for the judge. No
 * image: the scorers served here read texts only.
 */
export function promptOf(label: GoldLabel, question: string, id: string): TaskPrompt {
  const content =
    label.options && label.letter !== null ? label.options[label.letter] : label.answer;
  return {
    id,
    family: "digits", // unused by the text scorers
    image: new Float32Array(0),
    height: 0,
    width: 0,
    channels: 0,
    question,
    options: label.options,
    answer: { letter: label.letter, content },
    referenceSteps: label.steps.map((value) => ({ text: value, value })),
    sftTarget: "",
  };
}

/** A synchronous judge that hands back replies already received, in call order. */
function replayJudge(pointwise: readonly string[], groupwise: string): Judge {
  let next = 0;
  return {
    pointwise: () => pointwise[next++] ?? "",
    groupwise: () => groupwise,
  };
}

/** The texts a scorer asks its judge about, learned by running it once with a silent judge. */
function judgeRequests(run: (judge: Judge) => GroupScore): {
  group: GroupScore;
  asked: string[][];
} {
  const asked: string[][] = [];
  const recorder: Judge = {
    pointwise: ({ text }) => {
      asked.push([text]);
      return "";
    },
    groupwise: ({ texts }) => {
      asked.push([...texts]);
      return "";
    },
  };
  return { group: run(recorder), asked };
}

/**
 * StructReward without reference steps (lab choice, docs/reward-server.md): R_rule cannot be
 * computed, so R_cons stands in for it in the gated term,
 * R = λ_fmt R_fmt + λ_right R_right + λ_rule R_right R_cons (1 + λ_cons R_cons):
 * format, correctness and an answer that follows from the last step are
 * paid; the maximum stays 1.2125 with the paper's weights.
 */
function structNoReference(group: GroupScore, w: Record<string, number>): RolloutReward[] {
  return group.rollouts.map((r) => {
    const { fmt, right, cons } = r.components;
    const total = w.fmt * fmt + w.right * right + w.rule * right * cons * (1 + w.cons * cons);
    return {
      total,
      components: { fmt, right, rule: cons, cons, hasReference: 0 },
      verifierPassed: r.verifierPassed,
    };
  });
}

async function scoreGroup(
  settings: ScoreSettings,
  prompt: TaskPrompt,
  texts: readonly string[],
): Promise<{ rewards: RolloutReward[]; judgeCalls: number; judgeFailures: number }> {
  const { variant, weights } = settings;
  const rng = mulberry32(0); // read only by the lab's noisy auditor, not by a replayed judge
  if (variant === "user") {
    if (!settings.user) throw new Error("variant user needs the operator's --reward FILE");
    const g = await scoreServedUser(settings.user, prompt, texts);
    return { rewards: g.rollouts.map(plain), judgeCalls: 0, judgeFailures: 0 };
  }
  if (variant === "rlvr") {
    const g = scoreRLVR(prompt, texts);
    return { rewards: g.rollouts.map(plain), judgeCalls: 0, judgeFailures: 0 };
  }
  if (variant === "structreward") {
    const w = weights as Record<string, number>;
    const g = scoreStructReward(prompt, texts, { weights: w });
    const rewards =
      prompt.referenceSteps.length > 0
        ? g.rollouts.map((r) => ({
            ...plain(r),
            components: { ...r.components, hasReference: 1 },
          }))
        : structNoReference(g, w);
    return { rewards, judgeCalls: 0, judgeFailures: 0 };
  }
  const judge = settings.judge;
  if (!judge) throw new Error(`variant ${variant} needs a judge`);
  const lambda = weights.lambda as number;
  if (variant === "pointwise-gr") {
    const replies = await Promise.all(texts.map((text) => judge.pointwise({ prompt, text })));
    const g = scorePointwiseGR(prompt, texts, { judge: replayJudge(replies, ""), lambda }, rng);
    const rewards = g.rollouts.map((r, i) => ({
      ...plain(r),
      components: {
        ...r.components,
        judgeFailed: parseJudgeScore({ text: replies[i] }).ok ? 0 : 1,
      },
    }));
    return { rewards, judgeCalls: g.judgeCalls, judgeFailures: g.judgeFailures };
  }
  const mapping = weights.mapping as RankMapping;
  const run = (j: Judge) => scoreGRR(prompt, texts, { judge: j, lambda, mapping }, rng);
  const first = judgeRequests(run);
  let g = first.group;
  if (first.asked.length > 0) {
    const candidates = first.asked[0];
    const reply = await judge.groupwise({ prompt, texts: candidates });
    g = run(replayJudge([], reply));
  }
  const failed = g.judgeFailures > 0;
  const rewards = g.rollouts.map((r) => ({
    ...plain(r),
    components: {
      ...r.components,
      judgeFailed: failed && r.verifierPassed ? 1 : 0,
      groupSize: texts.length,
      groupOfOne: texts.length === 1 ? 1 : 0,
      groupTimedOut: 0,
    },
  }));
  return { rewards, judgeCalls: g.judgeCalls, judgeFailures: g.judgeFailures };
}

function plain(r: GroupScore["rollouts"][number]): RolloutReward {
  return { total: r.total, components: { ...r.components }, verifierPassed: r.verifierPassed };
}

function textHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * Scores the rollouts of one request, group by group (groups scored
 * concurrently; a judge client bounds its own calls). Linear in the request's
 * size apart from the per-group sort of rollout hashes.
 * @throws BadRequest naming the group when a groupwise judge would rank more
 *   than `maxGroupSize` rollouts; Error when a judge variant has no judge.
 */
export async function scoreRequest(
  rollouts: readonly RolloutInput[],
  settings: ScoreSettings,
): Promise<BatchRewards> {
  const groups = new Map<string, number[]>();
  rollouts.forEach((r, i) => {
    const g = groups.get(r.groupKey);
    if (g) g.push(i);
    else groups.set(r.groupKey, [i]);
  });
  if (JUDGE_OF[settings.variant] === "groupwise") {
    for (const members of groups.values()) {
      if (members.length > settings.maxGroupSize)
        throw new BadRequest(
          `group of rollout ${members[0]}: ${members.length} rollouts, more than ${settings.maxGroupSize} (limits.maxGroupSize) for one groupwise judge call`,
        );
    }
  }
  const out = new Array<RolloutReward>(rollouts.length);
  let judgeCalls = 0;
  let judgeFailures = 0;
  let groupsOfOne = 0;
  if (JUDGE_OF[settings.variant] === "groupwise")
    for (const members of groups.values()) if (members.length === 1) groupsOfOne++;
  await Promise.all(
    [...groups.values()].map(async (members, g) => {
      const hashes = members.map((i) => textHash(rollouts[i].response));
      const order = members
        .map((i, k) => ({ i, h: hashes[k] }))
        .sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : a.i - b.i))
        .map((x) => x.i);
      const head = rollouts[order[0]];
      const prompt = promptOf(head.label, head.question, `group/${g}`);
      const texts = order.map((i) => rollouts[i].response);
      const scored = await scoreGroup(settings, prompt, texts);
      judgeCalls += scored.judgeCalls;
      judgeFailures += scored.judgeFailures;
      order.forEach((i, k) => {
        out[i] = scored.rewards[k];
      });
    }),
  );
  return { rollouts: out, groups: groups.size, judgeCalls, judgeFailures, groupsOfOne };
}
