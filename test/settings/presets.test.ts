// The presets' "when a difference shows" sentences quote the shipped
// recordings: the number of seeds and steps they name must be the files'.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PICKER_PRESETS, presetEntry } from "../../src/settings/presets";

const recording = (name: string) =>
  JSON.parse(
    readFileSync(resolve(import.meta.dirname, `../../public/recordings/${name}.json`), "utf8"),
  ) as { run: { experiment: { seeds: number[] }; lastStep: number } };

/** "4-seed recording (seeds 31–34, 20 steps)", "3-seed recording's bands … through its 20 steps". */
const QUOTE =
  /(\d+)-seed recording(?:'s)?(?: \((?:seeds [\d–]+, )?(\d+) steps\)|[^.;]*? through its (\d+) steps)?/;

describe("presets: when a difference shows", () => {
  it.each(PICKER_PRESETS)("%s says when, from measured runs", (name) => {
    const text = presetEntry(name).whenItShows;
    expect(text, name).toMatch(/^(Measured|Nothing): /);
  });

  it.each(PICKER_PRESETS.filter((n) => QUOTE.test(presetEntry(n).whenItShows ?? "")))(
    "%s quotes its shipped recording's seeds and steps",
    (name) => {
      const m = QUOTE.exec(presetEntry(name).whenItShows ?? "");
      const file = recording(name);
      expect(Number(m?.[1]), `${name}: seeds`).toBe(file.run.experiment.seeds.length);
      const steps = m?.[2] ?? m?.[3];
      expect(steps, `${name}: the sentence names the recording's steps`).toBeDefined();
      expect(Number(steps), `${name}: steps`).toBe(file.run.lastStep);
    },
  );

  it("the quote pattern reads both forms the sentences use", () => {
    expect(QUOTE.exec("in the 4-seed recording (seeds 31–34, 40 steps) IncR")?.slice(1, 3)).toEqual(
      ["4", "40"],
    );
    expect(QUOTE.exec("the 3-seed recording's bands overlap through its 20 steps")?.[3]).toBe("20");
    expect(QUOTE.exec("in the 3-seed recording (10 steps) GRR")?.[2]).toBe("10");
  });
});
