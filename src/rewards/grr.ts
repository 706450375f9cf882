/**
 * GRR paper rewards (docs/reward-spec.md §2): `R_i = r_ver + λ·r_aux` with
 * r_aux ∈ {0 (RLVR), r_prm, r_gr (pointwise), r_rank (groupwise)}.
 * Source: GRR eq. 1–8; λ = 1 (GRR §4.1).
 */
import type { TaskPrompt } from "../tasks/types";
import { parseJudgeRanking, parseJudgeScore } from "./judge-json";
import type { Rng } from "./rng";
import type { GroupScore, RolloutScore } from "./rollout";
import { parseTrace, type ParsedTrace } from "./trace";
import { goldOf, verifyParsed, type VerifierResult } from "./verifier";

/** Rank → score mappings (GRR ablation names; constants are lab choices, docs/reward-spec.md §2). */
export const RANK_MAPPINGS = ["pcs", "edn", "trs", "irn"] as const;
export type RankMapping = (typeof RANK_MAPPINGS)[number];
/** EDN decay γ (lab choice, docs/reward-spec.md §2). */
export const EDN_GAMMA = 0.5;
/** λ of R = r_ver + λ r_aux (GRR §4.1: λ = 1 for all variants). */
export const DEFAULT_LAMBDA = 1;

/**
 * `rankRewards({ranks, mapping = "pcs"})`: centered r_rank of the K
 * verifier-passed candidates. `ranks[i]` = judge rank of candidate i (1 =
 * best, equal = tie, gaps allowed: 1, 1, 3). Tiers τ_1 ≻ … ≻ τ_M are the
 * distinct ranks in order.
 * - pcs: s̃_i = (b_i + c_i/2)/(K−1), b = # lower tiers' members, c = # tied (GRR eq. 6–7).
 * - edn: γ^(m−1), γ = 0.5, min–max normalized (lab choice).
 * - trs: (M − m)/(M − 1) (lab choice).
 * - irn: 1/competition rank, min–max normalized (lab choice).
 * Then r_rank,i = s̃_i − mean_j s̃_j (GRR eq. 7). K < 2 or one tier → all 0.
 * PCS is bounded in [−0.5, 0.5]; the others in (−1, 1). Throws an Error
 * naming `mapping` or `ranks` for an unknown mapping or a rank that is not a
 * finite number ≥ 1.
 */
export function rankRewards({
  ranks,
  mapping = "pcs",
}: {
  ranks: ReadonlyArray<number>;
  mapping?: RankMapping;
}): number[] {
  if (!(RANK_MAPPINGS as readonly string[]).includes(mapping)) {
    throw new Error(
      `rankRewards: unknown mapping ${JSON.stringify(mapping)} (use pcs|edn|trs|irn)`,
    );
  }
  if (!Array.isArray(ranks)) throw new Error("rankRewards: ranks must be an array");
  for (const r of ranks) {
    if (typeof r !== "number" || !Number.isFinite(r) || r < 1) {
      throw new Error(`rankRewards: ranks must be finite numbers >= 1 (got ${String(r)})`);
    }
  }
  const K = ranks.length;
  if (K < 2) return new Array<number>(K).fill(0);
  const distinct = [...new Set(ranks)].sort((a, b) => a - b);
  const M = distinct.length;
  if (M === 1) return new Array<number>(K).fill(0);
  const tierOf = new Map(distinct.map((r, m) => [r, m + 1]));
  const tierSize = new Map<number, number>();
  for (const r of ranks) tierSize.set(r, (tierSize.get(r) ?? 0) + 1);
  let scores: number[];
  if (mapping === "pcs") {
    scores = ranks.map((r) => {
      let below = 0;
      for (const q of ranks) if (q > r) below++;
      const tied = tierSize.get(r)! - 1;
      return (below + tied / 2) / (K - 1);
    });
  } else if (mapping === "trs") {
    scores = ranks.map((r) => (M - tierOf.get(r)!) / (M - 1));
  } else if (mapping === "edn") {
    const low = EDN_GAMMA ** (M - 1);
    scores = ranks.map((r) => (EDN_GAMMA ** (tierOf.get(r)! - 1) - low) / (1 - low));
  } else {
    const inv = ranks.map((r) => {
      let better = 0;
      for (const q of ranks) if (q < r) better++;
      return 1 / (1 + better); // competition rank
    });
    const hi = Math.max(...inv);
    const lo = Math.min(...inv);
    scores = inv.map((v) => (v - lo) / (hi - lo));
  }
  const mean = scores.reduce((a, b) => a + b, 0) / K;
  return scores.map((s) => s - mean);
}

