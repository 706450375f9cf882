import { describe, expect, it } from "vitest";
import { paramLayout, SMALL_CONFIG } from "../../src/model/config";
import { initParams } from "../../src/model/init";
import { extendPositions } from "../../src/model/resize";

const from = { ...SMALL_CONFIG, maxSeqLen: 20 };
const to = { ...from, maxSeqLen: 23 };

describe("extendPositions", () => {
  it("copies every tensor and fills the new position rows with the last old one", () => {
    const params = initParams(from, 7);
    const out = extendPositions(params, from, to);
    const a = paramLayout(from);
    const b = paramLayout(to);
    expect(out.length).toBe(b.totalFloats);
    for (const t of b.tensors) {
      const s = a.byName.get(t.name)!;
      const old = Array.from(params.subarray(s.offset, s.offset + s.size));
      const now = Array.from(out.subarray(t.offset, t.offset + s.size));
      expect(now, t.name).toEqual(old);
    }
    const wpe = b.byName.get("wpe")!;
    const d = from.dModel;
    const last = Array.from(out.subarray(wpe.offset + 19 * d, wpe.offset + 20 * d));
    for (const row of [20, 21, 22])
      expect(Array.from(out.subarray(wpe.offset + row * d, wpe.offset + (row + 1) * d))).toEqual(
        last,
      );
  });

  it("names what does not fit", () => {
    const params = initParams(from, 7);
    expect(() => extendPositions(params, from, { ...to, dModel: 32 })).toThrow(/dModel differs/);
    expect(() => extendPositions(initParams(to, 1), to, from)).toThrow(/smaller/);
    expect(() => extendPositions(params.subarray(1), from, to)).toThrow(/params has/);
  });
});
