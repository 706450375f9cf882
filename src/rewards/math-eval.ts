/**
 * A small LaTeX/plain math parser and float64 evaluator for answer
 * equivalence (test/fixtures/README.md, answersEquivalent rules 9–15). One
 * recursive-descent pass over the characters (linear in the input), with a
 * nesting limit and bounded powers, so hostile answers return quickly.
 */

export type MathNode =
  | { k: "num"; v: number }
  | { k: "var"; name: string }
  | { k: "neg"; a: MathNode }
  | { k: "add" | "sub" | "mul" | "div" | "pow"; a: MathNode; b: MathNode }
  | { k: "root"; a: MathNode; n: MathNode | null };

/** Longest answer the math reader accepts (longer answers compare lexically). Lab choice. */
const MAX_MATH_LENGTH = 2000;
const MAX_DEPTH = 200;
const MIN_NORMAL = 2.2250738585072014e-308;
const LOG10_MAX = Math.log10(Number.MAX_VALUE);
const LOG10_MIN_NORMAL = Math.log10(MIN_NORMAL);

const GREEK = new Set([
  "alpha",
  "beta",
  "gamma",
  "delta",
  "epsilon",
  "varepsilon",
  "zeta",
  "eta",
  "theta",
  "vartheta",
  "iota",
  "kappa",
  "lambda",
  "mu",
  "nu",
  "xi",
  "rho",
  "sigma",
  "tau",
  "upsilon",
  "phi",
  "varphi",
  "chi",
  "psi",
  "omega",
  "Gamma",
  "Delta",
  "Theta",
  "Lambda",
  "Xi",
  "Sigma",
  "Phi",
  "Psi",
  "Omega",
]);

class NotMath extends Error {}
class NonFinite extends Error {}

const MIXED_TEXT = /^(-?)(\d+) (\d+)\/(\d+)$/;

/** Parses `s` as math, or returns null when it is not math (rule 11). Never throws. */
export function parseMath(s: string): MathNode | null {
  if (s.length === 0 || s.length > MAX_MATH_LENGTH) return null;
  const mixed = MIXED_TEXT.exec(s);
  if (mixed) {
    const den = Number(mixed[4]);
    if (den === 0) return null;
    const v = Number(mixed[2]) + Number(mixed[3]) / den;
    return { k: "num", v: mixed[1] === "-" ? -v : v };
  }
  try {
    const p = new Parser(s);
    const node = p.expr();
    p.ws();
    if (!p.done()) return null;
    return node;
  } catch {
    return null;
  }
}

