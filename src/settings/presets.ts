/**
 * Named experiment presets for the headless CLI (`npm run lab -- --preset NAME`)
 * and the page's Experiment picker: one table, one entry per preset, with the
 * experiment it runs (every value not given is the schema default) and what
 * the page says about it (title, two sentences, the paper figure it mirrors,
 * the charts of its overview, what to watch).
 */
import { checkpointPath } from "./checkpoints";
import { parseExperiment, type Experiment } from "./experiment";
import type { EvalMetricKey } from "./metric-table";

/**
 * The SCS scenario's task (docs/reward-spec.md §4.1): multiple choice, no
 * hints or slips, distractors that no one-digit misread concludes, and the
 * cold start trained with 40 % misread-and-guess targets.
 */
const SCS_TASK = {
  multipleChoice: true,
  hintRate: 0,
  traceSlipRate: 0,
  distractorRule: "off-misread",
  misreadRate: 0.4,
} as const;

/**
 * The ACRE scenario's task (docs/reward-spec.md §5.1): multiple choice, no
 * hints or slips, the cold start trained with 80 % letter-bound targets.
 */
const ACRE_TASK = {
  multipleChoice: true,
  hintRate: 0,
  traceSlipRate: 0,
  indexBindingRate: 0.8,
} as const;

/** SCS Tab. 4's truncation-only arm: no image noise. */
const SCS_TR_ONLY = { sigmaMin: 0, sigmaMax: 0 } as const;
/**
 * SCS Tab. 4's perturbation-only arm: the same cut at the same k, each
 * continuation under its own noisy image, decoded greedily so that only the
 * noise tells them apart (lab choice, docs/reward-spec.md §4.3).
 */
const SCS_VP_ONLY = { resample: "greedy" } as const;

/**
 * The SCS premise scenario's task (docs/reward-spec.md §4.3): the SCS task
 * with one digit of every RL and held-out prompt drawn faint, at a contrast
 * the §4.1 cold start cannot read reliably (chosen on its step-0 eval alone).
 */
const SCS_PREMISE_TASK = { ...SCS_TASK, faintContrast: 0.3 } as const;

/**
 * The sizes of the SCS and ACRE presets (lab choices, the claims' sizes of
 * src/cli/claims.ts): small model, G 8, 4 prompts per step, lr 5e-4, 20
 * steps, eval every 5 on 128 held-out prompts sampled at τ = 1.
 */
const SIZES = {
  modelSize: "small",
  evalSize: 128,
  evalTemperature: 1,
  algorithm: { groupSize: 8, batchPrompts: 4, steps: 20, evalEvery: 5, lr: 5e-4 },
} as const;
const SCS_SIZES = { ...SIZES, task: SCS_TASK } as const;
const SCS_PREMISE_SIZES = { ...SIZES, task: SCS_PREMISE_TASK } as const;
/** SCS Tab. 6: RLOO without a KL term, both arms. */
const SCS_RLOO = { estimator: "rloo", beta: 0 } as const;
/** SCS Tab. 7: GRPO with β 1e-3, both arms (SCS at k 0.4, m 8, the estimator's defaults). */
const SCS_GRPO = { estimator: "grpo", beta: 1e-3 } as const;

/** One preset: the experiment and how the page presents it. */
export interface PresetEntry {
  name: string;
  /** The picker's label. */
  title: string;
  /** Two sentences for a teacher: what the experiment shows. */
  description: string;
  /** The paper figure or table it mirrors (paper, section, figure), or "lab check". */
  figure: string;
  /** Held-out metrics the first screen charts large, in order (the metric table's eval keys). */
  overview: readonly EvalMetricKey[];
  /** One sentence for the guided view: what to watch on the overview. */
  watch: string;
  /**
   * When a difference shows, from measured runs only (the recordings of
   * docs/lesson.md, the claims of docs/results.md), and how long the paper's
   * own figure runs. Every picker preset has one (test/settings/presets.test.ts).
   */
  whenItShows?: string;
  /** Raw experiment input (validated by parseExperiment when used). */
  experiment: unknown;
  /** False: a CLI-only preset (e.g. an ablation arm), not in the page's picker. Absent: listed. */
  picker?: boolean;
}

