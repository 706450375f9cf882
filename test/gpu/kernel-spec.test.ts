/**
 * Kernel specs (src/gpu/kernel-spec.ts): the generated WGSL header, packing
 * uniforms by name, the errors that name the kernel and the field (a value
 * of the wrong type, a missing or unknown field or binding), the build-time
 * check of every kernel's body against its spec, the grids, that a kernel's
 * variants (scalar / vec4 / tile / packed rows) are generated from one
 * shader file and no two shader files are near copies, and — on the GPU —
 * that every kernel of every family compiles and builds its pipeline, and
 * that a uniform declared with one type and read as another by the shader
 * fails when the pipeline is built.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { defineKernel, type KernelSpec, spillGrid } from "../../src/gpu/kernel-spec";
import { ADAMW_SPECS } from "../../src/kernels/adamw/spec";
import { ADVANTAGES_SPECS } from "../../src/kernels/advantages/spec";
import { ATTENTION_SPECS } from "../../src/kernels/attention/spec";
import { DECODE_SPECS } from "../../src/kernels/decode/spec";
import { EMBED_SPECS } from "../../src/kernels/embed/spec";
import { GELU_SPECS } from "../../src/kernels/gelu/spec";
import { LAYERNORM_SPECS } from "../../src/kernels/layernorm/spec";
import { LOSS_SPECS } from "../../src/kernels/loss/spec";
import { ROWS_SPECS } from "../../src/kernels/rows/spec";
import { MATMUL_SPECS, matmulForwardScalar } from "../../src/kernels/matmul/spec";
import { SAMPLE_SPECS, sampleSpec } from "../../src/kernels/sample/spec";

const ALL: KernelSpec[] = [
  ...MATMUL_SPECS,
  ...ATTENTION_SPECS,
  ...LAYERNORM_SPECS,
  ...GELU_SPECS,
  ...EMBED_SPECS,
  ...LOSS_SPECS,
  ...ADAMW_SPECS,
  ...ADVANTAGES_SPECS,
  ...SAMPLE_SPECS,
  ...DECODE_SPECS,
  ...ROWS_SPECS,
];

/** out[i] = a[i]·scale + i + k for i < n: the toy kernel of these tests. */
const TOY_BODY = /* wgsl */ `
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = linear_id(gid, nwg);
  if (i >= p.n) { return; }
  out[i] = a[i] * p.scale + f32(i) + f32(p.k);
}
`;

function toy(over: Partial<Parameters<typeof defineKernel>[0]> = {}) {
  return defineKernel({
    name: "toy",
    source: TOY_BODY,
    uniforms: { n: "u32", k: "i32", scale: "f32" },
    bindings: { a: ["read", "f32"], out: ["read_write", "f32"] },
    workgroupSize: 64,
    grid: { kind: "spill", threads: (u) => u.n },
    ...over,
  });
}

