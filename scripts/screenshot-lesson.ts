/**
 * The lesson's screenshots, from the built page in headless Chromium
 * (--enable-unsafe-webgpu: WebGPU on SwiftShader here):
 *   npm run screenshot:lesson -- [--minutes M] [--hash H] [--out FILE] [--no-webgpu] [--presentation]
 * Opens the page as a first visit (guided view open), presses Train once it
 * is ready and takes the first screen (1400 × 1000) after M minutes (default
 * 3). With --no-webgpu, navigator.gpu is removed before the page loads: the
 * page plays the recording; the script presses Play and takes the screen
 * when the recording has played to its end. Prints one JSON line
 * {"out", "step", "seconds"} ({"error"} on failure).
 */
import { SCREENSHOT_LESSON_TABLE } from "../src/cli/script-flags";
import { readCliFlags } from "../src/lib/cli-flags";
import { withBuiltPage } from "./bench/built-page";

async function main(): Promise<void> {
  const { flags } = readCliFlags(SCREENSHOT_LESSON_TABLE);
  const minutes = flags.minutes;
  const out = flags.out;
  const hash = flags.hash !== undefined ? `#${String(flags.hash).replace(/^#/, "")}` : "";
  const noGpu = Boolean(flags["no-webgpu"]);
  const r = await withBuiltPage("index.html", async (url, browser) => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    if (noGpu)
      // As text: a function compiled by tsx would carry its helpers (__name) into the page.
      await page.addInitScript({
        content:
          'Object.defineProperty(Navigator.prototype, "gpu", { get: () => undefined, configurable: true });',
      });
    await page.goto(`${url}${hash}`);
    if (flags.presentation) await page.getByRole("button", { name: "Presentation" }).click();
    const t0 = Date.now();
    if (noGpu) {
      await page.getByTestId("playback-toggle").waitFor({ timeout: 120_000 });
      await page.getByTestId("playback-toggle").click();
      await page.waitForFunction(
        () =>
          document.querySelector('[data-testid="status-phase"]')?.textContent ===
          "recording paused",
        null,
        { timeout: 600_000, polling: 500 },
      );
    } else {
      await page.waitForFunction(
        () =>
          document.querySelector('[data-testid="status-phase"]')?.textContent === "ready" &&
          !document.querySelector('[data-testid="status"] .muted'),
        null,
        { timeout: 600_000, polling: 500 },
      );
      await page.getByRole("button", { name: "Train", exact: true }).click();
      await page.waitForTimeout(minutes * 60_000);
    }
    // Let the staggered charts catch up with the last rows before the picture.
    await page.waitForTimeout(3000);
    await page.screenshot({ path: out });
    const step = await page.getByTestId("status-step").textContent();
    return { out, step, seconds: Math.round((Date.now() - t0) / 1000) };
  });
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

main().catch((e) => {
  process.stdout.write(`${JSON.stringify({ error: (e as Error).message })}\n`);
  process.exit(1);
});
