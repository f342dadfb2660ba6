/**
 * Goal: the core compiles on its own, without Node's type declarations, so that nothing in
 * core/ can lean on Node globals (process, Buffer, timers) even where no import shows it.
 * Method: run the TypeScript compiler on core/tsconfig.json (types: [], tests excluded) and
 * require a clean exit; then prove the configuration bites by compiling, under the same
 * settings, a throwaway file that uses `process` and `Buffer` and requiring that it fails.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const tscTimeoutMs = 300_000;

function tsc(project: string): { status: number; output: string } {
  try {
    const output = execFileSync("npx", ["tsc", "--noEmit", "-p", project], {
      cwd: repoRoot,
      encoding: "utf8",
      timeout: tscTimeoutMs,
      stdio: ["ignore", "pipe", "pipe"],
    });
    return { status: 0, output };
  } catch (e) {
    const err = e as { status?: number | null; stdout?: string; stderr?: string };
    return { status: err.status ?? -1, output: `${err.stdout ?? ""}${err.stderr ?? ""}` };
  }
}

describe("core/tsconfig.json typechecks without Node types", () => {
  it("compiles core/ cleanly", { timeout: tscTimeoutMs }, () => {
    const result = tsc("core/tsconfig.json");
    expect(result.output.split("\n").filter((l) => l.includes("error TS"))).toEqual([]);
    expect(result.status).toBe(0);
  });

  it(
    "refuses Node globals under the same settings (the check can fail)",
    { timeout: tscTimeoutMs },
    () => {
      const dir = mkdtempSync(path.join(tmpdir(), "canopy-core-tsc-"));
      try {
        writeFileSync(
          path.join(dir, "uses-node.ts"),
          "export const x = process.argv.length + Buffer.length;\n",
        );
        writeFileSync(
          path.join(dir, "tsconfig.json"),
          JSON.stringify({
            extends: path.join(repoRoot, "core/tsconfig.json"),
            include: [],
            files: [path.join(dir, "uses-node.ts")],
          }),
        );
        const result = tsc(path.join(dir, "tsconfig.json"));
        expect(result.status).not.toBe(0);
        expect(result.output).toMatch(/process/);
        expect(result.output).toMatch(/Buffer/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