describe("kernel specs", () => {
  it("generate the WGSL header: WG, constants, the Params struct in order, binding 0 and bindings 1..n", () => {
    const spec = toy({ consts: { HD: 8 } });
    expect(spec.header().split("\n").slice(1)).toEqual([
      "const WG: u32 = 64u;",
      "const HD: u32 = 8u;",
      "struct Params {",
      "  n: u32,",
      "  k: i32,",
      "  scale: f32,",
      "}",
      "@group(0) @binding(0) var<uniform> p: Params;",
      "@group(0) @binding(1) var<storage, read> a: array<f32>;",
      "@group(0) @binding(2) var<storage, read_write> out: array<f32>;",
      "",
    ]);
    expect(spec.code()).toContain("fn linear_id(");
    expect(spec.code()).toContain("fn prng_uniform(");
  });

  it("emit type parameters as aliases after the constants, and refuse a body that declares one", () => {
    const spec = toy({ consts: { VW: 4 }, types: { E: "vec4f", ACC: "mat2x4<f32>" } });
    expect(spec.header().split("\n").slice(1, 5)).toEqual([
      "const WG: u32 = 64u;",
      "const VW: u32 = 4u;",
      "alias E = vec4f;",
      "alias ACC = mat2x4<f32>;",
    ]);
    expect(() => toy({ types: { E: "vec4f; const X = 1" } })).toThrow(
      "toy: type E must be a WGSL type name, got 'vec4f; const X = 1'",
    );
    expect(() =>
      toy({ source: `alias E = f32;\n${TOY_BODY}`, types: { E: "vec4f" } }).check(),
    ).toThrow("toy: the shader declares type E, which its spec provides");
  });

  it("pack uniforms by name, each at its declared offset and type, padded to 16 bytes", () => {
    const buf = toy().pack({ scale: 0.5, n: 7, k: -2 });
    expect(buf.byteLength).toBe(16);
    const dv = new DataView(buf);
    expect([dv.getUint32(0, true), dv.getInt32(4, true), dv.getFloat32(8, true)]).toEqual([
      7, -2, 0.5,
    ]);
    expect(sampleSpec.uniformBytes).toBe(64); // 13 fields
  });

  it("a uniform declared with one type and packed as another fails, naming the kernel and the field", () => {
    const u = { M: 4, K: 4, N: 4, flags: 0 };
    expect(() => matmulForwardScalar.pack({ ...u, M: 0.5 })).toThrow(
      "matmul_forward: uniform field 'M' is u32, got 0.5",
    );
    expect(() => matmulForwardScalar.pack({ ...u, flags: -1 })).toThrow(
      "matmul_forward: uniform field 'flags' is u32, got -1",
    );
    const s = {
      N: 2,
      V: 5,
      M: 3,
      cap: 3,
      promptLen: 1,
      textCap: 4,
      seed: 1,
      eos: 1,
      pad: 0,
      greedy: 0,
      topK: 0,
      invT: 1,
      topP: 1,
    };
    expect(() => sampleSpec.pack({ ...s, invT: Number.NaN })).toThrow(
      "sample: uniform field 'invT' is f32, got NaN",
    );
    expect(() => sampleSpec.pack({ ...s, eos: 2 ** 31 })).toThrow(
      "sample: uniform field 'eos' is i32, got 2147483648",
    );
    expect(() => sampleSpec.pack({ ...s, greedy: true as unknown as number })).toThrow(
      "sample: uniform field 'greedy' is u32, got true",
    );
    expect(() => sampleSpec.pack(s)).not.toThrow();
  });

  it("a missing or an unknown uniform field fails, naming the kernel and the field", () => {
    expect(() => toy().pack({ n: 1, k: 0 } as never)).toThrow(
      "toy: uniform field 'scale' (f32) is missing",
    );
    expect(() => toy().pack({ n: 1, k: 0, scale: 1, temperature: 1 } as never)).toThrow(
      "toy: 'temperature' is not a uniform field (fields: n, k, scale)",
    );
  });

  it("check the body against the spec when the pipeline is built", () => {
    const bad =
      (source: string, over = {}) =>
      () =>
        toy({ source, ...over }).check();
    expect(bad(`@group(0) @binding(3) var<storage, read> z: array<f32>;\n${TOY_BODY}`)).toThrow(
      "toy: the shader declares '@group('; bindings and the uniform come from its spec",
    );
    expect(bad(TOY_BODY.replace("p.scale", "p.gain"))).toThrow(
      "toy: the shader reads p.gain, which is not a uniform field of its spec (n, k, scale)",
    );
    expect(
      bad(TOY_BODY, {
        bindings: { a: ["read", "f32"], out: ["read_write", "f32"], extra: ["read", "f32"] },
      }),
    ).toThrow("toy: binding 'extra' of its spec is not used by the shader");
    expect(bad(TOY_BODY.replace("@workgroup_size(WG)", "@workgroup_size(64)"))).toThrow(
      "toy: entry point 'main' must be declared with @workgroup_size(WG) (WG = 64 from its spec)",
    );
    expect(bad(TOY_BODY.replace("linear_id(gid, nwg)", "gid.x"))).toThrow(
      "toy: its grid spills into y, so the shader must index with linear_id(gid, nwg)",
    );
    expect(bad(`const HD: u32 = 4u;\n${TOY_BODY}`, { consts: { HD: 8 } })).toThrow(
      "toy: the shader declares constant HD, which its spec provides",
    );
    expect(() => toy().check()).not.toThrow();
  });

  it.each(ALL.map((s) => [s.name, s] as const))(
    "%s: the body matches its spec and the header declares exactly the spec's fields and bindings",
    (_name, spec) => {
      spec.check();
      const header = spec.header();
      const fields = [...header.matchAll(/^ {2}(\w+): (\w+),$/gm)].map((m) => [m[1], m[2]]);
      expect(fields).toEqual(spec.fields.map((f) => [f, spec.uniforms[f]]));
      const bindings = [
        ...header.matchAll(
          /^@group\(0\) @binding\((\d+)\) var<storage, (\w+)> (\w+): array<(\w+)>;$/gm,
        ),
      ].map((m) => [Number(m[1]), m[2], m[3], m[4]]);
      expect(bindings).toEqual(
        spec.bindingNames.map((b, i) => [i + 1, spec.bindings[b][0], b, spec.bindings[b][1]]),
      );
      expect(spec.code().match(/var<uniform>/g)).toHaveLength(1);
      expect(spec.code().match(/@binding\(/g)).toHaveLength(spec.bindingNames.length + 1);
    },
  );

  it("compute the grid from the uniform values: spill into y past the limit, x-only grids refuse", () => {
    const spec = toy();
    expect(spec.workgroups({ n: 1000, k: 0, scale: 1 }, 65535)).toEqual([16, 1, 1]);
    const [x, y] = spec.workgroups({ n: 65535 * 64 + 1000, k: 0, scale: 1 }, 65535);
    expect(y).toBe(2);
    expect(x * y * 64).toBeGreaterThanOrEqual(65535 * 64 + 1000);
    expect(spillGrid(10, 4)).toEqual([4, 3]);
    expect(() => sampleSpec.workgroups({ N: 65536 * 64 } as never, 65535)).toThrow(
      "sample: 4194304 invocations need 65536 workgroups, over one dispatch dimension (65535)",
    );
  });
});

/** The kernel a spec is a variant of: its name without the variant's suffixes. */
function kernelOf(name: string): string {
  return name.split(".")[0].replace(/(_rows)?(_vec4)?(_16x8)?$/, "");
}

const SHADERS = fileURLToPath(new URL("../../shaders/", import.meta.url));
/** Every shader file (path under shaders/ → text), the shared prelude left out. */
const SHADER_FILES = new Map(
  readdirSync(SHADERS, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".wgsl") && f !== "prelude.wgsl")
    .sort()
    .map((f) => [f, readFileSync(join(SHADERS, f), "utf8")]),
);

