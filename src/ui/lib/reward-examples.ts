/**
 * The shipped written rewards (examples/rewards/*.js, the same files the CLI
 * and the reward server read), one click away in the Your reward card.
 */
import answerOnly from "../../../examples/rewards/answer-only.js?raw";
import formatOnly from "../../../examples/rewards/format-only.js?raw";
import keywordBonus from "../../../examples/rewards/keyword-bonus.js?raw";
import lengthBonus from "../../../examples/rewards/length-bonus.js?raw";
import rlvr from "../../../examples/rewards/rlvr.js?raw";
import structreward from "../../../examples/rewards/structreward.js?raw";

/** Label and code of each example, in the order the card lists them. */
export const REWARD_EXAMPLES: readonly { key: string; label: string; code: string }[] = [
  { key: "answer-only", label: "Answer only", code: answerOnly },
  { key: "length-bonus", label: "Length bonus (gamed)", code: lengthBonus },
  { key: "keyword-bonus", label: "Keyword bonus", code: keywordBonus },
  { key: "format-only", label: "Format only", code: formatOnly },
  { key: "rlvr", label: "RLVR", code: rlvr },
  { key: "structreward", label: "StructReward", code: structreward },
];