/** The presets, in the order the page's picker lists them. */
const PRESET_TABLE: readonly PresetEntry[] = [
  {
    /** default: the page's default experiment (the schema defaults). */
    name: "default",
    title: "RLVR vs GRR: does the reasoning still support the answer?",
    description:
      "Outcome-only RLVR and GRR train side by side from the same cold start on questions that leak their answer as a hint. RLVR is paid for a right answer whatever its steps say, so its reasoning drifts from its answers, while GRR's judge ranks answers that the steps support higher.",
    figure:
      "GRR §4.3.1, Fig. 2 (under RLVR, IncR rises from 6 % at step 60 to 19 % at step 140 while Acc goes from 51 % to 54 %)",
    overview: ["incR", "rcAcc", "acc"],
    watch:
      "IncR is the share of answers that are not what the model's own last step concluded: if it rises while Acc rises, answers are being right for the wrong reasons.",
    whenItShows:
      "Measured: in the 4-seed recording (seeds 31–34, 40 steps) RC-Acc parts at step 15 (GRR 0.55 vs RLVR 0.42) and IncR at step 20 (RLVR 0.58 vs GRR 0.35); by step 40 RLVR's IncR is 0.66 and GRR's 0.35, at about 0.9 Acc each. GRR's paper sees IncR drift from step 60 to step 140 (§4.3.1); this preset runs 200 steps.",
    experiment: {},
  },
  {
    /**
     * drift: the lab's scenario in which the variants part (README, "Why the
     * curves part"): the default task's leaked answer hint, the four reward
     * designs side by side on the small model from the hinted cold start.
     */
    name: "drift",
    title: "Four reward designs on the drift scenario",
    description:
      "RLVR, pointwise GR, GRR and StructReward train side by side on the hinted task, where copying the hint pays under an outcome-only reward. The rewards that look at the reasoning (a judge's score or rank, StructReward's step rewards) keep IncR down; RLVR's rises.",
    figure: "GRR §4.3.1, Fig. 2 (Acc, RC-Acc, IncR and CBIR per reward variant over training)",
    overview: ["incR", "rcAcc", "acc"],
    watch:
      "Compare IncR across the four: which rewards hold the reasoning to the answer, and what does that do to RC-Acc?",
    whenItShows:
      "Measured: in the 3-seed recording (seeds 31–33, 30 steps) IncR parts at step 5 (RLVR 0.37 vs GRR 0.30) and RC-Acc at step 15 (GRR 0.54 vs RLVR 0.40); at step 30 RLVR's IncR is 0.59 against 0.30–0.40 for the three rewards that read the steps, and its RC-Acc 0.40 against 0.58–0.64, with Acc 0.88–0.92 in all four. This preset runs 30 steps; GRR's Fig. 2 runs 140.",
    experiment: {
      modelSize: "small",
      variants: [
        { name: "rlvr" },
        { name: "pointwise-gr" },
        { name: "grr" },
        { name: "structreward" },
      ],
      algorithm: { groupSize: 8, batchPrompts: 4, steps: 30, evalEvery: 5, lr: 5e-4 },
      evalSize: 128,
    },
  },
  {
    /**
     * grr-paper: the GRR paper's four arms, RLVR, PRM (the learned PRM of
     * public/prm, mean step score), pointwise GR and GRR (λ = 1, G = 8; GRR §4,
     * Table 1) on the open-ended task without hints, at the settings its figures in
     * docs/results.md were measured with (lr 3e-5, 8 prompts, eval every 10 on 64 prompts).
     */
    name: "grr-paper",
    title: "GRR's four arms: RLVR, PRM, pointwise GR, GRR",
    description:
      "The GRR paper's controlled comparison: the same policy trained with an outcome-only reward, a learned process reward model, a judge that scores each rollout alone, and a judge that ranks the group. Without a hint to copy the arms start level; watch whether the rankings lift RC-Acc above the others.",
    figure:
      "GRR §4.2 and App. D Table 2 (RC-Acc at step 140: GRR 54.7, pointwise GR 52.3, RLVR 47.4, PRM 46.8)",
    overview: ["rcAcc", "acc", "incR"],
    watch: "RC-Acc counts only right answers whose steps support them: the paper's primary metric.",
    whenItShows:
      "Measured: in the 3-seed recording (seeds 31–33, 40 steps) GRR and pointwise GR part at step 10 on a 0.03 gap and overlap again by step 40, where all four arms sit at 0.78–0.79 RC-Acc (0.83 at step 0); at the claims' full size (12 seeds, 20 steps, on the default hinted scenario, not this preset's) GRR − pointwise GR final RC-Acc was −0.009 [−0.049, 0.030]. The paper's Table 1 is at step 140; this preset runs 200.",
    experiment: {
      task: { hintRate: 0, traceSlipRate: 0 },
      evalTemperature: 0,
      evalSize: 64,
      variants: [{ name: "rlvr" }, { name: "prm" }, { name: "pointwise-gr" }, { name: "grr" }],
      algorithm: { groupSize: 8, beta: 1e-2, lr: 3e-5, batchPrompts: 8, evalEvery: 10 },
    },
  },
  {
    /**
     * scs-paper: SCS's headline comparison, RLOO vs RLOO + SCS (SCS Tab. 2:
     * RLOO 57.8 → 65.5; Tab. 6: k 0.8, m 4, τ 1), on the SCS scenario's task
     * (SCS_TASK: misread digits in the cold start, distractors no misread
     * reaches, so a faulty trace must guess) from its shipped cold start
     * (sft-digits2-mc-misread40-small.ckpt; docs/reward-spec.md §4.1). The lab's
     * sizes: small model, G 8, 4 prompts per step, lr 5e-4, 20 steps, eval
     * every 5 on 128 prompts (lab choices, the claims' sizes; the paper uses 16
     * samples per prompt).
     */
    name: "scs-paper",
    title: "SCS: self-consistency sampling (RLOO vs RLOO + SCS)",
    description:
      "The cold start misreads a digit in 40 % of its sampled traces and then guesses an option, sometimes the right one. SCS cuts each rollout part-way, lets the model finish it several times under a noisy image, and pays for continuations that agree: a lucky guess does not repeat, so it earns less than an answer the reasoning reaches.",
    figure:
      "SCS Table 2 (RLOO 57.8 → 65.5 overall accuracy with SCS; Tab. 6: k 0.8, m 4) and Table 3 (unfaithful reasoning in correct answers 25.0 → 21.2)",
    overview: ["acc", "luckyGuess", "rcAcc"],
    watch:
      "The lucky-guess rate is the share of right answers whose reasoning is wrong: RLOO pays them in full, SCS should pay them less.",
    // Out of the picker: RLOO alone removed the lucky guesses here (the premise did not hold; README); scs-faint is the page's SCS entry.
    picker: false,
    experiment: {
      ...SCS_SIZES,
      variants: [
        { name: "rlvr", estimator: "rloo" },
        { name: "scs", estimator: "rloo" },
      ],
    },
  },
  {
    /**
     * scs-tr-only: SCS Tab. 4's truncation–resampling-only arm (63.0, +5.2):
     * RLOO vs RLOO + SCS with no image noise (σ = 0), as scs-paper otherwise.
     */
    name: "scs-tr-only",
    title: "SCS ablation: truncation–resampling only",
    description:
      "SCS without the noisy image: the continuations resample from the same clean image. One arm of SCS Table 4's ablation, run by the claims.",
    figure: "SCS Table 4 (truncation–resampling only 63.0, +5.2 over RLOO)",
    overview: ["acc", "luckyGuess", "rcAcc"],
    watch: "Acc against RLOO and against full SCS.",
    picker: false,
    experiment: {
      ...SCS_SIZES,
      variants: [
        { name: "rlvr", estimator: "rloo" },
        { name: "scs", estimator: "rloo", weights: SCS_TR_ONLY },
      ],
    },
  },
  {
    /**
     * scs-vp-only: SCS Tab. 4's visual-perturbation-only arm (62.8, +5.0): RLOO
     * vs RLOO + SCS with greedy continuations from the same cut at the same k,
     * each under its own noisy image (lab choice, the paper does not say;
     * docs/reward-spec.md §4.3), as scs-paper otherwise.
     */
    name: "scs-vp-only",
    title: "SCS ablation: visual perturbation only",
    description:
      "SCS without sampled resampling: greedy continuations from the same cut, each under its own noisy image, so they disagree only where the noise changes what the model reads. One arm of SCS Table 4's ablation, run by the claims.",
    figure: "SCS Table 4 (visual perturbation only 62.8, +5.0 over RLOO)",
    overview: ["acc", "luckyGuess", "rcAcc"],
    watch: "Acc against RLOO and against full SCS.",
    picker: false,
    experiment: {
      ...SCS_SIZES,
      variants: [
        { name: "rlvr", estimator: "rloo" },
        { name: "scs", estimator: "rloo", weights: SCS_VP_ONLY },
      ],
    },
  },
  {
    /**
     * scs-premise: the premise check's arm alone (docs/reward-spec.md §4.3):
     * SCS's outcome-only baseline (RLOO, r_fmt + r_acc, β 0; SCS §4.1, Tab. 6)
     * on the faint-digit task from the §4.1 cold start. Its lucky-guess rate
     * must not fall below its step-0 band before any SCS arm runs on it.
     */
    name: "scs-premise",
    title: "SCS premise: does the outcome-only baseline keep its lucky guesses?",
    description:
      "One digit of every question is drawn faint, and the cold start, which never saw a faint digit, reads it as some digit and then guesses an option. RLOO with SCS's format and accuracy reward trains alone: if its lucky-guess rate does not fall, the flaw SCS targets survives outcome-only RL here.",
    figure:
      "SCS §4.3, Fig. 4 (vanilla RL: the model fails to perceive the image, hallucinates and guesses right; the fake successes keep full reward)",
    overview: ["luckyGuess", "acc", "stepAcc"],
    watch: "The lucky-guess rate against its step-0 value: the premise needs it to stay up.",
    picker: false,
    experiment: { ...SCS_PREMISE_SIZES, variants: [{ name: "scs-baseline", ...SCS_RLOO }] },
  },
  {
    /**
     * scs-faint: SCS's headline comparison on the premise scenario: RLOO +
     * format vs RLOO + SCS (k 0.8, m 4), both without a KL term (SCS Tab. 2,
     * Tab. 6). Runs only after the premise check (docs/reward-spec.md §4.3),
     * which held on it: the page's SCS entry.
     */
    name: "scs-faint",
    title: "SCS on a faint digit (RLOO + format vs RLOO + SCS)",
    description:
      "One digit of every question is faint, so the cold start guesses after reading it wrong. Both arms are paid for format and a right option; SCS also pays for continuations that agree, which a guess rarely does.",
    figure:
      "SCS Table 2 (RLOO 57.8 → 65.5 with SCS; Tab. 6: k 0.8, m 4, KL 0) and Table 3 (unfaithful reasoning in correct answers 25.0 → 21.2)",
    overview: ["acc", "luckyGuess", "stepAcc"],
    watch:
      "The lucky-guess rate of both arms, and in the credit chart what each pays a right answer from a misread: the baseline pays it in full; SCS's consistency term is meant to pay it less. On this scenario's recording it barely does: in the first seed's recorded groups a lucky guess got reward 2.68 under SCS against 2.74 for the other right answers (the baseline: 2.00 for both).",
    whenItShows:
      "Measured: on this scenario the credit chart shows little: in the 3-seed recording (seeds 31–33, 20 steps) SCS gives an answer its steps do not conclude about the advantage the baseline gives it (−0.14 vs −0.13); on SCS's other scenario (scs-paper, 6 seeds) RLOO gave such answers 0.22 more advantage than SCS. The held-out curves did not part in 20 steps on 12 seeds (RLOO + SCS − RLOO final Acc 0.015 [−0.035, 0.065]), and after 20 steps the baseline learns to read the faint digit, so a longer run tests nothing of SCS here.",
    experiment: {
      ...SCS_PREMISE_SIZES,
      variants: [
        { name: "scs-baseline", ...SCS_RLOO },
        { name: "scs", ...SCS_RLOO },
      ],
    },
  },
  {
    /** scs-faint-tr-only: SCS Tab. 4's truncation-only arm on the premise scenario (σ = 0). */
    name: "scs-faint-tr-only",
    title: "SCS ablation on a faint digit: truncation–resampling only",
    description:
      "SCS without the noisy image on the faint-digit task: the continuations resample from the same cut on the clean image. One arm of SCS Table 4's ablation.",
    figure: "SCS Table 4 (truncation–resampling only 63.0, +5.2 over RLOO)",
    overview: ["acc", "luckyGuess", "stepAcc"],
    watch: "Acc against the baseline and against full SCS.",
    picker: false,
    experiment: {
      ...SCS_PREMISE_SIZES,
      variants: [
        { name: "scs-baseline", ...SCS_RLOO },
        { name: "scs", ...SCS_RLOO, weights: SCS_TR_ONLY },
      ],
    },
  },
  {
    /** scs-faint-vp-only: SCS Tab. 4's perturbation-only arm on the premise scenario (greedy, same cut). */
    name: "scs-faint-vp-only",
    title: "SCS ablation on a faint digit: visual perturbation only",
    description:
      "SCS on the faint-digit task with greedy continuations from the same cut, each under its own noisy image: they disagree only where the noise changes what the model reads. One arm of SCS Table 4's ablation.",
    figure: "SCS Table 4 (visual perturbation only 62.8, +5.0 over RLOO)",
    overview: ["acc", "luckyGuess", "stepAcc"],
    watch: "Acc against the baseline and against full SCS.",
    picker: false,
    experiment: {
      ...SCS_PREMISE_SIZES,
      variants: [
        { name: "scs-baseline", ...SCS_RLOO },
        { name: "scs", ...SCS_RLOO, weights: SCS_VP_ONLY },
      ],
    },
  },
  {
    /** scs-faint-grpo: SCS with GRPO on the premise scenario (Tab. 7: β 1e-3, SCS k 0.4, m 8). */
    name: "scs-faint-grpo",
    title: "SCS with GRPO on a faint digit",
    description:
      "GRPO + format against GRPO + SCS on the faint-digit task, at the paper's GRPO settings: a shorter cut (k 0.4, which resamples the second digit's reading) and eight continuations.",
    figure: "SCS Table 2 (GRPO 63.6 → 64.5 with SCS; Tab. 7: k 0.4, m 8, KL 1e-3)",
    overview: ["acc", "luckyGuess", "stepAcc"],
    watch: "Acc and the lucky-guess rate of both arms.",
    picker: false,
    experiment: {
      ...SCS_PREMISE_SIZES,
      variants: [
        { name: "scs-baseline", ...SCS_GRPO },
        { name: "scs", ...SCS_GRPO },
      ],
    },
  },
  {
    /**
     * acre-paper: ACRE's comparison, GRPO vs GRPO + ACRE's consistency and
     * length rewards (ACRE Tab. 1–3), on the ACRE scenario's task (ACRE_TASK:
     * 80 % of the cold start's traces name their letter inside the reasoning,
     * the index binding of ACRE §3.3) from its shipped cold start
     * (sft-digits2-mc-bind80-small.ckpt; docs/reward-spec.md §5.1); OSCR and
     * CACR at every eval. Same lab sizes as scs-paper.
     */
    name: "acre-paper",
    title: "ACRE: is the answer the same when the options are shuffled?",
    description:
      "The cold start's reasoning names an option's letter and the answer repeats the letter, the index binding ACRE diagnoses after supervised fine-tuning. ACRE asks each question again with the options shuffled, keeps the reasoning, and pays when both answers name the same option content; OSCR measures exactly that on the held-out set.",
    figure: "ACRE Table 2 (OSCR on MMVU: CoT-SFT 31.4, GRPO 49.8, ACRE 74.6) and Table 1 (CACR)",
    overview: ["oscr", "acc", "cacr"],
    watch:
      "OSCR of GRPO against ACRE: the share of held-out questions answered alike after the shuffle, low at the start; Acc falls in both arms at this preset's learning rate (5e-4 on 4 training images a step about doubles the held-out misreads in 20 steps), so compare the arms with each other, not with step 0. This scenario does not hold ACRE's premise: the paper's outcome-only baseline (GRPO + format + length) left the binding on tuning seeds 41 and 43 (bound share 0.805 → 0.398 in 20 steps on 41) and went into it on 42 (0.883 → 0.961), so a gap here is not yet ACRE's fix of a flaw the baseline keeps (docs/results.md, 2026-12-06).",
    whenItShows:
      "Measured: OSCR can part within 20 steps, by seed (ACRE − GRPO final OSCR from 0.029 to 0.506 on 6 seeds, 0.130 [−0.066, 0.325]); CACR does not (0.017 [−0.036, 0.070]). In the 3-seed recording (seeds 31–33, 20 steps) the arms do not part: OSCR rises from 0.30 to 0.75 (GRPO) and 0.72 (ACRE) while Acc falls from 0.86 to 0.71 and 0.70. The baseline leaves or enters the binding by seed, so a gap here is not yet ACRE's fix of a flaw the baseline keeps.",
    experiment: {
      ...SIZES,
      task: ACRE_TASK,
      variants: [
        { name: "rlvr", estimator: "grpo" },
        { name: "acre", estimator: "grpo" },
      ],
    },
  },
  {
    /**
     * acre-premise: ACRE on its premise (docs/results.md, 2026-12-06): the
     * paper's baseline, GRPO + format + length (acre-baseline: ACRE's reward
     * without r_c), vs ACRE, so the difference is the consistency term; lr
     * 1e-4 (lab choice: at acre-paper's 5e-4 the updates from 4 images a step
     * double the held-out misreads in 20 steps, docs/results.md). The premise
     * check runs the first arm alone (npm run premise:acre).
     */
    name: "acre-premise",
    title: "ACRE against its paper's baseline (GRPO + format + length)",
    description:
      "ACRE's own baseline, GRPO paid for the answer, the format and the length, against ACRE, which adds the consistency reward: the comparison isolates that one term. The cold start names its letter inside most of its reasoning.",
    figure: "ACRE Table 2 (OSCR: CoT-SFT-GRPO 49.8 vs ACRE 74.6 on MMVU) and Table 1 (CACR)",
    overview: ["oscrMoved", "boundRate", "acc"],
    watch:
      "OSCR over the re-asks that moved the answer's letter: 0 for answers by position, 1 for answers by content.",
    picker: false,
    experiment: {
      ...SIZES,
      task: ACRE_TASK,
      algorithm: { ...SIZES.algorithm, lr: 1e-4 },
      variants: [
        { name: "acre-baseline", estimator: "grpo" },
        { name: "acre", estimator: "grpo" },
      ],
    },
  },
  {
    /**
     * acre-prior: ACRE's premise on the flaw its §1 says outcome-only RL is
     * paid for, an option-position prior (docs/results.md, 2026-12-06 16:54
     * UTC): acre-premise with the training prompts' right option at A with
     * probability 0.5 (held-out never skewed) and one faint digit per prompt
     * at contrast 0.3 (the SCS premise's knob: where the reading is unsure,
     * the position carries the reward). Same cold start (the knobs pick
     * none of their own). The premise check: npm run premise:acre --
     * --scenario prior.
     */
    name: "acre-prior",
    title: "ACRE on an option-position prior (GRPO + format + length vs ACRE)",
    description:
      "The training questions put the right option at A more often than not, and one digit of every image is faint. An outcome reward pays an unsure model for answering A; ACRE re-asks with the options shuffled, where A is another option, and pays an answer that moves less.",
    figure:
      "ACRE §1 (“a positive advantage reinforces spurious shortcuts—such as option-index priors”) and Table 2 (OSCR)",
    overview: ["topLetterShare", "oscr", "acc"],
    watch:
      "Top-letter share: about a quarter for a model that reads; higher when it has learned to answer A. On tuning seeds 41–43 the outcome-only baseline learned no such prior in 20 steps (0.445 → 0.383, 0.414 → 0.352, 0.398 → 0.375): ACRE's premise does not hold here (docs/results.md).",
    picker: false,
    experiment: {
      ...SIZES,
      task: { ...ACRE_TASK, optionSkew: 0.5, faintContrast: 0.3 },
      algorithm: { ...SIZES.algorithm, lr: 1e-4 },
      variants: [
        { name: "acre-baseline", estimator: "grpo" },
        { name: "acre", estimator: "grpo" },
      ],
    },
  },
  {
    /**
     * acre-prior-blank: acre-prior with nothing to read (docs/results.md,
     * 2026-12-06 18:55 UTC): the faint digit at contrast 0, so the answer's
     * digit is not in the image and only the position can pay more than
     * chance; 40 RL steps with evals every 10 (lab choice: a prior is
     * learned, not kept). The premise check: npm run premise:acre --
     * --scenario blank.
     */
    name: "acre-prior-blank",
    title: "ACRE on an option-position prior, one digit blank",
    description:
      "As the option-position scenario, but one digit of every image is blank: no reading can find the answer, and the training questions put the right option at A more often than not. An outcome reward pays answering A; ACRE re-asks with the options shuffled and pays an answer that names the same option content.",
    figure:
      "ACRE §1 (“a positive advantage reinforces spurious shortcuts—such as option-index priors”) and §3.2 (option priors learned under pure outcome reward)",
    overview: ["skewLetterShare", "topLetterShare", "oscr"],
    watch:
      "Top-letter share and A's share: a quarter each for a model without a favourite letter. On tuning seeds the outcome-only baseline learned no prior in 40 steps: the top letter (not A) lost share (0.648 → 0.461, 0.570 → 0.528, 0.539 → 0.477 on 41–43) and A's share stayed about a tenth (0.109 → 0.086, 0.102 → 0.102, 0.094 → 0.133 on 97–99): ACRE's premise does not hold here (docs/results.md).",
    picker: false,
    experiment: {
      ...SIZES,
      task: { ...ACRE_TASK, optionSkew: 0.5, faintContrast: 0 },
      algorithm: { ...SIZES.algorithm, lr: 1e-4, steps: 40, evalEvery: 10 },
      variants: [
        { name: "acre-baseline", estimator: "grpo" },
        { name: "acre", estimator: "grpo" },
      ],
    },
  },
  {
    /**
     * rlvr-learn: outcome-only RLVR on the small model from the shipped
     * open-ended cold start, long enough to measure held-out accuracy (lab
     * choices throughout; docs/results.md). Rollouts at τ = 1,
     * 8 prompts × G 8 per step, lr 3e-5: with 4 prompts and lr 2e-4 the
     * updates were noisy enough to lower held-out Acc. 256 held-out prompts,
     * so one prompt is 0.4 points.
     */
    name: "rlvr-learn",
    title: "RLVR alone: does RL raise accuracy?",
    description:
      "Outcome-only RLVR on the task without a hint: the model is paid for the final answer only, the part of RL the papers start from. Held-out accuracy moves only a little (0.813 → 0.836 in 60 steps on 256 prompts in one run, docs/results.md; 0.813 → 0.814 on the recording's 3 seeds): once SFT has converged, answer-only RL finds few errors it can fix.",
    figure: "lab check (GRR §4.3.1: under RLVR, Acc rises from 51 % to 54 %)",
    overview: ["acc", "rcAcc", "incR"],
    watch:
      "Held-out Acc, greedy-decoded on 256 prompts: one prompt is 0.4 points, so a move of a few prompts stays inside the band.",
    whenItShows:
      "Measured: held-out Acc moves 0.813 → 0.836 in 60 steps on 256 prompts (one run); the 3-seed recording's bands overlap through its 60 steps (seed mean 0.813 → 0.814; 0.813, 0.793, 0.836 at step 60), so no difference shows at this length.",
    experiment: {
      modelSize: "small",
      task: { multipleChoice: false, hintRate: 0, traceSlipRate: 0 },
      evalTemperature: 0,
      variants: [{ name: "rlvr" }],
      algorithm: {
        groupSize: 8,
        batchPrompts: 8,
        steps: 60,
        evalEvery: 10,
        lr: 3e-5,
        temperature: 1,
      },
      evalSize: 256,
    },
  },
  {
    /**
     * smoke: small and quick (lab choice): RLVR vs GRR on the small model, a few
     * prompts per step; sized to finish in minutes on a CPU (SwiftShader) adapter.
     */
    name: "smoke",
    title: "Quick check: a few small steps of RLVR and GRR",
    description:
      "Six small steps of RLVR and GRR on 16 held-out prompts, to check that training runs on this machine. Too short and too small for the curves to mean much.",
    figure: "lab check",
    overview: ["rcAcc", "acc", "incR"],
    watch: "That every chart gets points: training runs here.",
    whenItShows:
      "Nothing: 6 steps on 16 held-out prompts check that training runs; no difference is expected.",
    experiment: {
      modelSize: "small",
      variants: [{ name: "rlvr" }, { name: "grr" }],
      algorithm: { groupSize: 4, batchPrompts: 2, steps: 6, evalEvery: 3 },
      evalSize: 16,
      // Used only when no shipped checkpoint fits (e.g. after `--from-scratch`).
      sftSteps: 40,
    },
  },
];

