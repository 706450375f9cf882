/**
 * Settings of `npm run serve:rewards`: flags, an optional JSON config file
 * (`--config FILE`) and the judge's environment variables. Flags win over the
 * file; the judge's URL, model and key come from the environment only:
 * REWARD_JUDGE_URL, REWARD_JUDGE_MODEL, REWARD_JUDGE_API_KEY (optional).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { z } from "zod";
import { parseUntrustedJson } from "../lib/untrusted";
import { DEFAULT_QUEUE } from "./app";
import { DEFAULT_ASSEMBLY } from "./assembly";
import type { JudgeClientOptions } from "./judge-client";
import { DEFAULT_LIMITS } from "./protocol";
import { SERVED_VARIANTS, isServedVariant, type ServedVariant } from "./scoring";

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
  drainTimeoutMs: number;
}

/** The usage line of the command. */
const USAGE = `usage: npm run serve:rewards -- --variant ${SERVED_VARIANTS.join("|")} [--port P] [--host H] [--config FILE] [--group-size N] [--group-wait-ms MS] [--max-waiting-groups N] [--max-waiting-rollouts N]`;

/** The assembly flags: flag name → config field and least value. */
const ASSEMBLY_FLAGS = {
  "group-size": { field: "groupSize", min: 0 },
  "group-wait-ms": { field: "groupWaitMs", min: 1 },
  "max-waiting-groups": { field: "maxWaitingGroups", min: 1 },
  "max-waiting-rollouts": { field: "maxWaitingRollouts", min: 1 },
} as const;
type AssemblyFlag = keyof typeof ASSEMBLY_FLAGS;

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
  let values: { variant?: string; port?: string; host?: string; config?: string } & {
    [F in AssemblyFlag]?: string;
  };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        variant: { type: "string" },
        port: { type: "string" },
        host: { type: "string" },
        config: { type: "string" },
        "group-size": { type: "string" },
        "group-wait-ms": { type: "string" },
        "max-waiting-groups": { type: "string" },
        "max-waiting-rollouts": { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
  }
  const config = values.config ? readConfigFile(values.config) : {};
  for (const [flag, { field, min }] of Object.entries(ASSEMBLY_FLAGS)) {
    const raw = values[flag as AssemblyFlag];
    if (raw === undefined) continue;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min)
      throw new Error(`--${flag}: must be an integer >= ${min} (got '${raw}')`);
    config.assembly = { ...config.assembly, [field]: n };
  }
  const groupSize = config.assembly?.groupSize;
  if (groupSize === 1)
    throw new Error("--group-size: must be 0 (off) or at least 2 (a group of one is never ranked)");
  const variant = values.variant ?? config.variant;
  if (variant === undefined) throw new Error(`--variant: required\n${USAGE}`);
  if (!isServedVariant(variant))
    throw new Error(
      `--variant: '${variant}' is not served (served: ${SERVED_VARIANTS.join(", ")}; the others need generation passes or a learned PRM)`,
    );
  let port = config.port ?? 5000;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535)
      throw new Error(`--port: must be an integer in [0, 65535] (got '${values.port}')`);
  }
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
