// The text window of the RL update (src/engine/text-window.ts): the columns that
// hold every non-PAD token, rounded to the quantum, and the column slicing.
import { describe, expect, it } from "vitest";
import { sliceColumns, textWindow } from "../../src/engine/text-window";
import { PAD_ID } from "../../src/tasks/tokenizer";

const shape = { promptLen: 6, maxNew: 5 };
const L = 11;

/** A batch row: `lead` PADs, then prompt tokens to column 6, then `len` response tokens. */
function batchOf(rows: { lead: number; len: number }[]) {
  const tokens = new Int32Array(rows.length * L).fill(PAD_ID);
  const mask = new Float32Array(rows.length * L);
  rows.forEach(({ lead, len }, i) => {
    for (let s = lead; s < shape.promptLen; s++) tokens[i * L + s] = 7;
    for (let s = 0; s < len; s++) {
      tokens[i * L + shape.promptLen + s] = 9;
      mask[i * L + shape.promptLen + s] = 1;
    }
  });
  return { tokens, mask, lengths: Int32Array.from(rows.map((r) => r.len)) };
}

describe("textWindow", () => {
  it("keeps the columns from the shortest leading padding to the longest response", () => {
    const b = batchOf([
      { lead: 3, len: 2 },
      { lead: 2, len: 4 },
    ]);
    // Leading PAD shared by both rows: 2; used columns 2..9 (6 + 4): len 8.
    expect(textWindow(b, shape)).toEqual({ start: 2, len: 8 });
    // Rounded up to a multiple of 3 (9), still starting at 2.
    expect(textWindow(b, shape, 3)).toEqual({ start: 2, len: 9 });
    // Rounded past the text's end: the window moves left and stays inside.
    expect(textWindow(b, shape, 5)).toEqual({ start: 1, len: 10 });
  });

  it("is the whole text when some row has no leading PAD and runs to maxNew", () => {
    const b = batchOf([
      { lead: 0, len: 1 },
      { lead: 4, len: 5 },
    ]);
    expect(textWindow(b, shape, 4)).toEqual({ start: 0, len: L });
  });

  it("keeps every column in the loss mask, PAD or not", () => {
    const b = batchOf([{ lead: 3, len: 2 }]);
    b.mask[9] = 1; // a masked PAD column past the response
    expect(textWindow(b, shape)).toEqual({ start: 3, len: 7 });
  });

  it("keeps at least one prompt column before the responses", () => {
    const b = batchOf([{ lead: 6, len: 2 }]); // an all-PAD prompt row
    expect(textWindow(b, shape)).toEqual({ start: 5, len: 3 });
  });

  it("rejects a batch that does not fit the shape and a bad quantum, naming them", () => {
    const b = batchOf([{ lead: 1, len: 2 }]);
    expect(() => textWindow({ ...b, tokens: b.tokens.subarray(1) }, shape)).toThrow(
      /textWindow: tokens \[10\] and mask \[11\] do not both fit \[N, 11\]/,
    );
    expect(() => textWindow(b, shape, 0)).toThrow(/quantum must be a positive integer, got 0/);
  });
});

describe("sliceColumns", () => {
  it("takes the window of every row, for ids and for the mask", () => {
    const b = batchOf([
      { lead: 3, len: 2 },
      { lead: 2, len: 4 },
    ]);
    const w = { start: 2, len: 8 };
    const t = sliceColumns(b.tokens, L, w);
    expect(t).toBeInstanceOf(Int32Array);
    expect(Array.from(t)).toEqual([0, 7, 7, 7, 9, 9, 0, 0, 7, 7, 7, 7, 9, 9, 9, 9]);
    const m = sliceColumns(b.mask, L, w);
    expect(m).toBeInstanceOf(Float32Array);
    expect(Array.from(m)).toEqual([0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
    expect(() => sliceColumns(b.tokens, L, { start: 5, len: 7 })).toThrow(
      /window \[5, 12\) does not fit rows of 11/,
    );
  });
});
