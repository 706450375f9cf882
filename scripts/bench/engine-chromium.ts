/**
 * The Chromium half of `npm run bench:engine`: a production build of
 * scripts/bench/engine.html opened in headless Chromium (WebGPU; SwiftShader
 * here, scripts/bench/built-page.ts); returns the JSON line its worker writes.
 */
import { withBuiltPage } from "./built-page";

/**
 * Runs the engine benchmark in Chromium with `repeats` timed runs per part.
 * @throws Error without Chromium, or when the page reports an error.
 */
export async function runEnginePage(repeats: number): Promise<Record<string, unknown>> {
  return withBuiltPage("scripts/bench/engine.html", async (url, browser) => {
    const page = await browser.newPage();
    page.on("console", (m) => process.stderr.write(`${m.text()}\n`));
    await page.goto(`${url}?repeats=${repeats}`);
    await page.waitForFunction(() => "__benchEngine" in window, null, {
      timeout: 1_200_000,
      polling: 500,
    });
    const line = (await page.evaluate(
      () => (window as unknown as { __benchEngine: unknown }).__benchEngine,
    )) as Record<string, unknown>;
    if (typeof line.error === "string") throw new Error(`chromium: ${line.error}`);
    return line;
  });
}
