/**
 * Settings of `npm run serve:rewards`: flags, an optional JSON config file
 * (`--config FILE`) and the judge's environment variables. Flags win over the
 * file; the judge's URL, model and key come from the environment only:
 * REWARD_JUDGE_URL, REWARD_JUDGE_MODEL, REWARD_JUDGE_API_KEY (optional).
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { parseCli } from "../lib/cli-flags";
import { usageLine } from "../lib/cli-table";
import { parseUntrustedJson } from "../lib/untrusted";
import { SERVE_TABLE } from "./serve-flags";
import { DEFAULT_QUEUE } from "./app";
import { DEFAULT_ASSEMBLY } from "./assembly";
import type { JudgeClientOptions } from "./judge-client";
import { DEFAULT_LIMITS } from "./protocol";
import { SERVED_VARIANTS, isServedVariant, type ServedVariant } from "./scoring";
import { readRewardFile } from "./reward-file";

/** The environment variables of the judge. */
const JUDGE_ENV = {
  url: "REWARD_JUDGE_URL",
  model: "REWARD_JUDGE_MODEL",
  apiKey: "REWARD_JUDGE_API_KEY",
} as const;

const int = (min: number) => z.number().int().min(min);

/** The config file's schema (strict: an unknown key is an error naming it). */
const ServeConfigSchema = z.strictObject({
  variant: z.enum(SERVED_VARIANTS).optional(),
  host: z.string().min(1).optional(),
  port: int(0).max(65535).optional(),
  /** The variant's weights, checked by the variant table's schema. */
  weights: z.record(z.string(), z.union([z.number(), z.string()])).optional(),
  limits: z
    .strictObject({
      maxBodyBytes: int(1).optional(),
      maxRollouts: int(1).optional(),
      maxTextChars: int(1).optional(),
      maxLabelChars: int(1).optional(),
      maxLabelSteps: int(0).optional(),
      maxGroupSize: int(2).optional(),
      maxConcurrent: int(1).optional(),
      maxQueued: int(0).optional(),
    })
    .optional(),
  /** Group assembly for grr (src/server/assembly.ts); the flags below override it. */
  assembly: z
    .strictObject({
      groupSize: int(0).optional(),
      groupWaitMs: int(1).optional(),
      maxWaitingGroups: int(1).optional(),
      maxWaitingRollouts: int(1).optional(),
    })
    .optional(),
  judge: z
    .strictObject({
      timeoutMs: int(1).optional(),
      maxAttempts: int(1).max(20).optional(),
      backoffMs: int(0).optional(),
      maxBackoffMs: int(0).optional(),
      concurrency: int(1).max(1024).optional(),
      temperature: z.number().min(0).max(2).optional(),
      maxTokens: int(1).optional(),
      maxCandidateChars: int(1).optional(),
    })
    .optional(),
  /** Milliseconds that shutdown waits for requests in flight (default 60,000). */
  drainTimeoutMs: int(0).optional(),
});
export type ServeConfig = z.infer<typeof ServeConfigSchema>;

/** What the server is started with. */
export interface ServeSettings {
  variant: ServedVariant;
  host: string;
  port: number;
  config: ServeConfig;
  /** Present when the variant calls a judge. */
  judge: JudgeClientOptions | null;
  /** The written reward's code from --reward FILE (variant user); null otherwise. */
  rewardCode: string | null;
  drainTimeoutMs: number;
}

/** The usage line of the command. */
const USAGE = `usage: ${usageLine(SERVE_TABLE)}`;

/** The assembly flags (SERVE_TABLE) → the config's assembly field each sets. */
const ASSEMBLY_FIELDS = {
  "group-size": "groupSize",
  "group-wait-ms": "groupWaitMs",
  "max-waiting-groups": "maxWaitingGroups",
  "max-waiting-rollouts": "maxWaitingRollouts",
} as const;

function readConfigFile(file: string): ServeConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`--config: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  let value: unknown;
  try {
    value = parseUntrustedJson(text, `--config ${file}`);
  } catch (e) {
    throw new Error(`--config: ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const r = ServeConfigSchema.safeParse(value);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`--config: ${file}: ${i.path.join(".") || "(root)"}: ${i.message}`);
  }
  return r.data;
}

/**
 * Reads the flags, the config file and the judge's environment.
 * @throws Error naming the flag, the config field or the variable.
 */
export function readServeSettings(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ServeSettings {
  const parsed = parseCli(argv, SERVE_TABLE);
  // The script answers --help before it reads the settings.
  if (parsed === "help") throw new Error(USAGE);
  const values = parsed.flags;
  const config = values.config ? readConfigFile(values.config) : {};
  for (const [flag, field] of Object.entries(ASSEMBLY_FIELDS)) {
    const n = values[flag as keyof typeof ASSEMBLY_FIELDS];
    if (n !== undefined) config.assembly = { ...config.assembly, [field]: n };
  }
  const groupSize = config.assembly?.groupSize;
  if (groupSize === 1)
    throw new Error("--group-size: must be 0 (off) or at least 2 (a group of one is never ranked)");
  // --reward FILE serves the written reward (variant user), and only the file's code.
  const variant =
    values.variant ?? config.variant ?? (values.reward !== undefined ? "user" : undefined);
  if (values.reward !== undefined && variant !== "user")
    throw new Error(`--reward: serves the user variant, not --variant ${variant}\n${USAGE}`);
  if (variant === "user" && values.reward === undefined)
    throw new Error(`--variant user: needs --reward FILE (the written reward to serve)\n${USAGE}`);
  const rewardCode = values.reward !== undefined ? readRewardFile(values.reward) : null;
  if (variant === undefined) throw new Error(`--variant: required\n${USAGE}`);
  if (!isServedVariant(variant))
    throw new Error(
      `--variant: '${variant}' is not served (served: ${SERVED_VARIANTS.join(", ")}; the others need generation passes or a learned PRM)`,
    );
  const port = values.port ?? config.port ?? 5000;
  const host = values.host ?? config.host ?? "127.0.0.1";
  let judge: JudgeClientOptions | null = null;
  if (variant === "pointwise-gr" || variant === "grr") {
    const url = env[JUDGE_ENV.url];
    const model = env[JUDGE_ENV.model];
    if (!url || !model)
      throw new Error(
        `${!url ? JUDGE_ENV.url : JUDGE_ENV.model}: required for --variant ${variant} (an OpenAI-compatible judge: ${JUDGE_ENV.url}=http://HOST:PORT/v1 ${JUDGE_ENV.model}=NAME, and ${JUDGE_ENV.apiKey} if it needs one)`,
      );
    judge = { url, model, apiKey: env[JUDGE_ENV.apiKey] || undefined, ...(config.judge ?? {}) };
  }
  return {
    variant,
    host,
    port,
    config,
    judge,
    rewardCode,
    drainTimeoutMs: config.drainTimeoutMs ?? 60_000,
  };
}

/** The limits in force with `config` (defaults filled in), for the start-up line and docs/reward-server.md. */
export function limitsOf(config: ServeConfig) {
  return {
    ...DEFAULT_LIMITS,
    ...DEFAULT_QUEUE,
    ...(config.limits ?? {}),
    assembly: { ...DEFAULT_ASSEMBLY, ...(config.assembly ?? {}) },
  };
}
