/**
 * Kernel profile of the RL update: where one forward + backward of the
 * policy step goes, kernel by kernel. Prints ONE JSON line.
 *
 *   npm run bench:kernels -- [--text L] [--batch B] [--size small|default] [--compact] [--shared G] [--submit] [--only NAME]
 *   (flags, output and errors: the benchmark harness, scripts/bench/harness.ts)
 *
 * The graph is the update's (TrainGraph.policyForwardBackward) at B rows of L text
 * tokens after the 32 patch tokens of the digits task; defaults: the default
 * experiment's update on a CPU adapter (small model, B = 8 rollouts × 4
 * prompts = 32, L = 49: the text window the experiment's batches use, 15
 * prompt columns + the longest response of 34; --text 80 is the whole text).
 * Each dispatch is submitted and awaited on its own, 3 times after a warm-up,
 * so the per-kernel sums are larger than a step that submits once (they add
 * each submit's overhead); the shares are what the figure is for.
 * --compact: the graph the RL update runs (compactLastLayer), with the loss
 * mask on the responses only: the first 15 text columns are the prompt, each
 * row's response fills 15 to L − 15 columns after it (drawn uniformly, lab
 * choice), so the last block and head run on the packed loss rows.
 * Without it every text token is in the loss (mask all 1).
 * Keys: environment, adapter, shape {B, L, T}, total_ms (sum of the kernels'
 * means), kernels: [{phase: "forward" | "backward", kernel, ms, share}] sorted
 * by ms. A figure, not a test.
 * --shared G (with --compact): the update's shared-prefix graph
 * (TrainGraphOptions.sharedPrefix): the rows in groups of G with one image
 * and one 15-column prompt each, so the patches and 14 prompt columns run
 * once per group.
 * --submit: instead of the per-kernel split, the step's dispatches recorded
 * and submitted together, as a step submits them (no per-dispatch
 * overhead), 25 times after the warm-up: key `submit` {only, dispatches,
 * median_ms, p25_ms, p75_ms}. --only NAME keeps the dispatches whose kernel
 * name contains NAME (e.g. attention_prefix, gelu, matmul): a kernel
 * family's time in the step, for a before/after on one machine.
 */
import { nodeContext } from "../../src/cli/node-run";
import { DEFAULT_CONFIG, numPatches, paramLayout, SMALL_CONFIG } from "../../src/model/config";
import { TrainGraph } from "../../src/model/graph";
import { initParams, seededUniform } from "../../src/model/init";
import { MAX_PROMPT_TOKENS, PAD_ID, vocabSize } from "../../src/tasks/tokenizer";
import { parseBenchFlags, runBench } from "./harness";

