/**
 * What a reader can recompute in a trace step (docs/reward-spec.md §2, the
 * lab's judges): a step of the form `a op b [op c …] = \boxed{r}` (ops
 * `+ − * × x /`, products and quotients before sums), and, for the text
 * auditor, `max a b …` / `min a b …`. Pure string work, linear in the step.
 */

// A whole step of the form `a op b [op c …] = \boxed{r}`, anchored so a
// three-term step (`8 + 4 - 7 = \boxed{5}`) is checked as a whole, not by its tail.
const NUMBER = String.raw`-?\d+(?:\.\d+)?`;
/** `expr = \boxed{r}` with expr a chain of numbers and operators (groups: expr, r). */
export const ARITHMETIC_STEP = new RegExp(
  String.raw`^\s*(${NUMBER}(?:\s*[+\-−*×x\/]\s*${NUMBER})+)\s*=\s*\\boxed\{([^{}]*)\}\s*$`,
);
/** `max|min a b … = \boxed{r}` (groups: max|min, the numbers, r). */
const EXTREMUM_STEP = new RegExp(
  String.raw`^\s*(max|min)((?:\s+${NUMBER})+)\s*=\s*\\boxed\{([^{}]*)\}\s*$`,
);
const TERM = new RegExp(String.raw`(${NUMBER})|([+\-−*×x\/])`, "g");
const NUMBERS = new RegExp(NUMBER, "g");

/** A chain `a op b op c …` as its numbers and operators; null when malformed. */
function parseChain(expr: string): { nums: number[]; ops: string[] } | null {
  const nums: number[] = [];
  const ops: string[] = [];
  let expectNumber = true;
  for (const m of expr.matchAll(TERM)) {
    if (expectNumber && m[1] !== undefined) {
      nums.push(Number(m[1]));
      expectNumber = false;
    } else if (!expectNumber && m[2] !== undefined) {
      ops.push(m[2]);
      expectNumber = true;
    } else if (!expectNumber && m[1] !== undefined && m[1].startsWith("-")) {
      // `4 -7` read as `4 - 7`
      ops.push("-");
      nums.push(Number(m[1].slice(1)));
    } else return null;
  }
  return nums.length > 0 ? { nums, ops } : null;
}

/** Evaluates `a op b op c …` with * and / before + and − (NaN on division by zero or a malformed chain). */
export function evaluateChain(expr: string): number {
  const chain = parseChain(expr);
  if (!chain) return NaN;
  const { nums, ops } = chain;
  // products and quotients first, then sums left to right
  const sumNums = [nums[0]];
  const sumOps: string[] = [];
  ops.forEach((op, i) => {
    if (op === "+" || op === "-" || op === "−") {
      sumOps.push(op);
      sumNums.push(nums[i + 1]);
    } else sumNums[sumNums.length - 1] = applyOp(sumNums[sumNums.length - 1], op, nums[i + 1]);
  });
  return sumOps.reduce((acc, op, i) => applyOp(acc, op, sumNums[i + 1]), sumNums[0]);
}

function applyOp(a: number, op: string, b: number): number {
  switch (op) {
    case "+":
      return a + b;
    case "-":
    case "−":
      return a - b;
    case "*":
    case "×":
    case "x":
      return a * b;
    default:
      return b === 0 ? NaN : a / b;
  }
}

/** A step a reader can recompute: its operands, the value they give, and the result it boxed. */
export interface CheckableStep {
  /** The numbers the expression uses, in order. */
  operands: number[];
  /** What the expression evaluates to (NaN when it cannot be evaluated, e.g. a division by 0). */
  value: number;
  /** The boxed result as written. */
  result: string;
}

/**
 * `checkableStep(body, {extrema})`: the step body (text after `Step k:`) as a
 * recomputable step, or null when it is not one (e.g. `first digit =
 * \boxed{3}`, whose value comes from the image). `extrema` also reads
 * `max a b … = \boxed{r}` and `min …`. Never throws.
 */
export function checkableStep(
  body: string,
  { extrema = false }: { extrema?: boolean } = {},
): CheckableStep | null {
  const m = ARITHMETIC_STEP.exec(body);
  if (m) {
    return { operands: parseChain(m[1])?.nums ?? [], value: evaluateChain(m[1]), result: m[2] };
  }
  if (!extrema) return null;
  const e = EXTREMUM_STEP.exec(body);
  if (!e) return null;
  const xs = (e[2].match(NUMBERS) ?? []).map(Number);
  return { operands: xs, value: e[1] === "max" ? Math.max(...xs) : Math.min(...xs), result: e[3] };
}

/** The numbers written in a text (e.g. a question's constants), as numbers. */
export function numbersIn(text: string): number[] {
  return (text.match(NUMBERS) ?? []).map(Number);
}