class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly s: string) {}

  done(): boolean {
    return this.i >= this.s.length;
  }
  ws(): void {
    while (
      this.i < this.s.length &&
      (this.s[this.i] === " " || this.s[this.i] === "\t" || this.s[this.i] === "\n")
    )
      this.i++;
  }
  private peekCommand(): string | null {
    if (this.s[this.i] !== "\\") return null;
    let j = this.i + 1;
    while (j < this.s.length && isLetter(this.s[j])) j++;
    return j > this.i + 1 ? this.s.slice(this.i + 1, j) : null;
  }
  private enter(): void {
    if (++this.depth > MAX_DEPTH) throw new NotMath("too deep");
  }

  expr(): MathNode {
    this.enter();
    let left = this.term();
    for (;;) {
      this.ws();
      const c = this.s[this.i];
      if (c === "+" || c === "-") {
        this.i++;
        const right = this.term();
        left = { k: c === "+" ? "add" : "sub", a: left, b: right };
      } else break;
    }
    this.depth--;
    return left;
  }

  private term(): MathNode {
    let left = this.unary();
    for (;;) {
      this.ws();
      const c = this.s[this.i];
      const cmd = this.peekCommand();
      if (c === "*" || cmd === "times" || cmd === "cdot") {
        this.i += c === "*" ? 1 : cmd!.length + 1;
        left = { k: "mul", a: left, b: this.unary() };
      } else if (c === "/" || cmd === "div") {
        this.i += c === "/" ? 1 : 4;
        left = { k: "div", a: left, b: this.unary() };
      } else if (this.startsImplicitFactor()) {
        left = { k: "mul", a: left, b: this.power() };
      } else break;
    }
    return left;
  }

  // Implicit multiplication only before a letter, a group or a command; never
  // before a number ("two numbers with nothing between them" is not math).
  private startsImplicitFactor(): boolean {
    const c = this.s[this.i];
    if (c === undefined) return false;
    if (isLetter(c) || c === "(" || c === "{") return true;
    const cmd = this.peekCommand();
    return cmd === "frac" || cmd === "sqrt" || cmd === "pi" || (cmd !== null && GREEK.has(cmd));
  }

  private unary(): MathNode {
    this.ws();
    const c = this.s[this.i];
    if (c === "+" || c === "-") {
      this.i++;
      this.enter();
      const a = this.unary();
      this.depth--;
      return c === "-" ? { k: "neg", a } : a;
    }
    return this.power();
  }

  private power(): MathNode {
    const base = this.primary();
    this.ws();
    if (this.s[this.i] !== "^") return base;
    this.i++;
    const exp = this.argument();
    this.ws();
    if (this.s[this.i] === "^") throw new NotMath("double superscript");
    return { k: "pow", a: base, b: exp };
  }

  /** A script or command argument: a braced group or one character. */
  private argument(): MathNode {
    this.ws();
    const c = this.s[this.i];
    if (c === "{") return this.group("{", "}");
    if (c !== undefined && isDigit(c)) {
      this.i++;
      return { k: "num", v: Number(c) };
    }
    if (c !== undefined && isLetter(c)) {
      this.i++;
      return { k: "var", name: c };
    }
    if (c === "\\") return this.command();
    throw new NotMath("bad argument");
  }

  private group(open: string, close: string): MathNode {
    this.i++; // open
    const inner = this.expr();
    this.ws();
    if (this.s[this.i] !== close) throw new NotMath(`expected ${close} after ${open}`);
    this.i++;
    return inner;
  }

  private primary(): MathNode {
    this.enter();
    try {
      this.ws();
      const c = this.s[this.i];
      if (c === undefined) throw new NotMath("unexpected end");
      if (isDigit(c) || c === ".") return this.numberOrMixed();
      if (isLetter(c)) {
        if (this.i + 1 < this.s.length && isLetter(this.s[this.i + 1])) throw new NotMath("word");
        this.i++;
        return { k: "var", name: c };
      }
      if (c === "(") return this.group("(", ")");
      if (c === "{") return this.group("{", "}");
      if (c === "\\") return this.command();
      throw new NotMath(`unexpected ${c}`);
    } finally {
      this.depth--;
    }
  }

  private command(): MathNode {
    const name = this.peekCommand();
    if (name === null) throw new NotMath("bad command");
    this.i += name.length + 1;
    if (name === "frac") {
      const a = this.argument();
      const b = this.argument();
      return { k: "div", a, b };
    }
    if (name === "sqrt") {
      this.ws();
      let n: MathNode | null = null;
      if (this.s[this.i] === "[") n = this.group("[", "]");
      return { k: "root", a: this.argument(), n };
    }
    if (name === "pi") return { k: "num", v: Math.PI };
    if (GREEK.has(name)) return { k: "var", name: `\\${name}` };
    throw new NotMath(`unknown command ${name}`);
  }

  private numberOrMixed(): MathNode {
    const start = this.i;
    while (this.i < this.s.length && isDigit(this.s[this.i])) this.i++;
    let integer = true;
    if (this.s[this.i] === ".") {
      integer = false;
      this.i++;
      while (this.i < this.s.length && isDigit(this.s[this.i])) this.i++;
    }
    const mantissa = this.s.slice(start, this.i);
    if (!/\d/.test(mantissa)) throw new NotMath("lone dot");
    // E notation: `1e-3` is a literal, not 1*e-3.
    const e = /^[eE][+-]?\d+/.exec(this.s.slice(this.i, this.i + 12));
    if (e) {
      this.i += e[0].length;
      return { k: "num", v: Number(mantissa + e[0]) };
    }
    const value = Number(mantissa);
    if (integer) {
      // Mixed number `2\frac{1}{2}` / `2\frac12`: integer + fraction of integers.
      const save = this.i;
      this.ws();
      if (this.peekCommand() === "frac") {
        this.i += 5;
        const a = this.argument();
        const b = this.argument();
        if (isIntegerLiteral(a) && isIntegerLiteral(b)) {
          return { k: "num", v: value + (a as { v: number }).v / (b as { v: number }).v };
        }
      }
      this.i = save;
    }
    return { k: "num", v: value };
  }
}

