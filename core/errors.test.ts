/**
 * Goal: core/errors.ts is the one error table and must mirror SPEC.md's "## Errors" table row
 * for row: the same codes, in the same order, with the same HTTP statuses.
 * Method: read SPEC.md from the shared folder beside the repository (../shared/SPEC.md relative
 * to the repo root), parse the markdown table under "## Errors", and diff it against
 * `errorStatus`. Any added, dropped, reordered or re-statused code fails with the difference.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { errorStatus, isErrorCode, ok, refuse } from "./errors";

const here = path.dirname(fileURLToPath(import.meta.url));
const specPath = path.resolve(here, "../../shared/SPEC.md");

/** The rows of the first markdown table in the "## Errors" section: [code, status]. */
function parseErrorTable(spec: string): Array<[string, number]> {
  const start = spec.indexOf("\n## Errors");
  if (start < 0) throw new Error("SPEC.md has no '## Errors' section");
  const rest = spec.slice(start + 1);
  const next = rest.indexOf("\n## ", 1);
  const section = next < 0 ? rest : rest.slice(0, next);
  const rows: Array<[string, number]> = [];
  let header: string[] | null = null;
  for (const line of section.split("\n")) {
    if (!line.startsWith("|")) {
      if (header !== null && rows.length > 0) break;
      continue;
    }
    const cells = line
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim());
    if (header === null) {
      header = cells.map((c) => c.toLowerCase());
      continue;
    }
    if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
    const code = cells[header.indexOf("code")];
    const status = cells[header.indexOf("status")];
    if (code === undefined || status === undefined) throw new Error(`bad row: ${line}`);
    rows.push([code.replace(/`/g, ""), Number(status)]);
  }
  return rows;
}

describe("errorStatus mirrors SPEC.md's Errors table", () => {
  const spec = readFileSync(specPath, "utf8");
  const specRows = parseErrorTable(spec);

  it("parses a plausible table from SPEC.md", () => {
    expect(specRows.length).toBeGreaterThan(20);
    for (const [code, status] of specRows) {
      expect(code).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect([400, 404, 409, 422, 503]).toContain(status);
    }
  });

  it("has the same codes in the same order", () => {
    expect(Object.keys(errorStatus)).toEqual(specRows.map(([code]) => code));
  });

  it("has the same status for every code", () => {
    expect(Object.entries(errorStatus)).toEqual(specRows);
  });

  it("the parser notices drift (it can fail)", () => {
    const drifted = spec.replace("| name-in-use | 409 |", "| name-in-use | 422 |");
    expect(drifted).not.toEqual(spec);
    expect(parseErrorTable(drifted)).not.toEqual(Object.entries(errorStatus));
  });
});

describe("error helpers", () => {
  it("isErrorCode accepts exactly the table's codes", () => {
    for (const code of Object.keys(errorStatus)) expect(isErrorCode(code)).toBe(true);
    expect(isErrorCode("toString")).toBe(false);
    expect(isErrorCode("not-a-code")).toBe(false);
  });

  it("refusals and successes are values", () => {
    expect(refuse("no-such-object", "gone")).toEqual({
      ok: false,
      code: "no-such-object",
      message: "gone",
    });
    expect(ok(3)).toEqual({ ok: true, value: 3 });
  });
});
