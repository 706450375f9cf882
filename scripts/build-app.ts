/**
 * Builds the page as `npm run build` does, for the end-to-end tests, the
 * screenshots and the page benchmarks, which call Vite from inside another
 * process. Vite inlines `process.env.NODE_ENV` into the bundle from the
 * calling process when it is set; under vitest it is "test", which ships
 * React's development build (several times slower to render: a chart
 * re-render of 240 ms there, measured 2026-12-06). So the build runs with
 * NODE_ENV "production" and checks that the bundle is React's production one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { build, type InlineConfig } from "vite";

/** A function only React's development build contains (react-dom, 19.x). */
const REACT_DEV_MARKER = "runWithFiberInDEV";

/**
 * Builds the app at `root` into `outDir` (emptied first) as a production build.
 * @param extra - more of Vite's `build` options (e.g. rollupOptions for another entry).
 * @throws Error naming the file when a built script still holds React's development build, or what Vite throws.
 */
export async function buildApp(
  root: string,
  outDir: string,
  extra: NonNullable<InlineConfig["build"]> = {},
): Promise<void> {
  const before = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await build({
      root,
      logLevel: "error",
      mode: "production",
      build: { outDir, emptyOutDir: true, ...extra },
    });
  } finally {
    if (before === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = before;
  }
  const assets = join(outDir, "assets");
  for (const f of readdirSync(assets)) {
    if (f.endsWith(".js") && readFileSync(join(assets, f), "utf8").includes(REACT_DEV_MARKER))
      throw new Error(
        `${join(assets, f)} holds React's development build (${REACT_DEV_MARKER}): the build did not run as production`,
      );
  }
}
