/**
 * Public API of the reward library. Every function takes ONE object argument
 * (cases README, harness convention 1). Pure TypeScript, no DOM: runs in a
 * Web Worker, in Node and in tests.
 */
export { extractBoxed } from "./boxed";
export { parseTrace } from "./trace";
export type { ParsedTrace, TraceStep } from "./trace";
export { extractOptionLetter } from "./option-letter";
export { answersEquivalent } from "./equivalence";
export { parseJudgeRanking, parseJudgeScore } from "./judge-json";
export type { JudgeRanking, JudgeScore } from "./judge-json";
export {
  groupAdvantages,
  groupAdvantageStats,
  foldKlIntoRewards,
  ADVANTAGE_METHODS,
  ADVANTAGE_PRESETS,
  GRPO_STABLE,
} from "../rl/advantages";
export type { AdvantageMethod, StdKind } from "../rl/advantages";
