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
      defaultText: "the config file's (one of the two is required)",
      range: `one of ${SERVED_VARIANTS.join(", ")} (the others need generation passes or a learned PRM)`,
      help: "the reward design to serve",
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
      help: "a JSON file of settings: variant, host, port, weights, limits, judge, drainTimeoutMs (unknown keys refused)",
    },
  },
} as const satisfies CliTable;
