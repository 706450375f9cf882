// `npm run lab -- --out DIR` writes the run snapshot (src/run/snapshot.ts)
// after every step; `--resume` continues it in a new run to --steps. Sized
// tiny (RLVR only, G 2, 1 prompt, 4 held-out prompts, 2 + 1 steps).
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeSnapshot } from "../../src/run/snapshot";
import { runCli } from "../support/cli";

const lab = (...args: string[]) => runCli("lab", args, { timeout: 600_000 });

describe("npm run lab -- --out DIR / --resume DIR/snapshot.rlsnap", () => {
  it("saves the snapshot of every step and resumes it", () => {
    const root = mkdtempSync(join(tmpdir(), "reward-lab-resume-"));
    try {
      const first = join(root, "first");
      const a = lab(
        ...["--preset", "smoke", "--variants", "rlvr", "--group-size", "2"],
        ...["--batch-prompts", "1", "--eval-size", "4", "--eval-every", "2", "--steps", "2"],
        ...["--out", first, "--quiet"],
      );
      expect(a.code, `stderr:\n${a.stderr}`).toBe(0);
      expect(existsSync(join(first, "snapshot.rlsnap.partial"))).toBe(false);
      const snap = decodeSnapshot(new Uint8Array(readFileSync(join(first, "snapshot.rlsnap"))));
      expect(snap.step).toBe(2);
      expect(snap.policies.map((p) => [p.key, p.t])).toEqual([["rlvr", 2]]);

      // Only the step budget and the output go with --resume.
      const clash = lab("--resume", join(first, "snapshot.rlsnap"), "--lr", "1e-4", "--dry-run");
      expect(clash.code).toBe(1);
      expect(clash.lastJson.error).toBe(
        "--resume continues the snapshot's experiment; --lr cannot go with it (only --steps, --out, --force, --quiet, --dry-run and --prm can)",
      );
      const none = lab("--resume", join(first, "snapshot.rlsnap"), "--dry-run");
      expect(none.lastJson.error).toBe(
        "--resume: the snapshot is at step 2; with --steps 2 there is nothing to train",
      );

      const second = join(root, "second");
      const b = lab(
        ...["--resume", join(first, "snapshot.rlsnap"), "--steps", "3", "--out", second, "--quiet"],
      );
      expect(b.code, `stderr:\n${b.stderr}`).toBe(0);
      expect(b.lastJson.preset).toBe("resume");
      const rows = readFileSync(join(second, "metrics.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(rows.filter((r) => r.kind === "train").map((r) => r.step)).toEqual([3]);
      expect(rows.filter((r) => r.kind === "eval").map((r) => r.step)).toEqual([0, 3]);
      const end = decodeSnapshot(new Uint8Array(readFileSync(join(second, "snapshot.rlsnap"))));
      expect([end.step, end.policies[0].t]).toEqual([3, 3]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
