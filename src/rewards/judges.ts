/**
 * The lab's judges by name (docs/reward-spec.md §2 "The lab's judges"):
 * `text-auditor`, GRR App. B.1's judges as text-only rubric auditors (the
 * default from 2026-12-03), and `oracle-auditor`, the earlier judge that
 * knows the true digits (kept for the record). Everything that makes a judge
 * from settings (the variant table's scorers, the stability study) calls
 * `createJudge`, so a run names the judge it used.
 */
import { createAuditorJudge, DEFAULT_AUDITOR } from "./auditor-judge";
import type { Judge } from "./grr";
import { createTextAuditor, DEFAULT_TEXT_AUDITOR } from "./text-auditor";

/** Judge names, default first. */
export const JUDGE_NAMES = ["text-auditor", "oracle-auditor"] as const;
export type JudgeName = (typeof JUDGE_NAMES)[number];
/** The default judge (docs/reward-spec.md §2, from 2026-12-03). */
export const DEFAULT_JUDGE_NAME: JudgeName = "text-auditor";

/** A judge's settings: its name and noise (score units). `delta` is read by `oracle-auditor` only. */
export interface JudgeSettings {
  name: JudgeName;
  /** Perception noise σ_j. */
  sigmaJ: number;
  /** Calibration offset σ_b (text-auditor: per call, both protocols; oracle-auditor: pointwise calls only). */
  sigmaB: number;
  /** Groupwise tie margin δ (oracle-auditor only). */
  delta: number;
}

/**
 * Each judge's default noise: text-auditor from the calibration of
 * docs/reward-spec.md §2 (δ unused, kept at the oracle's value so a
 * settings object always has one); oracle-auditor as it was (σ_j 0.13,
 * σ_b 0.17, δ 0.15).
 */
export const JUDGE_DEFAULTS: Readonly<Record<JudgeName, Omit<JudgeSettings, "name">>> = {
  "text-auditor": {
    sigmaJ: DEFAULT_TEXT_AUDITOR.sigmaJ,
    sigmaB: DEFAULT_TEXT_AUDITOR.sigmaB,
    delta: DEFAULT_AUDITOR.delta,
  },
  "oracle-auditor": {
    sigmaJ: DEFAULT_AUDITOR.sigmaJ,
    sigmaB: DEFAULT_AUDITOR.sigmaB,
    delta: DEFAULT_AUDITOR.delta,
  },
};

/** Whether `name` is one of JUDGE_NAMES. */
function isJudgeName(name: unknown): name is JudgeName {
  return typeof name === "string" && (JUDGE_NAMES as readonly string[]).includes(name);
}

/**
 * The full settings of a judge: the given fields, the named judge's
 * defaults for the rest (no name: the default judge).
 * @throws Error naming `judge.name` and the known names for an unknown name.
 */
export function judgeSettings(partial: Partial<JudgeSettings> = {}): JudgeSettings {
  const name = partial.name ?? DEFAULT_JUDGE_NAME;
  if (!isJudgeName(name))
    throw new Error(
      `judge.name: unknown judge '${String(name)}'; known: ${JUDGE_NAMES.join(", ")}`,
    );
  const d = JUDGE_DEFAULTS[name];
  return {
    name,
    sigmaJ: partial.sigmaJ ?? d.sigmaJ,
    sigmaB: partial.sigmaB ?? d.sigmaB,
    delta: partial.delta ?? d.delta,
  };
}

/**
 * The judge a settings object names, with its noise (missing fields: that
 * judge's defaults) and optional failure injection.
 * @throws Error naming the field for an unknown name or a negative noise value.
 */
export function createJudge(
  partial: Partial<JudgeSettings> & { failureRate?: number } = {},
): Judge {
  const s = judgeSettings(partial);
  const failureRate = partial.failureRate ?? 0;
  return s.name === "oracle-auditor"
    ? createAuditorJudge({ sigmaJ: s.sigmaJ, sigmaB: s.sigmaB, delta: s.delta, failureRate })
    : createTextAuditor({ sigmaJ: s.sigmaJ, sigmaB: s.sigmaB, failureRate });
}
