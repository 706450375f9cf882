/**
 * `--reward FILE` (lab, serve:rewards): a written reward's JavaScript, read
 * from a file the operator names (examples in examples/rewards/). Only the
 * file's text is read here; it runs in the reward sandbox
 * (src/rewards/sandbox.ts), never in this process's own JavaScript.
 */
import { readFileSync, statSync } from "node:fs";
import { USER_REWARD_MAX_CHARS } from "../rewards/index";

/**
 * The code of the reward file `path`.
 * @throws Error naming the file: missing, not a file, longer than
 *   USER_REWARD_MAX_CHARS characters, or with no `reward` function named in it.
 */
export function readRewardFile(path: string): string {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new Error("not a file");
    size = st.size;
  } catch (e) {
    throw new Error(`--reward ${path}: ${(e as Error).message}`);
  }
  if (size > USER_REWARD_MAX_CHARS * 4)
    throw new Error(
      `--reward ${path}: ${size} bytes, more than a reward may have (${USER_REWARD_MAX_CHARS} characters)`,
    );
  const code = readFileSync(path, "utf8");
  if (code.length > USER_REWARD_MAX_CHARS)
    throw new Error(
      `--reward ${path}: ${code.length} characters, more than ${USER_REWARD_MAX_CHARS}`,
    );
  if (!/\breward\b/.test(code))
    throw new Error(`--reward ${path}: no function reward(group) in it`);
  return code;
}
