/**
 * A written reward that arrives with a link is shown, not run: the page
 * holds training until the user presses Run in the reward's card. Code the
 * user typed or an example they picked is theirs and runs as it is.
 */
import type { Experiment } from "../settings/experiment";
import { USER_REWARD_DEFAULT_CODE } from "../rewards/index";

/** Whether `exp` trains a written reward whose code is not the default (code a link brought in). */
export function heldRewardCode(exp: Experiment): boolean {
  const v = exp.variants.find((x) => x.name === "user");
  return v !== undefined && v.weights.code !== USER_REWARD_DEFAULT_CODE;
}

/** What the page says when Train or Step is pressed while such code is held. */
export const HELD_CODE_MESSAGE =
  "Your reward's code came with the link and has not run: read it in the Your reward card and press Run first.";
