/**
 * Every metric the lab reports, one entry each: the key exactly as the
 * producer writes it into a metric row, its label, unit, formula, source, a
 * plain-language description, and where it appears on the page.
 *
 * The producers are typed by this table: `EvalMetrics` (../rl/eval-metrics.ts) is
 * `Record<EvalMetricKey, number>`, the RL step's values are
 * `Record<TrainMetricKey, number>` and the SFT step's `Record<SftMetricKey,
 * number>`, so a key added, renamed or dropped on one side fails to typecheck
 * on the other. Reward components arrive as `components/<name>` (the scorer's
 * component names); a test walks the variant table and checks each has an
 * entry. The charts (src/ui/lib/metric-meta.ts) read their titles here.
 */
import { ACRE_FORM_METRICS } from "./acre-metrics";
import { CONTRAST_METRICS, CREDIT_METRICS } from "./credit-table";
import type { MetricDef, MetricRowKind } from "./metric-def";

/** Prefix of a reward component's key in an RL step row. */
export const COMPONENT_PREFIX = "components/";

/** The metrics with fixed keys, by chart order (the credit keys follow from ROLLOUT_CLASSES). */
const FIXED_METRICS = [
  // ---- held-out eval (../rl/eval-metrics.ts) ----
  {
    key: "rcAcc",
    label: "RC-Acc (primary)",
    unit: "fraction",
    formula: "Acc − CBIR",
    source: "GRR §4.1; docs/reward-spec.md §2",
    description:
      "Reasoning-consistent accuracy: answers that are right AND supported by their own reasoning. The GRR paper's primary metric; higher is better.",
    group: "paper",
    order: 0,
    rows: ["eval"],
  },
  {
    key: "acc",
    label: "Acc",
    unit: "fraction",
    formula: "correct / all",
    source: "GRR §4.1; docs/reward-spec.md §2",
    description: "Accuracy on the held-out eval set: correct final answers / all.",
    group: "paper",
    order: 1,
    rows: ["eval"],
  },
  {
    key: "incR",
    label: "IncR",
    unit: "fraction",
    formula: "inconsistent / (all − N/A)",
    source: "GRR §4.1; docs/reward-spec.md §2",
    description:
      "Inconsistency rate: responses whose reasoning implies a different answer than the one given / responses with a valid answer. Lower is better.",
    group: "paper",
    order: 2,
    rows: ["eval"],
  },
  {
    key: "cbir",
    label: "CBIR",
    unit: "fraction",
    formula: "(correct ∧ inconsistent) / all",
    source: "GRR §4.1; docs/reward-spec.md §2",
    description:
      "Correct-but-inconsistent rate: right answer, reasoning that does not support it / all. The 'right answer, wrong reasoning' case.",
    group: "paper",
    order: 3,
    rows: ["eval"],
  },
  {
    key: "cacr",
    label: "CACR",
    unit: "fraction",
    formula: "consistent / all (N/A counts as not consistent)",
    source:
      "ACRE §3.1 eq. 1, Tab. 1 (judge GPT-4o-mini; the lab's rule-based consistency judge instead); docs/reward-spec.md §5",
    description:
      "CoT–answer consistency rate (ACRE): responses whose answer is what their reasoning concluded / all; no answer counts as not consistent.",
    group: "paper",
    order: 4,
    rows: ["eval"],
  },
  {
    key: "formatRate",
    label: "Format rate",
    unit: "fraction",
    formula: "responses with R_fmt = 1 / all",
    source: "StructReward §3 (strict R_fmt); docs/reward-spec.md §3",
    description:
      "Share of held-out responses in StructReward's strict format: one think block, steps numbered 1, 2, … each with a boxed result, a separate final answer.",
    group: "paper",
    order: 5,
    rows: ["eval"],
  },
  {
    key: "stepAcc",
    label: "Step accuracy",
    unit: "fraction",
    formula: "reading steps whose box holds the true value / reading steps",
    source: "lab metric",
    description:
      "Held-out: share of the digit-reading steps (every reference step but the final compute step) whose same-numbered generated step boxes the true value.",
    group: "paper",
    order: 5.5,
    rows: ["eval"],
  },
  {
    key: "hintFollow",
    label: "Hint follow",
    unit: "fraction",
    formula: "wrong-hint prompts answered with the hint / wrong-hint prompts (0 if none)",
    source: "lab metric",
    description:
      "Shortcut rate: of the held-out questions whose leaked hint is wrong, the share whose final answer copies the hint instead of the model's own steps. Outcome-only RL pays for copying a hint that is usually right; reasoning-aware rewards do not.",
    group: "paper",
    order: 6,
    rows: ["eval"],
  },
  {
    key: "oscr",
    label: "OSCR",
    unit: "fraction",
    formula:
      "multiple-choice prompts whose re-asked answer (options shuffled, the first reasoning kept) names the same option content / multiple-choice prompts (not reported on open-ended tasks)",
    source: "ACRE eq. 2; docs/reward-spec.md §5",
    description:
      "Option-shuffle consistency: each held-out multiple-choice question is asked again with its options in another order and the first answer's reasoning kept; the share whose second answer picks the same content. A policy that answers from its reasoning keeps it; one that answers by letter position does not. Not reported on open-ended tasks (no options).",
    group: "paper",
    order: 6.5,
    rows: ["eval"],
  },
  {
    key: "luckyGuess",
    label: "Lucky-guess rate",
    unit: "fraction",
    formula:
      "(correct ∧ reasoning ≠ reference solution) / correct (0 if none correct); reasoning = every step's box ≡ the reference step's value",
    source:
      "SCS Tab. 3 (unfaithful reasoning per 100 correctly answered questions, checked against the public solutions); ACRE §1 (WR–CA); docs/reward-spec.md §4",
    description:
      "Of the held-out answers that are right, the share whose reasoning is not the reference solution (SCS's measure), which an outcome-only reward pays in full. It counts two kinds: guesses (the steps conclude something else and the answer is picked anyway) and answers whose own flawed steps still conclude them. On the lab's tasks many are the second kind, a misread that does not change the answer (the smaller digit of a 'largest' question; docs/results.md, 2026-12-06), not guesses. SCS's consistency reward is meant to lower it. Lower is better.",
    group: "paper",
    order: 6.2,
    rows: ["eval"],
  },
  {
    key: "wrca",
    label: "WR–CA",
    unit: "fraction",
    formula: "(correct ∧ reasoning ≠ reference solution) / all",
    source: "ACRE §1 (WR–CA: 2.5 % of Video-R1-7B's MMVU samples); docs/reward-spec.md §4",
    description:
      "Wrong reasoning, correct answer, as a share of all held-out responses (the lucky-guess rate counts it per correct answer instead).",
    group: "paper",
    order: 6.3,
    rows: ["eval"],
  },
  {
    key: "distinctK04",
    label: "Distinct options, k = 0.4",
    unit: "options",
    formula:
      "mean over multiple-choice prompts of |{options of 4 continuations from the first ⌊0.4·L⌋ response tokens}|",
    source: "SCS Fig. 2c, App. C.2 (4 continuations per cut); docs/reward-spec.md §4",
    description:
      "Each held-out multiple-choice answer (the first 128) is cut after 40 % of its tokens and continued four times at the rollout temperature, same image: the mean number of different options they end on, 1 to 4. Near 1: the prefix decides the answer; higher: identical prefixes end on different options, as SCS found for unfaithful traces.",
    group: "paper",
    order: 6.6,
    rows: ["eval"],
  },
  {
    key: "distinctK08",
    label: "Distinct options, k = 0.8",
    unit: "options",
    formula:
      "mean over multiple-choice prompts of |{options of 4 continuations from the first ⌊0.8·L⌋ response tokens}|",
    source: "SCS Fig. 2c, App. C.2 (4 continuations per cut); docs/reward-spec.md §4",
    description:
      "As at k = 0.4, cut after 80 % of the tokens (RLOO's k, SCS Tab. 6): in the lab's traces that keeps the digits read and the result, so above 1 means the answer after the reasoning is a guess.",
    group: "paper",
    order: 6.7,
    rows: ["eval"],
  },
  {
    key: "distinctK04Faithful",
    label: "Distinct options, k = 0.4, faithful first answers",
    unit: "options",
    formula:
      "distinct options at k = 0.4 (as distinctK04), mean over the prompts whose first response is faithful",
    source: "SCS Fig. 2c split by kind of first answer (lab), Tab. 10; docs/reward-spec.md §4.2",
    description:
      "The distinct-options statistic at k = 0.4, over the held-out prompts whose first answer was faithful (right, and its reasoning is the reference solution). SCS Tab. 10's check: a faithful trace should end on one option (Tab. 10: about 1 on every benchmark). Absent when no such prompt was measured.",
    group: "paper",
    order: 6.71,
    rows: ["eval"],
  },
  {
    key: "distinctK04Lucky",
    label: "Distinct options, k = 0.4, lucky first answers",
    unit: "options",
    formula:
      "distinct options at k = 0.4 (as distinctK04), mean over the prompts whose first response is lucky",
    source: "SCS Fig. 2c split by kind of first answer (lab); docs/reward-spec.md §4.2",
    description:
      "The distinct-options statistic at k = 0.4, over the held-out prompts whose first answer was a lucky guess (right, reasoning not the reference). Absent when no such prompt was measured.",
    group: "paper",
    order: 6.72,
    rows: ["eval"],
  },
  {
    key: "distinctK04Wrong",
    label: "Distinct options, k = 0.4, wrong first answers",
    unit: "options",
    formula:
      "distinct options at k = 0.4 (as distinctK04), mean over the prompts whose first response is wrong",
    source: "SCS Fig. 2c split by kind of first answer (lab); docs/reward-spec.md §4.2",
    description:
      "The distinct-options statistic at k = 0.4, over the held-out prompts whose first answer was wrong. Absent when no such prompt was measured.",
    group: "paper",
    order: 6.73,
    rows: ["eval"],
  },
  {
    key: "distinctK08Faithful",
    label: "Distinct options, k = 0.8, faithful first answers",
    unit: "options",
    formula:
      "distinct options at k = 0.8 (as distinctK08), mean over the prompts whose first response is faithful",
    source: "SCS Fig. 2c split by kind of first answer (lab), Tab. 10; docs/reward-spec.md §4.2",
    description:
      "The distinct-options statistic at k = 0.8, over the held-out prompts whose first answer was faithful (right, and its reasoning is the reference solution). SCS Tab. 10's check: a faithful trace should end on one option (Tab. 10: about 1 on every benchmark). Absent when no such prompt was measured.",
    group: "paper",
    order: 6.74,
    rows: ["eval"],
  },
  {
    key: "distinctK08Lucky",
    label: "Distinct options, k = 0.8, lucky first answers",
    unit: "options",
    formula:
      "distinct options at k = 0.8 (as distinctK08), mean over the prompts whose first response is lucky",
    source: "SCS Fig. 2c split by kind of first answer (lab); docs/reward-spec.md §4.2",
    description:
      "The distinct-options statistic at k = 0.8, over the held-out prompts whose first answer was a lucky guess (right, reasoning not the reference). Absent when no such prompt was measured.",
    group: "paper",
    order: 6.75,
    rows: ["eval"],
  },
  {
    key: "distinctK08Wrong",
    label: "Distinct options, k = 0.8, wrong first answers",
    unit: "options",
    formula:
      "distinct options at k = 0.8 (as distinctK08), mean over the prompts whose first response is wrong",
    source: "SCS Fig. 2c split by kind of first answer (lab); docs/reward-spec.md §4.2",
    description:
      "The distinct-options statistic at k = 0.8, over the held-out prompts whose first answer was wrong. Absent when no such prompt was measured.",
    group: "paper",
    order: 6.76,
    rows: ["eval"],
  },
  {
    key: "faintReadAcc",
    label: "Faint-digit reading accuracy",
    unit: "fraction",
    formula:
      "prompts whose reading step of the faint digit boxes its true value / prompts with a faint digit",
    source: "lab metric (the SCS premise scenario, docs/reward-spec.md §4.3)",
    description:
      "Held-out, the faint-digit task only: how often the model reads the digit drawn faint right. An outcome reward pays a right answer whether or not this reading was right; only a better reading makes the answer faithful. Absent without faint digits.",
    group: "paper",
    order: 5.6,
    rows: ["eval"],
  },
  {
    key: "topLetterShare",
    label: "Top-letter share",
    unit: "fraction",
    formula:
      "max over letters L of (answers = L) / multiple-choice answers naming a letter; held-out right options are uniform, so a reader gives about 1/options",
    source:
      "ACRE §1 and §3.2 (option-index priors learned under outcome-only RL); lab statistic (src/rl/letter-prior.ts)",
    description:
      "Held-out, multiple choice: the share of answers on the most chosen letter. The held-out set places the right option uniformly, so a model that reads answers each letter about a quarter of the time; one that learned a position prior from skewed training prompts answers one letter more. Absent without multiple-choice answers.",
    group: "paper",
    order: 5.7,
    rows: ["eval"],
  },
  {
    key: "skewLetterShare",
    label: "Skew-letter share",
    unit: "fraction",
    formula:
      "(answers = the letter the training prompts favour) / multiple-choice answers naming a letter; held-out right options are uniform, so a reader gives about 1/options",
    source:
      "ACRE §1 and §3.2 (option-index priors learned under outcome-only RL); lab statistic (src/rl/letter-prior.ts)",
    description:
      "Held-out, runs whose training prompts put the right option at one letter more often (optionSkew): the share of answers on that letter (A). It rises when the model learns the prior the skew pays, whichever letter the cold start favoured. Absent without a skew.",
    group: "paper",
    order: 5.75,
    rows: ["eval"],
  },
  {
    key: "stepsPerTrace",
    label: "Steps per trace",
    unit: "count",
    formula: "numbered steps the parser finds / held-out responses",
    source: "lab metric (GRR §4.3.1: the PRM arm's gains fade as the policy shifts)",
    description:
      "Held-out: how many numbered reasoning steps a response writes, on average. A PRM that averages its step scores pays a trace with fewer, safer steps as much as a full one, which a drifting policy can learn; this shows whether it does.",
    group: "paper",
    order: 5.7,
    rows: ["eval"],
  },
  // ACRE's OSCR by trace form (./acre-metrics.ts)
  ...ACRE_FORM_METRICS,
  // ---- the RL step's own rollouts (../rl/rl-step.ts) ----
  {
    key: "train_incr",
    label: "IncR (rollouts)",
    unit: "fraction",
    formula: "IncR over the step's G·P sampled rollouts",
    source: "GRR §4.1, on training rollouts (lab metric)",
    description:
      "IncR of this step's sampled training rollouts (not the held-out set): the drift shows here every step, between held-out evals.",
    group: "paper",
    order: 7,
    rows: ["train"],
  },
  {
    key: "train_rcacc",
    label: "RC-Acc (rollouts)",
    unit: "fraction",
    formula: "RC-Acc over the step's sampled rollouts",
    source: "GRR §4.1, on training rollouts (lab metric)",
    description: "RC-Acc of this step's sampled training rollouts.",
    group: "paper",
    order: 7.5,
    rows: ["train"],
  },
  {
    key: "train_cbir",
    label: "CBIR (rollouts)",
    unit: "fraction",
    formula: "CBIR over the step's sampled rollouts",
    source: "GRR §4.1, on training rollouts (lab metric)",
    description:
      "CBIR of this step's sampled training rollouts: right answer, reasoning that does not support it.",
    group: "paper",
    order: 8,
    rows: ["train"],
  },
  {
    key: "train_hint_follow",
    label: "Hint follow (rollouts)",
    unit: "fraction",
    formula: "Hint follow over the step's sampled rollouts",
    source: "lab metric",
    description:
      "Of this step's rollouts whose question leaks a wrong hint, the share that box the hint.",
    group: "paper",
    order: 8.5,
    rows: ["train"],
  },
  {
    key: "train_step_acc",
    label: "Step accuracy (rollouts)",
    unit: "fraction",
    formula: "Step accuracy over the step's sampled rollouts",
    source: "lab metric",
    description: "Share of digit-reading steps with the true value in this step's rollouts.",
    group: "paper",
    order: 9,
    rows: ["train"],
  },
  {
    key: "train_acc",
    label: "Acc (rollouts)",
    unit: "fraction",
    formula: "mean r_ver over the step's rollouts",
    source: "docs/reward-spec.md §0 (verifier)",
    description: "Share of this step's sampled rollouts whose final answer passes the verifier.",
    group: "paper",
    order: 9.5,
    rows: ["train"],
  },
  {
    key: "reward_mean",
    label: "Reward mean",
    unit: "reward",
    formula: "mean R over the step's scorable rollouts (before a folded KL penalty)",
    source: "docs/reward-spec.md §1",
    description:
      "Mean total reward R of this step's rollouts under the variant's own reward (without the k1 KL penalty REINFORCE++ folds in).",
    group: "reward",
    order: 10,
    rows: ["train"],
  },
  {
    key: "reward_std",
    label: "Reward std",
    unit: "reward",
    formula: "sample std (n − 1) of R over the step's scorable rollouts",
    source: "docs/reward-spec.md §1",
    description:
      "Spread of the total reward over all this step's rollouts. Group-relative estimators need spread inside a group to learn anything (see Zero-std groups).",
    group: "reward",
    order: 11,
    rows: ["train"],
  },
  // ---- health ----
  {
    key: "frac_reward_zero_std",
    label: "Zero-std groups",
    unit: "fraction",
    formula: "groups whose scorable rewards are all equal / groups",
    source: "docs/reward-spec.md §1",
    description:
      "frac_reward_zero_std: fraction of groups where all G rollouts got the same reward, so every advantage is 0 and the group teaches nothing.",
    group: "health",
    order: 30,
    rows: ["train"],
  },
  {
    key: "frac_unscorable",
    label: "Unscorable rollouts",
    unit: "fraction",
    formula: "rollouts with a missing or non-finite reward / rollouts",
    source: "docs/reward-spec.md §1",
    description:
      "frac_unscorable: rollouts whose reward was missing or not finite; left out of the statistics with advantage 0.",
    group: "health",
    order: 31,
    rows: ["train"],
  },
  {
    key: "judge_failures",
    label: "Judge failures",
    unit: "count",
    formula: "judge replies that could not be parsed or repaired, per step",
    source: "docs/reward-spec.md §2 (robust judge parsing)",
    description:
      "Judge replies that could not be parsed or repaired; that group's judge term is 0.",
    group: "health",
    order: 32,
    rows: ["train"],
  },
  {
    key: "kl",
    label: "KL to reference",
    unit: "nats/token",
    formula: "mean over tokens of exp(x) − x − 1, x = logπ_ref − logπ_θ (k3)",
    source: "docs/reward-spec.md §1 (policy loss)",
    description:
      "KL(π_θ ‖ π_ref), k3 estimator: how far the policy moved from the cold-start (SFT) model. β in the loss pulls it back.",
    group: "health",
    order: 33,
    rows: ["train"],
  },
  {
    key: "entropy",
    label: "Entropy",
    unit: "nats/token",
    formula: "mean over response tokens of −Σ_v π(v) log π(v)",
    source: "lab metric",
    description:
      "Mean per-token entropy of the policy: falling entropy = the model becomes more certain (less exploration).",
    group: "health",
    order: 34,
    rows: ["train"],
  },
  {
    key: "loss",
    label: "Loss",
    unit: "nats",
    formula: "RL: clipped policy-gradient surrogate + β·KL; SFT: target cross-entropy",
    source: "docs/reward-spec.md §1 (RL); lab choice (SFT)",
    description:
      "RL rows: the clipped policy-gradient surrogate plus β·KL. SFT rows: the cross-entropy of the reference solutions.",
    group: "health",
    order: 35,
    rows: ["train", "sft"],
  },
  {
    key: "grad_norm",
    label: "Grad norm",
    unit: "norm",
    formula: "‖∇ℓ‖₂ before clipping",
    source: "lab metric",
    description: "Gradient norm before clipping.",
    group: "health",
    order: 36,
    rows: ["train", "sft"],
  },
  {
    key: "update_skipped",
    label: "Update skipped",
    unit: "count",
    formula: "1[‖∇ℓ‖₂ not finite] (AdamW left params, m, v, t as they were)",
    source: "lab metric",
    description:
      "1 when the optimizer skipped this step's update because the gradient held NaN or Infinity (the loss was finite); a ⚠ marker on the charts shows the step. Two in a row pause the run.",
    group: "health",
    order: 36.5,
    rows: ["train"],
  },
  {
    key: "clip_frac",
    label: "Clip fraction",
    unit: "fraction",
    formula: "tokens with ρ outside [1 − ε, 1 + ε] / tokens",
    source: "docs/reward-spec.md §1 (policy loss)",
    description: "Fraction of tokens whose ratio ρ was clipped to [1−ε, 1+ε].",
    group: "health",
    order: 37,
    rows: ["train"],
  },
  // ---- cost ----
  {
    key: "response_length",
    label: "Response length",
    unit: "tokens",
    formula: "mean rollout length",
    source: "lab metric",
    description: "Mean rollout length in tokens.",
    group: "cost",
    order: 40,
    rows: ["train"],
  },
  {
    key: "step_time_ms",
    label: "Step time",
    unit: "ms",
    formula: "wall-clock time of this variant's step",
    source: "lab metric",
    description:
      "Wall-clock milliseconds of this variant's step (rollouts, rewards, advantages, update, and StructReward's auxiliary step when it is on); on SFT rows, of one SFT step.",
    group: "cost",
    order: 41,
    rows: ["train", "sft"],
  },
  {
    key: "generate_ms",
    label: "Rollout time",
    unit: "ms",
    formula: "wall-clock time of one phase of this variant's step",
    source: "lab metric",
    description:
      "Wall-clock milliseconds spent on sampling the G rollouts of every prompt (KV cache, on-GPU sampling, one read-back).",
    group: "cost",
    order: 43,
    rows: ["train"],
  },
  {
    key: "passes_ms",
    label: "Extra-pass time",
    unit: "ms",
    formula: "wall-clock time of one phase of this variant's step",
    source: "lab metric",
    description:
      "Wall-clock milliseconds spent on the variant's extra generation passes: SCS's truncated continuations under perturbed images, ACRE's option-shuffled re-ask (0 for the others).",
    group: "cost",
    order: 43.5,
    rows: ["train"],
  },
  {
    key: "reward_ms",
    label: "Reward time",
    unit: "ms",
    formula: "wall-clock time of one phase of this variant's step",
    source: "lab metric",
    description:
      "Wall-clock milliseconds spent on scoring the rollouts (the reward worker in the browser, in-process in the CLI) and, for REINFORCE++, the KL fold.",
    group: "cost",
    order: 44,
    rows: ["train"],
  },
  {
    key: "advantages_ms",
    label: "Advantage time",
    unit: "ms",
    formula: "wall-clock time of one phase of this variant's step",
    source: "lab metric",
    description: "Wall-clock milliseconds spent on group advantages on the GPU.",
    group: "cost",
    order: 45,
    rows: ["train"],
  },
  {
    key: "update_ms",
    label: "Update time",
    unit: "ms",
    formula: "wall-clock time of one phase of this variant's step",
    source: "lab metric",
    description:
      "Wall-clock milliseconds spent on the policy-gradient forward, backward and AdamW step, with the advantages read back.",
    group: "cost",
    order: 46,
    rows: ["train"],
  },
  {
    key: "dispatches",
    label: "GPU dispatches",
    unit: "count",
    formula: "compute dispatches recorded during this variant's step",
    source: "lab metric",
    description:
      "Compute-shader dispatches this step recorded (GpuContext stats): on a CPU adapter or a small model, the per-dispatch cost is much of the step.",
    group: "cost",
    order: 47,
    rows: ["train"],
  },
  {
    key: "submits",
    label: "GPU submits",
    unit: "count",
    formula: "queue submits during this variant's step",
    source: "lab metric",
    description:
      "Queue submits this step made (GpuContext stats); each is a round trip to the GPU.",
    group: "cost",
    order: 48,
    rows: ["train"],
  },
  {
    key: "judge_calls",
    label: "Judge calls",
    unit: "count",
    formula: "judge calls per step",
    source: "GRR §2–§3",
    description: "Judge calls per step: pointwise GR makes G per group, GRR one per group.",
    group: "cost",
    order: 42,
    rows: ["train"],
  },
  // ---- reward components (the scorers' component names) ----
  // ---- StructReward's auxiliary step (../rl/aux-step.ts), only where it runs ----
  {
    key: "aux_loss",
    label: "Auxiliary loss (StructReward)",
    unit: "nats/token",
    formula: "mean −log π(v_t | u, v_<t) over the target tokens of the step's auxiliary examples",
    source: "StructReward §3.3–3.4, eq. 15–16 (token mean: lab choice); docs/reward-spec.md §3",
    description:
      "Cross-entropy of the judgment targets (Correct/Incorrect, A/B, Incorrect Step k) the policy is trained on after its update, measured before that auxiliary update. Only on StructReward rows with recycling or hard negatives on.",
    group: "other",
    order: 50,
    rows: ["aux"],
  },
  {
    key: "aux_pointwise",
    label: "Pointwise examples (StructReward)",
    unit: "count",
    formula: "recycled 'is this response correct?' examples trained this step",
    source: "StructReward §3.3, eq. 14",
    description:
      "Rollouts of this step trained as pointwise judgments (target Correct or Incorrect by the final answer).",
    group: "other",
    order: 51,
    rows: ["aux"],
  },
  {
    key: "aux_pairwise",
    label: "Pairwise examples (StructReward)",
    unit: "count",
    formula: "recycled (correct, incorrect) pairs trained this step",
    source: "StructReward §3.3",
    description:
      "Pairs of a correct and an incorrect rollout of one group trained as 'which is correct, A or B?'.",
    group: "other",
    order: 52,
    rows: ["aux"],
  },
  {
    key: "aux_locate",
    label: "Locate examples (StructReward)",
    unit: "count",
    formula: "hard negatives trained as detect + locate this step",
    source: "StructReward §3.4",
    description:
      "Answer-correct rollouts with one step rewritten, trained to answer 'Incorrect Step k' (the rewritten step).",
    group: "other",
    order: 53,
    rows: ["aux"],
  },
  {
    key: "aux_choose",
    label: "Choose examples (StructReward)",
    unit: "count",
    formula: "hard negatives trained as choose-the-correct-version this step",
    source: "StructReward §3.4",
    description:
      "A rollout and its one-step rewrite in random order, trained to name the original.",
    group: "other",
    order: 54,
    rows: ["aux"],
  },
  {
    key: "aux_dropped",
    label: "Dropped auxiliary examples",
    unit: "count",
    formula:
      "built − trained (too long for the text columns, a word outside the vocabulary, over the batch's rows)",
    source: "lab metric",
    description:
      "Auxiliary examples built this step but not trained: they did not fit the model's text columns, held a word the tokenizer lacks, or were beyond the batch's rows (a seeded subset is kept).",
    group: "other",
    order: 55,
    rows: ["aux"],
  },
  {
    key: "aux_ms",
    label: "Auxiliary step time",
    unit: "ms",
    formula: "wall-clock time of one phase of this variant's step",
    source: "lab metric",
    description:
      "Wall-clock milliseconds of StructReward's auxiliary step: building the examples, the cross-entropy forward and backward, AdamW. Part of the step time.",
    group: "cost",
    order: 46.5,
    rows: ["aux"],
  },
  {
    key: "components/reward",
    label: "reward (yours)",
    unit: "reward",
    formula: "reward(group)[i], your code's number for rollout i",
    source: "docs/reward-spec.md §8",
    description:
      "Your reward when it returns one number per rollout. Named components it returns are logged under their own names.",
    group: "component",
    order: 19,
    rows: ["component"],
  },
  {
    key: "components/rVer",
    label: "r_ver (verifier)",
    unit: "reward",
    formula: "1[final answer ≡ ground truth]",
    source: "GRR §2; docs/reward-spec.md §0",
    description: "1 if the final answer matches the ground truth, else 0.",
    group: "component",
    order: 20,
    rows: ["component"],
  },
  {
    key: "components/rRank",
    label: "r_rank (GRR)",
    unit: "reward",
    formula: "s̃_i − mean_{j∈I+} s̃_j",
    source: "GRR §3, eq. 6–7; docs/reward-spec.md §2",
    description:
      "Groupwise ranking reward: the passed rollout's tier score s̃ minus the mean s̃ over passed rollouts, in [−0.5, 0.5].",
    group: "component",
    order: 21,
    rows: ["component"],
  },
  {
    key: "components/rPrm",
    label: "r_prm (learned PRM)",
    unit: "reward",
    formula: "mean_k min_{t ∈ steps 1..k} p_PRM(t)",
    source: "GRR §3, eq. 3 (Agg = mean); docs/reward-spec.md §2",
    description:
      "Mean of the learned PRM's step scores, in [0, 1]: step k scores the smallest probability the PRM gives any token of steps 1..k, so a step it would not have written scores low.",
    group: "component",
    order: 21,
    rows: ["component"],
  },
  {
    key: "components/rGr",
    label: "r_gr (pointwise judge)",
    unit: "reward",
    formula: "judge score ∈ {1, .8, .5, .2, 0}",
    source: "GRR §2; docs/reward-spec.md §2",
    description: "Pointwise judge score in [0, 1] (anchored levels 1, .8, .5, .2, 0).",
    group: "component",
    order: 22,
    rows: ["component"],
  },
  {
    key: "components/fmt",
    label: "R_fmt (StructReward)",
    unit: "reward",
    formula: "1[strict format]",
    source: "StructReward §3; docs/reward-spec.md §3",
    description:
      "1 iff the response has exactly one think block, steps numbered 1, 2, … each with a boxed local result, and a separate final answer.",
    group: "component",
    order: 24,
    rows: ["component"],
  },
  {
    key: "components/right",
    label: "R_right (StructReward)",
    unit: "reward",
    formula: "1[a_out ≡ â]",
    source: "StructReward §3; docs/reward-spec.md §3",
    description: "1 iff the final answer is right.",
    group: "component",
    order: 25,
    rows: ["component"],
  },
  {
    key: "components/rule",
    label: "R_rule (StructReward)",
    unit: "reward",
    formula: "(1/M) Σ z_i (in-order one-to-one step matches)",
    source: "StructReward §3; docs/reward-spec.md §3",
    description:
      "Fraction of the generated steps that match a reference step (in order, one-to-one).",
    group: "component",
    order: 26,
    rows: ["component"],
  },
  {
    key: "components/cons",
    label: "R_cons (StructReward)",
    unit: "reward",
    formula: "1[a_reasoned ≡ a_out]",
    source: "StructReward §3; docs/reward-spec.md §3",
    description: "1 iff the last local result equals the final answer.",
    group: "component",
    order: 27,
    rows: ["component"],
  },
  {
    key: "components/rFmt",
    label: "r_fmt (SCS, ACRE)",
    unit: "reward",
    formula: "1[one closed think block and an answer not cut off]",
    source: "SCS §3, ACRE §3; docs/reward-spec.md §4–§5",
    description:
      "1 if the response has its think block closed and a final answer that is not cut off.",
    group: "component",
    order: 28,
    rows: ["component"],
  },
  {
    key: "components/rAcc",
    label: "r_acc (SCS, ACRE)",
    unit: "reward",
    formula: "1[final answer ≡ ground truth]",
    source: "SCS §3, ACRE §3; docs/reward-spec.md §4–§5",
    description: "1 if the final answer matches the ground truth (by option content), else 0.",
    group: "component",
    order: 29,
    rows: ["component"],
  },
  {
    key: "components/rCon",
    label: "r_con (SCS)",
    unit: "reward",
    formula: "c·(m − |𝒜|)/m",
    source: "SCS §3; docs/reward-spec.md §4",
    description:
      "Self-consistency of the rollout's truncated continuations under image noise: higher when the m continuations agree on fewer distinct answers.",
    group: "component",
    order: 30,
    rows: ["component"],
  },
  {
    key: "components/rC",
    label: "r_c (ACRE)",
    unit: "reward",
    formula: "α1 agree & right; α2 one right; α3 agree & wrong; else 0",
    source: "ACRE §3, eq. 3; docs/reward-spec.md §5",
    description:
      "Answer consistency between the rollout and its re-ask with the options shuffled and the same trace, compared by option content.",
    group: "component",
    order: 31,
    rows: ["component"],
  },
  {
    key: "components/rLen",
    label: "r_len (ACRE)",
    unit: "reward",
    formula: "ω·1[right and l_min ≤ words ≤ l_max]",
    source: "ACRE §3, eq. 7; docs/reward-spec.md §5",
    description:
      "Length reward: paid to a right answer whose response length lies in the interval.",
    group: "component",
    order: 32,
    rows: ["component"],
  },
] as const satisfies readonly MetricDef[];

type Def = (typeof FIXED_METRICS)[number];

/** Keys of the metrics that rows of kind `R` carry. */
type KeysOf<R extends MetricRowKind> = Def extends infer D
  ? D extends { key: infer K; rows: readonly (infer X)[] }
    ? R extends X
      ? K
      : never
    : never
  : never;

/** Keys of a held-out eval row (what `evalMetrics` returns). */
export type EvalMetricKey = KeysOf<"eval">;
/** Keys of an RL step row, besides its `components/<name>` entries. */
export type TrainMetricKey = KeysOf<"train">;
/** Keys an RL step row carries when the variant's auxiliary step ran (../rl/aux-step.ts). */
export type AuxMetricKey = KeysOf<"aux">;

/** Every metric: the fixed ones, then the credit metrics and the contrasts. */
export const METRIC_TABLE: readonly MetricDef[] = [
  ...FIXED_METRICS,
  ...CREDIT_METRICS,
  ...CONTRAST_METRICS,
];

const BY_KEY: ReadonlyMap<string, MetricDef> = new Map(METRIC_TABLE.map((m) => [m.key, m]));

/** The entry of a key exactly as produced, or undefined. */
export function metricDef(key: string): MetricDef | undefined {
  return BY_KEY.get(key);
}
