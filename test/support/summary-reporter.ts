/**
 * Prints one plain closing line, `vitest: N passed, N failed, N skipped`,
 * after the default reporter, so any log reader can count the run.
 */
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      // A file that failed to load has no tests but must still count as a failure.
      if (mod.state() === "failed" && !Array.from(mod.children.allTests()).length) failed++;
    }
    console.log(`\nvitest: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