/** A judge emits LLM-style JSON text; the scorers parse it like a real judge's reply. */
export interface Judge {
  /** `{"reasoning_feedback": str, "judge_score": float}` for one rollout. */
  pointwise(args: { prompt: TaskPrompt; text: string; rng: Rng }): string;
  /** `{"solutions": [{"index", "rank", ...}]}` over the candidates (1-based). */
  groupwise(args: { prompt: TaskPrompt; texts: string[]; rng: Rng }): string;
}

interface Verified {
  parsed: ParsedTrace;
  ver: VerifierResult;
}

function verifyAll(prompt: TaskPrompt, texts: readonly string[]): Verified[] {
  const gold = goldOf(prompt);
  return texts.map((text) => {
    const parsed = parseTrace({ text });
    return { parsed, ver: verifyParsed(parsed, gold) };
  });
}

/** λ as given (its range, ≥ 0, is the variant table's schema, checked where a setting enters), else GRR's 1 (§4.1). */
function lambdaOf(lambda: number | undefined): number {
  return lambda ?? DEFAULT_LAMBDA;
}

/** Outcome-only RLVR: R = r_ver (GRR eq. 1). */
export function scoreRLVR(prompt: TaskPrompt, texts: readonly string[]): GroupScore {
  const rollouts = verifyAll(prompt, texts).map(
    ({ ver }): RolloutScore => ({
      total: ver.rVer,
      components: { rVer: ver.rVer },
      verifierPassed: ver.passed,
      answer: ver.answer,
    }),
  );
  return { rollouts, judgeCalls: 0, judgeFailures: 0 };
}

/** Step labels of a PRM for one rollout: one value in [0, 1] per step (1 = "+"). */
export type ProcessRewardModel = (args: {
  prompt: TaskPrompt;
  text: string;
  parsed: ParsedTrace;
}) => ArrayLike<number> | null | undefined;

/**
 * PRM variant: R = r_ver + λ·mean(step labels) (GRR eq. 3 with Agg = mean,
 * §4.1). No steps → r_prm = 0 (lab choice). A PRM that returns nothing or
 * non-finite labels makes the rollout unscorable (docs/reward-spec.md §1).
 */
export function scorePRMMean(
  prompt: TaskPrompt,
  texts: readonly string[],
  options: { prm: ProcessRewardModel; lambda?: number },
): GroupScore {
  const lambda = lambdaOf(options.lambda);
  if (typeof options.prm !== "function") throw new Error("scorePRMMean: prm must be a function");
  const rollouts = verifyAll(prompt, texts).map(({ parsed, ver }, i): RolloutScore => {
    let labels: ArrayLike<number> | null | undefined;
    try {
      labels = options.prm({ prompt, text: texts[i], parsed });
    } catch {
      labels = null;
    }
    if (!labels || Array.prototype.some.call(labels, (x: number) => !Number.isFinite(x))) {
      return {
        total: 0,
        components: { rVer: ver.rVer, rPrm: 0 },
        verifierPassed: ver.passed,
        unscorable: true,
        answer: ver.answer,
      };
    }
    let sum = 0;
    for (let k = 0; k < labels.length; k++) sum += Math.min(1, Math.max(0, labels[k]));
    const rPrm = labels.length > 0 ? sum / labels.length : 0;
    return {
      total: ver.rVer + lambda * rPrm,
      components: { rVer: ver.rVer, rPrm },
      verifierPassed: ver.passed,
      answer: ver.answer,
      stepScores: Array.from(labels, (x) => Math.min(1, Math.max(0, x))),
    };
  });
  return { rollouts, judgeCalls: 0, judgeFailures: 0 };
}

