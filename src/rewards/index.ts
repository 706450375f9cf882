/**
 * Public API of the reward library (docs/reward-spec.md §0–§5). Every function takes
 * ONE object argument (test/fixtures/README.md, harness convention 1). Pure TypeScript,
 * no DOM: runs in a Web Worker, in Node and in tests. Variant-level scorers
 * `(prompt, texts, options, rng)` return per-rollout totals AND components.
 */
// Parsing and equivalence (test/fixtures/README.md contracts).
export { extractBoxed } from "./boxed";
export { parseTrace } from "./trace";
export type { ParsedTrace, TraceStep, AnswerSource } from "./trace";
export { extractOptionLetter, isIndexBound } from "./option-letter";
export { answersEquivalent, normalizeAnswer } from "./equivalence";
export { parseJudgeRanking, parseJudgeScore } from "./judge-json";
export type { JudgeRanking, JudgeScore } from "./judge-json";

// Shared shapes and helpers.
export type { GroupScore, RolloutScore } from "./rollout";
export { rewardsForAdvantages } from "./rollout";
export { mulberry32, gaussian, shuffled } from "./rng";
export type { Rng } from "./rng";
export { goldOf, verifyRollout } from "./verifier";
export type { VerifierResult } from "./verifier";
export { judgeConsistency, lastLocalResult } from "./consistency";
export type { ConsistencyJudgment, ConsistencyResult } from "./consistency";
export { paperMetrics, metricRecords, oscr, contentAnswer } from "./metrics";
export type { MetricRecord, PaperMetrics } from "./metrics";
export { matchSteps, referenceValues } from "./step-matching";

// GRR paper: RLVR, PRM-mean, pointwise GR, Groupwise Ranking Reward.
export {
  rankRewards,
  scoreRLVR,
  scorePRMMean,
  scorePointwiseGR,
  scoreGRR,
  RANK_MAPPINGS,
  EDN_GAMMA,
  DEFAULT_LAMBDA,
} from "./grr";
export type { Judge, RankMapping, ProcessRewardModel } from "./grr";
export {
  createAuditorJudge,
  auditTrace,
  tiersFromScores,
  AUDIT_WEIGHTS,
  DEFAULT_AUDITOR,
} from "./auditor-judge";
export type { AuditorConfig, Audit } from "./auditor-judge";
export {
  createTextAuditor,
  textAudit,
  snapToLevel,
  RUBRIC_LEVELS,
  DEFAULT_TEXT_AUDITOR,
} from "./text-auditor";
export type { TextAuditorConfig, TextAudit, TextFindings } from "./text-auditor";
export {
  createJudge,
  judgeSettings,
  JUDGE_NAMES,
  JUDGE_DEFAULTS,
  DEFAULT_JUDGE_NAME,
} from "./judges";
export type { JudgeName, JudgeSettings } from "./judges";

// StructReward.
export {
  structReward,
  scoreStructReward,
  strictFormatOk,
  buildPointwiseExamples,
  buildPairwiseExamples,
  makeHardNegative,
  STRUCT_DEFAULT_WEIGHTS,
} from "./structreward";
export type {
  StructWeights,
  StructRewardResult,
  HardNegative,
  PairwiseExample,
  PointwiseExample,
} from "./structreward";

// SCS and ACRE.
export {
  scsConsistency,
  scoreSCSBaseline,
  expectedDistinctAnswers,
  distinctAnswerCount,
  scoreSCS,
  truncateResponse,
  SCS_RELEASED,
  SCS_NOISE_RANGE,
} from "./scs";
export {
  acreConsistency,
  acreLengthReward,
  scoreACRE,
  scoreAcreBaseline,
  shuffleOptions,
  ACRE_DEFAULT_ALPHAS,
} from "./acre";
// A written reward ("Your reward"): the sandbox and its inputs and result.
export { loadSandbox, SANDBOX_LIMITS } from "./sandbox";
export type { SandboxEngine } from "./sandbox";
export { scoreUserReward, USER_REWARD_DEFAULT_CODE, USER_REWARD_MAX_CHARS } from "./user-reward";