function isIntegerLiteral(n: MathNode): boolean {
  return n.k === "num" && Number.isInteger(n.v);
}
function isDigit(c: string): boolean {
  return c >= "0" && c <= "9";
}
function isLetter(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z");
}

/** Variable names used by a parsed expression. */
export function collectVariables(node: MathNode, out: Set<string>): Set<string> {
  switch (node.k) {
    case "num":
      break;
    case "var":
      out.add(node.name);
      break;
    case "neg":
      collectVariables(node.a, out);
      break;
    case "root":
      collectVariables(node.a, out);
      if (node.n) collectVariables(node.n, out);
      break;
    default:
      collectVariables(node.a, out);
      collectVariables(node.b, out);
  }
  return out;
}

/**
 * Evaluates in float64; returns NaN for any non-finite step, division by
 * zero, underflow below the smallest normal, or a power estimated beyond the
 * float64 range (rule 12). Never throws.
 */
export function evaluateMath(node: MathNode, env: Record<string, number>): number {
  try {
    return evalNode(node, env);
  } catch {
    return NaN;
  }
}

function checked(r: number, operandsNonZero: boolean): number {
  if (!Number.isFinite(r)) throw new NonFinite();
  if (operandsNonZero && r !== 0 && Math.abs(r) < MIN_NORMAL) throw new NonFinite();
  if (operandsNonZero && r === 0) throw new NonFinite();
  return r;
}

function evalNode(n: MathNode, env: Record<string, number>): number {
  switch (n.k) {
    case "num":
      return checked(n.v, false);
    case "var": {
      const v = env[n.name];
      if (v === undefined) throw new NonFinite();
      return v;
    }
    case "neg":
      return -evalNode(n.a, env);
    case "add":
      return checked(evalNode(n.a, env) + evalNode(n.b, env), false);
    case "sub":
      return checked(evalNode(n.a, env) - evalNode(n.b, env), false);
    case "mul": {
      const a = evalNode(n.a, env);
      const b = evalNode(n.b, env);
      return checked(a * b, a !== 0 && b !== 0);
    }
    case "div": {
      const a = evalNode(n.a, env);
      const b = evalNode(n.b, env);
      if (b === 0) throw new NonFinite();
      return checked(a / b, a !== 0);
    }
    case "pow":
      return boundedPow(evalNode(n.a, env), evalNode(n.b, env));
    case "root": {
      const a = evalNode(n.a, env);
      const k = n.n ? evalNode(n.n, env) : 2;
      if (k === 0) throw new NonFinite();
      if (a < 0) {
        if (Number.isInteger(k) && Math.abs(k) % 2 === 1) return -boundedPow(-a, 1 / k);
        throw new NonFinite();
      }
      return boundedPow(a, 1 / k);
    }
  }
}

/** a^b without ever computing a result outside float64 (towers return at once). */
function boundedPow(a: number, b: number): number {
  if (b === 0) return 1;
  if (a === 0) {
    if (b > 0) return 0;
    throw new NonFinite();
  }
  if (a < 0 && !Number.isInteger(b)) throw new NonFinite();
  const estimate = b * Math.log10(Math.abs(a));
  if (estimate > LOG10_MAX + 0.01 || estimate < LOG10_MIN_NORMAL - 0.01) throw new NonFinite();
  return checked(a ** b, true);
}
