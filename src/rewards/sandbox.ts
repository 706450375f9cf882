/**
 * The sandbox a written reward runs in: QuickJS, a JavaScript engine compiled
 * to WebAssembly (quickjs-emscripten, its synchronous wasm-file build), so the
 * code sees only what the lab hands it. It has no `fetch`, no `indexedDB`, no
 * `postMessage`, no timers and no access to the lab's storage, the network or
 * the page: a name the engine does not define is a ReferenceError. Each call
 * gets a fresh runtime (nothing carries from one group to the next) with a
 * time budget (an interrupt handler), a memory cap and a stack limit; every
 * failure comes back as a message naming the line of the code where the
 * engine reports one. Runs wherever the reward side runs: the page's reward
 * worker, the CLI, the reward server.
 */
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  shouldInterruptAfterDeadline,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSWASMModule,
} from "quickjs-emscripten-core";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";

/** Limits of one call (one group), all lab choices. */
export interface SandboxLimits {
  /** Wall time for one group's call, ms. */
  timeMs: number;
  /** Memory the runtime may allocate, bytes. */
  memoryBytes: number;
  /** Stack the runtime may use, bytes. */
  stackBytes: number;
  /** Longest result (its JSON text), characters. */
  resultChars: number;
}

/**
 * The lab's limits (lab choices): 1 s per group (a reward over 8 short
 * rollouts takes well under 1 ms; a second leaves room for a slow machine and
 * stops a loop before the step's other work notices); 8 MiB of memory (a
 * group's input is a few kB; a 10 MB string does not fit); 256 KiB of stack
 * (a few thousand frames); a result of at most 1 MB of JSON.
 */
export const SANDBOX_LIMITS: Readonly<SandboxLimits> = {
  timeMs: 1000,
  memoryBytes: 8 * 1024 * 1024,
  stackBytes: 256 * 1024,
  resultChars: 1_000_000,
};

/** The file name the code is evaluated under; error messages name its lines. */
const CODE_FILE = "reward.js";

/** The innermost frame in the written code of a QuickJS stack: its function's name and line. */
const FRAME = new RegExp(`at ([\\w$.<>]+) \\(${CODE_FILE.replace(".", "\\.")}:(\\d+)`);

/** A loaded QuickJS engine (load once with loadSandbox, then every call is synchronous). */
export type SandboxEngine = QuickJSWASMModule;

let loading: Promise<SandboxEngine> | null = null;

/**
 * Loads the QuickJS engine once (later calls return the same promise).
 * @param wasmLocation URL of `emscripten-module.wasm` (the page's worker
 *   passes the file Vite serves); absent: the package finds its own file
 *   (Node).
 * @throws Error naming the wasm file when it cannot be fetched or compiled.
 */
export function loadSandbox(wasmLocation?: string): Promise<SandboxEngine> {
  if (!loading) {
    const variant = wasmLocation ? newVariant(releaseSync, { wasmLocation }) : releaseSync;
    loading = newQuickJSWASMModuleFromVariant(variant).catch((e: unknown) => {
      loading = null;
      throw new Error(
        `the reward sandbox (QuickJS) could not be loaded from ${wasmLocation ?? "its package"}: ${(e as Error).message}`,
      );
    });
  }
  return loading;
}

/** What a sandboxed call gives back. */
export type SandboxResult = { ok: true; value: unknown } | { ok: false; message: string };

/** "line 3" from a QuickJS error's stack (the first frame in the written code), or null. */
function lineOf(err: { stack?: unknown; lineNumber?: unknown; fileName?: unknown }): number | null {
  if (typeof err.lineNumber === "number" && err.fileName === CODE_FILE) return err.lineNumber;
  if (typeof err.stack !== "string") return null;
  const m = new RegExp(`${CODE_FILE.replace(".", "\\.")}:(\\d+)`).exec(err.stack.slice(0, 2000));
  return m ? Number(m[1]) : null;
}

