/**
 * The written reward on the reward server: only the code the operator
 * passed with `--reward FILE` is ever run (no request field carries code),
 * in the same sandbox with the same limits as in the browser and the CLI
 * (src/rewards/sandbox.ts). Its components are the names the code returns.
 */
import {
  loadSandbox,
  scoreUserReward,
  type GroupScore,
  type SandboxEngine,
} from "../rewards/index";
import type { TaskPrompt } from "../tasks/types";

/** The operator's written reward: its code (from --reward FILE) and where its sandbox comes from. */
export interface ServedUserReward {
  code: string;
  /** Loads the sandbox (default: loadSandbox, the package's wasm file). */
  sandbox?: () => Promise<SandboxEngine>;
}

/** The operator's code failed on a group: the reply names why (its own code, never a request's text). */
export class UserRewardFailed extends Error {}

/**
 * Scores one group with the operator's written reward.
 * @throws UserRewardFailed with the sandbox's message (naming the line where it can) when the code fails on the group.
 */
export async function scoreServedUser(
  user: ServedUserReward,
  prompt: TaskPrompt,
  texts: readonly string[],
): Promise<GroupScore> {
  const engine = await (user.sandbox ?? loadSandbox)();
  try {
    return scoreUserReward(engine, user.code, prompt, texts);
  } catch (e) {
    throw new UserRewardFailed((e as Error).message);
  }
}
