/**
 * The trainer's answers to the inspector's `tokenWeights` commands (each
 * response token's update weight, src/controller/controller-types.ts), kept
 * per group and variant while the run lasts: asked once when a rollout is
 * opened, dropped with the run's other data at a reset. Pure: tested in Node.
 */
import type { TrainerEvent } from "../workers/protocol";

/** The trainer's answer for one group under one variant. */
export type TokenWeightsAnswer = Extract<TrainerEvent, { type: "tokenWeights" }>;

/** What the page holds for a group: asked and not answered yet, answered, or refused (why). */
export type TokenWeightsEntry = TokenWeightsAnswer | { pending: true } | { error: string };

/** A group under a variant, as the command names it. */
export interface TokenWeightsRef {
  variant: string;
  step: number;
  promptId: string;
  seed?: number;
}

/** The map key of a group under a variant: variant, step, prompt id and seed. */
export function tokenWeightsKey(r: TokenWeightsRef): string {
  return `${r.variant}\u0000${r.step}\u0000${r.promptId}\u0000${r.seed ?? ""}`;
}

/**
 * The entries after a trainer error: the trainer answers a request it
 * cannot serve (group no longer kept, unknown variant) with an error whose
 * message starts "tokenWeights <variant> step <step> prompt <promptId>:"
 * (src/controller/token-weights.ts); the pending requests it names then show
 * that message instead of waiting. Any other error leaves them as they are.
 */
export function failPending(
  entries: Readonly<Record<string, TokenWeightsEntry>>,
  message: string,
): Record<string, TokenWeightsEntry> {
  if (!message.startsWith("tokenWeights ")) return entries as Record<string, TokenWeightsEntry>;
  const out: Record<string, TokenWeightsEntry> = { ...entries };
  for (const [k, e] of Object.entries(entries)) {
    const [variant, step, promptId] = k.split("\u0000");
    if (
      "pending" in e &&
      message.startsWith(`tokenWeights ${variant} step ${step} prompt ${promptId}:`)
    )
      out[k] = { error: message };
  }
  return out;
}
