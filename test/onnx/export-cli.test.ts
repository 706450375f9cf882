// `npm run export:onnx -- CHECKPOINT OUT.onnx`: a shipped checkpoint gives a
// file that onnxruntime-web loads and whose logits are the reference
// forward's; a checkpoint of another format version gives the checkpoint
// loader's error and leaves an earlier OUT.onnx as it was.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadCheckpoint } from "../../src/model/checkpoint";
import { referenceForward } from "../../src/model/reference";
import { createOnnxSession } from "../../src/onnx/session";
import { PAD_ID } from "../../src/tasks/tokenizer";
import { tinyBatch } from "../model/tiny";
import { runCli } from "../support/cli";

const ROOT = resolve(import.meta.dirname, "../..");
const CKPT = resolve(ROOT, "public/checkpoints/sft-digits2-mc-small.ckpt");
const dir = mkdtempSync(join(tmpdir(), "reward-lab-onnx-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const exportOnnx = (args: string[]) => runCli("export-onnx", args, { timeout: 300_000 });

describe("npm run export:onnx", () => {
  it("writes a file that onnxruntime-web loads, with the reference forward's logits", async () => {
    const out = join(dir, "policy.onnx");
    const res = exportOnnx([CKPT, out]);
    expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
    const line = res.lastJson;
    expect(line).toMatchObject({ onnx: out, opset: 17, irVersion: 8 });
    expect(line.probe.relMaxDiffVsReference).toBeLessThan(1e-4);
    const bytes = new Uint8Array(readFileSync(out));
    expect(line.bytes).toBe(bytes.length);

    const { config, params } = loadCheckpoint(new Uint8Array(readFileSync(CKPT)));
    const batch = tinyBatch(config, 2, 30, 14, 4);
    expect(batch.padId).toBe(PAD_ID);
    const s = await createOnnxSession(bytes);
    const got = await s.run(batch.images, batch.tokens, 2);
    await s.release();
    const ref = referenceForward(config, params, batch).logits;
    let d = 0;
    let m = 0;
    for (let i = 0; i < ref.length; i++) {
      d = Math.max(d, Math.abs(got[i] - ref[i]));
      m = Math.max(m, Math.abs(ref[i]));
    }
    expect(d / m).toBeLessThan(1e-4);
  });

  it("a checkpoint of another format version gives the loader's error and writes nothing", () => {
    const bad = new Uint8Array(readFileSync(CKPT));
    new DataView(bad.buffer).setUint32(8, 3, true); // the version field after the 8 magic bytes
    const badFile = join(dir, "v3.ckpt");
    writeFileSync(badFile, bad);
    const out = join(dir, "kept.onnx");
    writeFileSync(out, "earlier file");
    const res = exportOnnx([badFile, out]);
    expect(res.code).toBe(1);
    const line = res.lastJson;
    expect(line.error).toMatch(
      /^unsupported checkpoint format version 3 \(this build reads versions 1 and 2/,
    );
    expect(res.stderr).toContain("export-onnx: unsupported checkpoint format version 3");
    expect(readFileSync(out, "utf8")).toBe("earlier file");
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("names a missing argument and a missing checkpoint", () => {
    const one = exportOnnx([CKPT]);
    expect(one.code).toBe(1);
    expect(one.lastJson.error).toBe(
      "OUT.onnx is missing (the ONNX file to write); usage: npm run export:onnx -- CHECKPOINT OUT.onnx",
    );
    const missing = exportOnnx([join(dir, "nope.ckpt"), join(dir, "x.onnx")]);
    expect(missing.lastJson.error).toBe(`CHECKPOINT: no such file '${join(dir, "nope.ckpt")}'`);
    expect(existsSync(join(dir, "x.onnx"))).toBe(false);
  });
});
