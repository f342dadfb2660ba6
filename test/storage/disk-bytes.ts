/** Test helpers: every file under a directory, and byte search in them. */
import * as fs from "node:fs";
import * as path from "node:path";

/** Paths of every regular file under `dir`, recursively (bounded depth: our trees are shallow). */
export function filesUnder(dir: string, depth = 0): string[] {
  if (depth > 8) throw new Error(`directory tree too deep at ${dir}`);
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full, depth + 1));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** Files under `dir` whose bytes contain `needle`. */
export function filesContaining(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle, "utf8");
  return filesUnder(dir).filter((file) => fs.readFileSync(file).includes(bytes));
}
