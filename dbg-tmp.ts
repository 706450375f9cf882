import { withBuiltPage } from "./scripts/built-page";
await withBuiltPage("index.html", async (url, browser) => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on("console", (m) => console.log("console", m.type(), m.text()));
  page.on("pageerror", (e) => console.log("pageerror", e.message));
  await page.addInitScript({content: 'Object.defineProperty(Navigator.prototype, "gpu", { get: () => undefined, configurable: true });'});
  await page.goto(url);
  await page.waitForTimeout(8000);
  await page.getByTestId("playback-scrub").focus();
  await page.keyboard.press("End");
  await page.waitForTimeout(4000);
  await page.getByTestId("callout-example").first().click();
  await page.waitForTimeout(3000);
  await page.screenshot({ path: "/tmp/dbg.png" });
  console.log(await page.evaluate(() => document.body.innerText.slice(0, 1500)));
});
