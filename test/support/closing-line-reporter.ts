import type { Reporter, TestModule } from "vitest/node";

/**
 * Prints one plain closing line after vitest's own summary, `Tests: N passed, M failed`
 * (with `, K skipped` when any were skipped), so CI tooling that reads the last line of a
 * run counts the tests without parsing vitest's decorated summary.
 */
export default class ClosingLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") failed += 1;
        else skipped += 1;
      }
      if (module.state() === "failed" && [...module.children.allTests()].length === 0) failed += 1;
    }
    const tail = skipped > 0 ? `, ${skipped} skipped` : "";
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed${tail}\n`);
  }
}
