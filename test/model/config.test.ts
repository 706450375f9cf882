// Model config validation: a config that cannot work names the field and the
// limit it breaks; the parameter layout is 64-float aligned and counts match.
import { describe, expect, it } from "vitest";
import {
  DEFAULT_CONFIG,
  SMALL_CONFIG,
  paramLayout,
  validateConfig,
  numPatches,
} from "../../src/model/config";
import { ALIGN_FLOATS } from "../../src/layout/param-layout";
import { initParams } from "../../src/model/init";

describe("validateConfig", () => {
  it("accepts the presets", () => {
    expect(() => validateConfig(DEFAULT_CONFIG)).not.toThrow();
    expect(() => validateConfig(SMALL_CONFIG)).not.toThrow();
    expect(numPatches(DEFAULT_CONFIG)).toBe(32); // 28×56 in 7×7 patches
  });

  it.each([
    [{ dModel: 130 }, /dModel \(130\) must be divisible by config\.nHeads \(4\)/],
    [{ imageWidth: 50 }, /imageWidth \(50\) must be divisible by config\.patchSize \(7\)/],
    [{ imageHeight: 30 }, /imageHeight \(30\) must be divisible by config\.patchSize/],
    [{ nLayers: 0 }, /config\.nLayers must be a positive integer/],
    [{ vocabSize: 2.5 }, /config\.vocabSize must be a positive integer/],
    [{ maxSeqLen: 33 }, /maxSeqLen \(33\) must exceed the 32 patch tokens/],
  ])("rejects %j", (patch, message) => {
    expect(() => validateConfig({ ...DEFAULT_CONFIG, ...patch })).toThrow(message);
  });

  it("names the adapter limit a config's parameters exceed", () => {
    expect(() => validateConfig(DEFAULT_CONFIG, { maxStorageBufferBindingSize: 1 << 20 })).toThrow(
      /over the adapter's maxStorageBufferBindingSize of 1048576; reduce config\.dModel or config\.nLayers/,
    );
  });
});

describe("paramLayout", () => {
  it("aligns every tensor to 64 floats and counts the default model's parameters", () => {
    const layout = paramLayout(DEFAULT_CONFIG);
    for (const t of layout.tensors) expect(t.offset % ALIGN_FLOATS, t.name).toBe(0);
    const d = 128,
      V = 196,
      h = 512;
    const perLayer = 2 * d + d * 3 * d + 3 * d + d * d + d + 2 * d + d * h + h + h * d + d;
    expect(layout.count).toBe(49 * d + d + V * d + 128 * d + 4 * perLayer + 2 * d + d * V);
    expect(layout.byName.get("h.3.mlp.wproj")!.shape).toEqual([512, 128]);
  });

  it("initialises deterministically: same seed, same bytes; LayerNorm gains 1, biases 0", () => {
    const a = initParams(SMALL_CONFIG, 7);
    expect(initParams(SMALL_CONFIG, 7)).toEqual(a);
    expect(initParams(SMALL_CONFIG, 8)).not.toEqual(a);
    const layout = paramLayout(SMALL_CONFIG);
    const g = layout.byName.get("h.0.ln1.g")!;
    const b = layout.byName.get("h.1.mlp.bfc")!;
    expect(Array.from(a.subarray(g.offset, g.offset + g.size)).every((x) => x === 1)).toBe(true);
    expect(Array.from(a.subarray(b.offset, b.offset + b.size)).every((x) => x === 0)).toBe(true);
  });
});