/** The code lines of a shader (comments, blank and short lines such as `}` dropped, spaces collapsed). */
function codeLines(wgsl: string): string[] {
  return wgsl
    .split("\n")
    .map((l) =>
      l
        .replace(/\/\/.*/, "")
        .replace(/\s+/g, " ")
        .trim(),
    )
    .filter((l) => l.length > 12);
}

/** Dice similarity of two line multisets: 2·|shared lines| / (|a| + |b|). */
function lineDice(a: string[], b: string[]): number {
  const left = new Map<string, number>();
  for (const l of a) left.set(l, (left.get(l) ?? 0) + 1);
  let shared = 0;
  for (const l of b) {
    const n = left.get(l) ?? 0;
    if (n > 0) {
      shared++;
      left.set(l, n - 1);
    }
  }
  return (2 * shared) / (a.length + b.length);
}

describe("kernel variants come from one source", () => {
  it("the variants of each kernel share one shader file (no hand-kept scalar / vec4 copies)", () => {
    const groups = new Map<string, KernelSpec[]>();
    for (const s of ALL) groups.set(kernelOf(s.name), [...(groups.get(kernelOf(s.name)) ?? []), s]);
    for (const [kernel, specs] of groups) {
      const sources = new Set(specs.map((s) => s.source));
      expect([kernel, sources.size]).toEqual([kernel, 1]);
    }
    const sizes = (names: string[]) => names.map((k) => [k, groups.get(k)?.length]);
    expect(
      sizes([
        "attention_forward",
        "attention_backward_q",
        "attention_backward_kv",
        "matmul_forward",
        "matmul_backward_dx",
        "matmul_backward_dw",
      ]),
    ).toEqual([
      ["attention_forward", 3], // scalar, vec4, packed rows (vec4)
      ["attention_backward_q", 3],
      ["attention_backward_kv", 2],
      ["matmul_forward", 3], // 4×4 scalar, 8×4 vec4, 16×8 vec4
      ["matmul_backward_dx", 3], // 4×4 scalar, 8×4 vec4, 16×8 vec4
      ["matmul_backward_dw", 3],
    ]);
  });

  it("every shader file under shaders/ is the source of some kernel spec", () => {
    const used = new Set(ALL.map((s) => s.source));
    const unused = [...SHADER_FILES].filter(([, text]) => !used.has(text)).map(([f]) => f);
    expect(unused).toEqual([]);
  });

  it("no two shader files of 20 code lines or more share 65 % of their lines (make variants with blocks instead)", () => {
    const files = [...SHADER_FILES].map(([f, text]) => [f, codeLines(text)] as const);
    const near: string[] = [];
    for (let i = 0; i < files.length; i++) {
      for (let j = i + 1; j < files.length; j++) {
        const [fa, a] = files[i];
        const [fb, b] = files[j];
        if (a.length < 20 || b.length < 20) continue;
        const d = lineDice(a, b);
        if (d >= 0.65)
          near.push(`${fa} ~ ${fb}: ${Math.round(d * 100)} % of their code lines shared`);
      }
    }
    expect(near).toEqual([]);
  });
});