runBench("bench-kernels", async () => {
  const flags = parseBenchFlags(process.argv.slice(2), {
    text: { kind: "int", min: 2, max: MAX_PROMPT_TOKENS + 64, default: 49, help: "text tokens" },
    batch: { kind: "int", min: 1, max: 256, default: 32, help: "rows" },
    size: { kind: "enum", of: ["small", "default"], default: "small", help: "model size" },
    compact: { kind: "bool", help: "the RL update's compacted graph" },
    shared: { kind: "int", min: 0, max: 256, default: 0, help: "group size of a shared prefix" },
    submit: { kind: "bool", help: "time the dispatches submitted together" },
    only: { kind: "string", default: "", help: "with --submit: kernels whose name contains this" },
  });
  if (flags.only && !flags.submit) throw new Error("--only needs --submit");
  const compact = flags.compact;
  const shared = flags.shared || undefined;
  if (shared !== undefined && !compact)
    throw new Error("--shared needs --compact (the shared-prefix graph is compacted)");
  const L = flags.text;
  const B = flags.batch;
  const size = flags.size;
  const base = size === "small" ? SMALL_CONFIG : DEFAULT_CONFIG;
  const config = {
    ...base,
    imageHeight: 28,
    imageWidth: 56,
    imageChannels: 1,
    vocabSize,
    maxSeqLen: 32 + MAX_PROMPT_TOKENS + 64,
  };
  const ctx = await nodeContext();
  const params = ctx.createBufferFrom("params", initParams(config, 1));
  const grads = ctx.createBuffer("grads", paramLayout(config).totalFloats * 4);
  const graph = new TrainGraph(ctx, config, B, L, {
    padId: PAD_ID,
    params,
    grads,
    compactLastLayer: compact,
    sharedPrefix: shared,
  });
  const u = seededUniform(3);
  const prompt = 15;
  const mask = new Float32Array(B * L).fill(compact ? 0 : 1);
  if (compact) {
    if (L < 2 * prompt) throw new Error(`--compact needs --text ≥ ${2 * prompt}, got ${L}`);
    for (let b = 0; b < B; b++) {
      const n = prompt + Math.floor(u() * (L - 2 * prompt + 1));
      mask.fill(1, b * L + prompt, b * L + prompt + n);
    }
  }
  const images = Float32Array.from({ length: B * 28 * 56 }, () => u());
  const tokens = Int32Array.from({ length: B * L }, () => 1 + Math.floor(u() * (vocabSize - 1)));
  if (shared)
    for (let b = 0; b < B; b++) {
      const first = b - (b % shared);
      images.copyWithin(b * 28 * 56, first * 28 * 56, (first + 1) * 28 * 56);
      tokens.copyWithin(b * L, first * L, first * L + prompt);
    }
  graph.setBatch({ images, tokens, mask });
  graph.policyForwardBackward({ advantages: new Float32Array(B).fill(0.5) });
  await graph.readStats();
  // The steady state: the matmuls' 16×8 tiles, built in the background, in place (CallOptions.upgrade).
  await ctx.backgroundBuilds();
  const { forward, backward } = graph.dispatches();
  const head = {
    environment: "node",
    adapter: ctx.adapter.description,
    shape: { size, B, L, T: numPatches(config) + L },
    compact,
    shared: shared ?? null,
  };
  if (flags.submit) {
    const only = flags.only;
    const sel = [...forward, ...backward].filter((c) => c.kernel.name.includes(only));
    if (sel.length === 0)
      throw new Error(`--only ${only}: no dispatch of the step has such a kernel`);
    const t: number[] = [];
    for (let r = 0; r < 25; r++) {
      await ctx.sync();
      const t0 = performance.now();
      for (const c of sel) ctx.run(c);
      await ctx.sync();
      t.push(performance.now() - t0);
    }
    t.sort((a, b) => a - b);
    const ms = (v: number) => Math.round(v * 10) / 10;
    ctx.destroy();
    return {
      ...head,
      submit: {
        only,
        dispatches: sel.length,
        median_ms: ms(t[12]),
        p25_ms: ms(t[6]),
        p75_ms: ms(t[18]),
      },
    };
  }
  const calls = [
    ...forward.map((c) => ["forward", c] as const),
    ...backward.map((c) => ["backward", c] as const),
  ];
  const ms = new Map<string, number>();
  const reps = 3;
  for (let r = 0; r <= reps; r++) {
    for (const [phase, c] of calls) {
      const t0 = performance.now();
      ctx.run(c);
      ctx.flush();
      await ctx.device.queue.onSubmittedWorkDone();
      const key = `${phase}\t${c.kernel.name}`;
      if (r > 0) ms.set(key, (ms.get(key) ?? 0) + (performance.now() - t0) / reps);
    }
  }
  const total = [...ms.values()].reduce((a, b) => a + b, 0);
  const kernels = [...ms]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => {
      const [phase, kernel] = k.split("\t");
      return {
        phase,
        kernel,
        ms: Math.round(v * 10) / 10,
        share: Math.round((v / total) * 1000) / 1000,
      };
    });
  ctx.destroy();
  return {
    ...head,
    rows: graph.prefix?.rows ?? B * (numPatches(config) + L),
    loss_tokens: mask.reduce((a, m) => a + m, 0),
    total_ms: Math.round(total * 10) / 10,
    kernels,
  };
});