/** The message of an error the engine raised, with its line where it has one. */
function errorMessage(ctx: QuickJSContext, handle: QuickJSHandle, limits: SandboxLimits): string {
  let err: {
    name?: unknown;
    message?: unknown;
    stack?: unknown;
    lineNumber?: unknown;
    fileName?: unknown;
  };
  try {
    const dumped = ctx.dump(handle);
    err = dumped && typeof dumped === "object" ? dumped : { message: String(dumped) };
  } catch {
    err = { message: "(the error could not be read)" };
  }
  const line = lineOf(err);
  const at = line === null ? "" : ` at line ${line}`;
  const name = typeof err.name === "string" ? err.name : "Error";
  const msg = String(err.message ?? "").slice(0, 300);
  if (name === "InternalError" && msg === "interrupted") {
    // The engine records a frame's position only at calls: a loop without one is placed at its
    // function's first line, so the message names the function and calls the line what it is.
    const frame = typeof err.stack === "string" ? FRAME.exec(err.stack.slice(0, 2000)) : null;
    const where = frame
      ? ` in ${frame[1]} (the last place the engine recorded: line ${frame[2]})`
      : "";
    return `the reward ran past its time budget of ${limits.timeMs} ms for one group and was stopped${where}; an endless loop?`;
  }
  if (name === "InternalError" && msg === "stack overflow")
    return `the reward overflowed its stack of ${limits.stackBytes / 1024} KiB${at} (recursion too deep?)`;
  if (msg === "out of memory" || /out of memory/i.test(msg))
    return `the reward ran out of its ${limits.memoryBytes / 1024 / 1024} MiB of memory${at}`;
  if (name === "ReferenceError")
    return `${name}${at}: ${msg} (the reward sandbox has no network, storage, page or timers; it sees only its inputs)`;
  return `${name}${at}: ${msg}`;
}

/**
 * Runs `code` (a script that defines `function reward(group)`) in a fresh
 * QuickJS runtime and returns `{ result: reward(input), also }`, where `also`
 * is the code's top-level binding named `alsoRead` (null when the code has
 * none or no name is given); both copied out as JSON
 * with every non-finite number kept as the string "NaN", "Infinity" or
 * "-Infinity" (so the caller can name it). Never throws: a syntax error, a
 * throw, a time-out, running out of memory or stack, a missing `reward`
 * function or a result too long come back as `{ ok: false, message }`.
 * @param input any JSON-safe value; it reaches the code as a fresh object.
 * @param alsoRead an identifier (letters, digits, `_`) of a top-level binding to read back.
 */
export function runSandboxed(
  engine: SandboxEngine,
  code: string,
  input: unknown,
  limits: SandboxLimits = SANDBOX_LIMITS,
  alsoRead?: string,
): SandboxResult {
  if (alsoRead !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(alsoRead))
    return { ok: false, message: `not an identifier: ${JSON.stringify(alsoRead)}` };
  const also = alsoRead ? `typeof ${alsoRead} === "undefined" ? null : ${alsoRead}` : "null";
  let runtime: ReturnType<SandboxEngine["newRuntime"]> | null = null;
  let ctx: QuickJSContext | null = null;
  try {
    runtime = engine.newRuntime();
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(limits.stackBytes);
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + limits.timeMs));
    ctx = runtime.newContext();
    const c = ctx;
    const fail = (h: QuickJSHandle): SandboxResult => {
      const message = errorMessage(c, h, limits);
      h.dispose();
      return { ok: false, message };
    };
    const defined = c.evalCode(code, CODE_FILE);
    if (defined.error) return fail(defined.error);
    defined.value.dispose();
    const inputText = c.newString(JSON.stringify(input));
    c.setProp(c.global, "__labInput", inputText);
    inputText.dispose();
    const called = c.evalCode(
      `(() => {
  if (typeof reward !== "function") throw new TypeError("the code defines no function reward(group)");
  const out = reward(JSON.parse(__labInput));
  return JSON.stringify({ result: out === undefined ? null : out, also: ${also} }, (k, v) =>
    typeof v === "number" && !Number.isFinite(v) ? String(v) : v);
})()`,
      "lab.js",
    );
    if (called.error) return fail(called.error);
    const text = c.getString(called.value);
    called.value.dispose();
    if (text.length > limits.resultChars)
      return {
        ok: false,
        message: `the reward returned ${text.length} characters of JSON, more than ${limits.resultChars}`,
      };
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, message: `the reward sandbox failed: ${(e as Error).message}` };
  } finally {
    try {
      ctx?.dispose();
      runtime?.dispose();
    } catch {
      // A runtime stopped mid-allocation may hold handles; it is dropped with its memory.
    }
  }
}