describe("kernel specs on the GPU", () => {
  const gpu = useGpu();

  it("every kernel of every family compiles (header + prelude + body) and builds its pipeline", async () => {
    for (const spec of ALL) {
      expect([spec.name, await gpu.ctx.compileMessages(spec.code())]).toEqual([spec.name, []]);
      spec.kernel(gpu.ctx);
    }
    await gpu.ctx.sync(); // no WebGPU error from any pipeline
  });

  it("a uniform declared u32 but read as f32 by the shader fails when the pipeline is built, naming the kernel", async () => {
    const spec = toy({
      name: "toy_u32_scale",
      uniforms: { n: "u32", k: "i32", scale: "u32" },
    });
    const messages = await gpu.ctx.compileMessages(spec.code());
    expect(messages.join("\n")).toMatch(/f32.*u32|u32.*f32/);
    spec.kernel(gpu.ctx);
    await expect(gpu.ctx.sync()).rejects.toThrow(/toy_u32_scale/);
  });

  it("binds buffers by name, sets uniforms by name and recomputes the grid", async () => {
    const spec = toy({ name: "toy_run" });
    const n = 1000;
    const a = gpu.ctx.createBufferFrom(
      "a",
      Float32Array.from({ length: n }, (_, i) => i * 0.5),
    );
    const out = gpu.ctx.createBuffer("out", n * 4);
    expect(() => spec.call(gpu.ctx, { a } as never, { n, k: 0, scale: 2 })).toThrow(
      "toy_run: binding 'out' is missing",
    );
    expect(() => spec.call(gpu.ctx, { a, out, b: a } as never, { n, k: 0, scale: 2 })).toThrow(
      "toy_run: 'b' is not a binding (bindings: a, out)",
    );
    const call = spec.call(gpu.ctx, { a, out }, { n, k: 3, scale: 2 });
    expect(call.workgroups).toEqual([16, 1, 1]);
    gpu.ctx.run(call);
    const r1 = await gpu.ctx.readF32(out);
    expect(r1[999]).toBeCloseTo(999 * 0.5 * 2 + 999 + 3, 3);
    call.set({ scale: -1, n: 10 });
    expect(call.values).toEqual({ n: 10, k: 3, scale: -1 });
    expect(call.workgroups).toEqual([1, 1, 1]);
    gpu.ctx.run(call);
    const r2 = await gpu.ctx.readF32(out);
    expect(r2[9]).toBeCloseTo(-4.5 + 9 + 3, 5);
    expect(r2[10]).toBeCloseTo(10 * 0.5 * 2 + 10 + 3, 3); // past n: left as it was
    expect(() => call.set({ k: 0.5 })).toThrow("toy_run: uniform field 'k' is i32, got 0.5");
  });

  it("an upgrade must have the call's bindings and uniforms", () => {
    const spec = toy({ name: "toy_up" });
    const other = toy({
      name: "toy_other",
      bindings: { a: ["read", "f32"], b: ["read_write", "f32"] },
    } as never);
    const a = gpu.ctx.createBuffer("a", 64);
    const out = gpu.ctx.createBuffer("out", 64);
    expect(() =>
      spec.call(gpu.ctx, { a, out }, { n: 4, k: 0, scale: 1 }, { upgrade: other }),
    ).toThrow("toy_up: upgrade toy_other has other bindings or uniforms");
  });
});