/** Names of the presets, in the picker's order (help texts, the picker). */
export const PRESET_NAMES: readonly string[] = PRESET_TABLE.map((p) => p.name);

/** The presets the page's Experiment picker lists (each has a shipped recording), in order. */
export const PICKER_PRESETS: readonly string[] = PRESET_TABLE.filter((p) => p.picker !== false).map(
  (p) => p.name,
);

/** The name of the page's default experiment's preset (the schema defaults). */
export const DEFAULT_PRESET = "default";

/**
 * The table entry of preset `name`.
 * @throws Error naming the unknown preset and the known ones.
 */
export function presetEntry(name: string): PresetEntry {
  const entry = PRESET_TABLE.find((p) => p.name === name);
  if (!entry)
    throw new Error(`Unknown preset '${name}'; known presets: ${PRESET_NAMES.join(", ")}`);
  return entry;
}

/** True when `name` is a preset of the table. */
export function isPresetName(name: string): boolean {
  return PRESET_TABLE.some((p) => p.name === name);
}

/**
 * The cold start a preset starts from: the shipped checkpoint for its task
 * and model size (src/settings/checkpoints.ts), relative to the site root,
 * so a picker that loads the preset gets it. `modelSize` overrides the
 * preset's (the page picks the small model on a CPU adapter).
 * @throws Error naming an unknown preset.
 */
export function presetColdStart(name: string, modelSize?: Experiment["modelSize"]): string {
  const exp = presetExperiment(name);
  return checkpointPath({ task: exp.task, modelSize: modelSize ?? exp.modelSize });
}

/**
 * Returns a validated preset, optionally with overrides (e.g. steps, seed).
 * @throws Error naming the unknown preset and the known ones.
 */
export function presetExperiment(
  name: string,
  overrides: { steps?: number; seed?: number } = {},
): Experiment {
  const exp = parseExperiment(structuredClone(presetEntry(name).experiment));
  if (overrides.steps !== undefined) exp.algorithm.steps = overrides.steps;
  if (overrides.seed !== undefined) exp.seed = overrides.seed;
  return parseExperiment(exp);
}
