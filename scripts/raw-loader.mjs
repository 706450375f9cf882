// Node module hook: lets the CLI and benchmarks (run with tsx) import
// `shaders/**/*.wgsl?raw` exactly as Vite does in the browser and in Vitest.
import { readFile } from "node:fs/promises";

export async function resolve(specifier, context, next) {
  if (specifier.endsWith("?raw")) {
    const bare = specifier.slice(0, -"?raw".length);
    const { url } = await next(bare, context);
    return { url: `${url}?raw`, shortCircuit: true, format: "module" };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url.endsWith("?raw")) {
    const text = await readFile(new URL(url.slice(0, -"?raw".length)), "utf8");
    return {
      format: "module",
      source: `export default ${JSON.stringify(text)};`,
      shortCircuit: true,
    };
  }
  return next(url, context);
}
