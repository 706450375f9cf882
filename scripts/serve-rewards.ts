/**
 * `npm run serve:rewards -- --variant NAME [--reward FILE] [--port P] [--host H] [--config FILE]`:
 * the lab's rewards as a remote reward model for OpenRLHF and verl
 * (src/server/app.ts; README "Reward server for real training jobs").
 * Prints one line `reward server listening on URL …` when ready; SIGINT or
 * SIGTERM drains the requests in flight and exits 0. A start-up failure is
 * one JSON line `{"error": "…"}` and exit code 1.
 */
import { buildRewardServer } from "../src/server/app";
import { limitsOf, readServeSettings } from "../src/server/config";
import { createJudgeClient } from "../src/server/judge-client";
import { SERVE_TABLE } from "../src/server/serve-flags";
import { exitWithHelp, wantsHelp } from "../src/lib/cli-flags";

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) exitWithHelp(SERVE_TABLE);
  const settings = readServeSettings(argv, process.env);
  const judge = settings.judge ? createJudgeClient(settings.judge) : undefined;
  const server = buildRewardServer({
    variant: settings.variant,
    weights: settings.config.weights,
    limits: settings.config.limits,
    assembly: settings.config.assembly,
    judge,
    user: settings.rewardCode !== null ? { code: settings.rewardCode } : undefined,
    log: (line) => console.error(`[serve:rewards] ${line}`),
  });
  const url = await server.listen(settings.host, settings.port);
  const l = limitsOf(settings.config);
  console.log(
    `reward server listening on ${url} (variant ${settings.variant}${judge ? `; judge ${judge.describe()}` : ""}; POST /get_reward, POST /verl/compute_score, GET /stats; limits: ${l.maxRollouts} rollouts, ${l.maxBodyBytes} bytes, ${l.maxConcurrent} scoring + ${l.maxQueued} queued; ${l.assembly.groupSize > 0 ? `groups of ${l.assembly.groupSize} assembled, ${l.assembly.groupWaitMs} ms wait` : "no group assembly"})`,
  );
  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    const q = server.stats().queue;
    console.error(
      `[serve:rewards] ${signal}: draining ${q.active + q.queued} request(s) in flight (at most ${settings.drainTimeoutMs} ms)`,
    );
    const deadline = setTimeout(() => {
      console.error("[serve:rewards] drain timeout: exiting with requests still open");
      process.exit(1);
    }, settings.drainTimeoutMs);
    deadline.unref();
    server.close().then(
      () => {
        console.error("[serve:rewards] stopped");
        process.exit(0);
      },
      (e: unknown) => {
        console.error(`[serve:rewards] close failed: ${e instanceof Error ? e.message : e}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((e: unknown) => {
  process.stdout.write(
    `${JSON.stringify({ error: e instanceof Error ? e.message : String(e) })}\n`,
  );
  process.exit(1);
});
