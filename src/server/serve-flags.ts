/**
 * The flags of `npm run serve:rewards` (scripts/serve-rewards.ts, read by
 * src/server/config.ts): one table for the parser, --help and docs/cli.md.
 * A flag wins over the same setting in the --config file.
 */
import type { CliTable } from "../lib/cli-table";
import { SERVED_VARIANTS } from "./scoring";

export const SERVE_TABLE = {
  command: "npm run serve:rewards --",
  summary:
    "Serves the lab's rewards over HTTP as a remote reward model for OpenRLHF and verl (docs/reward-server.md); the judge's URL, model and key come from REWARD_JUDGE_URL, REWARD_JUDGE_MODEL, REWARD_JUDGE_API_KEY.",
  flags: {
    variant: {
      kind: "string",
      arg: "NAME",
      defaultText: "the config file's; user with --reward (one of them is required)",
      range: `one of ${SERVED_VARIANTS.join(", ")} (the others need generation passes or a learned PRM)`,
      help: "the reward design to serve",
    },
    reward: {
      kind: "string",
      arg: "FILE",
      range: "a JavaScript file defining reward(group), at most 64000 characters",
      help: "serve this written reward (variant user, implied): only this file's code runs, in the reward sandbox; no request or config field carries code",
    },
    port: {
      kind: "int",
      min: 0,
      max: 65535,
      defaultText: "the config file's, else 5000",
      arg: "P",
      help: "the TCP port (0: any free one)",
    },
    host: {
      kind: "string",
      arg: "H",
      defaultText: "the config file's, else 127.0.0.1",
      help: "the address to listen on",
    },
    config: {
      kind: "string",
      arg: "FILE",
      help: "a JSON file of settings: variant, host, port, weights, limits, assembly, judge, drainTimeoutMs (unknown keys refused)",
    },
    "group-size": {
      kind: "int",
      min: 0,
      max: 1024,
      arg: "N",
      defaultText: "the config file's, else 0 (off)",
      help: "grr only: rollouts per group (OpenRLHF's n_samples_per_prompt); requests with fewer rollouts of a group wait until it is complete and it is judged in one call (1 is refused: a group of one is never ranked)",
    },
    "group-wait-ms": {
      kind: "int",
      min: 1,
      max: 86_400_000,
      arg: "MS",
      defaultText: "the config file's, else 120000",
      help: "how long a group waits to fill before it is judged as it stands (flagged groupTimedOut)",
    },
    "max-waiting-groups": {
      kind: "int",
      min: 1,
      max: 1_000_000,
      arg: "N",
      defaultText: "the config file's, else 4096",
      help: "cap on incomplete groups waiting; a request past it gets 503 with Retry-After",
    },
    "max-waiting-rollouts": {
      kind: "int",
      min: 1,
      max: 10_000_000,
      arg: "N",
      defaultText: "the config file's, else 32768",
      help: "cap on rollouts waiting in incomplete groups; a request past it gets 503 with Retry-After",
    },
  },
} as const satisfies CliTable;