/**
 * Pointwise GR: R = r_ver + λ·r_gr, one judge call per rollout, score parsed
 * from `{"reasoning_feedback","judge_score"}` (GRR eq. 4, 8). Unparseable →
 * r_gr = 0 and a judge failure (docs/reward-spec.md §2).
 */
export function scorePointwiseGR(
  prompt: TaskPrompt,
  texts: readonly string[],
  options: { judge: Judge; lambda?: number },
  rng: Rng,
): GroupScore {
  const lambda = lambdaOf(options.lambda);
  let failures = 0;
  const outputs: string[] = [];
  const rollouts = verifyAll(prompt, texts).map(({ ver }, i): RolloutScore => {
    const reply = safeCall(() => options.judge.pointwise({ prompt, text: texts[i], rng }));
    outputs.push(reply);
    const read = parseJudgeScore({ text: reply });
    if (!read.ok) failures++;
    const rGr = read.score ?? 0;
    return {
      total: ver.rVer + lambda * rGr,
      components: { rVer: ver.rVer, rGr },
      verifierPassed: ver.passed,
      answer: ver.answer,
    };
  });
  return { rollouts, judgeCalls: texts.length, judgeFailures: failures, judgeOutputs: outputs };
}

/**
 * Groupwise Ranking Reward: one judge call ranks the K verifier-passed
 * rollouts; R = r_ver + λ·r_rank (GRR eq. 5–8). Failed rollouts get 0.
 * K < 2: no call, r_rank = 0. Unrepairable reply → r_rank = 0 for the group
 * and a judge failure. Candidates the judge left out get r_rank 0 and the
 * ranked ones are centered among themselves (lab choice, docs/reward-spec.md §2).
 */
export function scoreGRR(
  prompt: TaskPrompt,
  texts: readonly string[],
  options: { judge: Judge; lambda?: number; mapping?: RankMapping },
  rng: Rng,
): GroupScore {
  const lambda = lambdaOf(options.lambda);
  const mapping = options.mapping ?? "pcs";
  if (!(RANK_MAPPINGS as readonly string[]).includes(mapping))
    throw new Error(`scoreGRR: unknown mapping ${mapping}`);
  const verified = verifyAll(prompt, texts);
  const passed = verified.flatMap((v, i) => (v.ver.passed ? [i] : []));
  const rRank = new Array<number>(texts.length).fill(0);
  let judgeCalls = 0;
  let judgeFailures = 0;
  let tiers: number[][] = passed.length > 0 ? [passed.slice()] : [];
  const outputs: string[] = [];
  if (passed.length >= 2) {
    judgeCalls = 1;
    const reply = safeCall(() =>
      options.judge.groupwise({ prompt, texts: passed.map((i) => texts[i]), rng }),
    );
    outputs.push(reply);
    const parsed = parseJudgeRanking({ text: reply, numCandidates: passed.length });
    if (!parsed.ok) judgeFailures = 1;
    else {
      const ranked = parsed.ranks.flatMap((r, k) => (r === null ? [] : [{ k, r }]));
      const rewards = rankRewards({ ranks: ranked.map((x) => x.r), mapping });
      ranked.forEach(({ k }, j) => {
        rRank[passed[k]] = rewards[j];
      });
      const distinct = [...new Set(ranked.map((x) => x.r))].sort((a, b) => a - b);
      tiers = distinct.map((r) => ranked.filter((x) => x.r === r).map((x) => passed[x.k]));
      const left = parsed.ranks.flatMap((r, k) => (r === null ? [passed[k]] : []));
      if (left.length > 0) tiers.push(left);
    }
  }
  const rollouts = verified.map(
    ({ ver }, i): RolloutScore => ({
      total: ver.rVer + lambda * rRank[i],
      components: { rVer: ver.rVer, rRank: rRank[i] },
      verifierPassed: ver.passed,
      answer: ver.answer,
    }),
  );
  return { rollouts, judgeCalls, judgeFailures, tiers, judgeOutputs: outputs };
}

function safeCall(f: () => string): string {
  try {
    const out = f();
    return typeof out === "string" ? out : "";
  } catch {
    return ""; // a crashing judge counts as an unparseable reply
  }
}
