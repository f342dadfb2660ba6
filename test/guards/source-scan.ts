import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * A small TypeScript source scanner for the structural guards. It is a lexer, not a parser:
 * it knows comments, string literals, template literals (with nested `${}` expressions) and
 * regular-expression literals, which is enough to find import specifiers and banned tokens
 * without being fooled by a word inside a comment or a string.
 */

export interface StrippedSource {
  /** The source with comments blanked (same length; newlines kept). Strings are kept. */
  readonly code: string;
  /** Like `code`, with string, template and regex literal contents blanked as well. */
  readonly bare: string;
}

const regexAfterWords = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "instanceof",
  "yield",
  "await",
]);
const regexAfterPunctuation = new Set("(,=:[!&|?{};+-*%<>~^".split(""));

type Context = { kind: "code"; depth: number } | { kind: "template" };

export function stripSource(src: string): StrippedSource {
  const code: string[] = [];
  const bare: string[] = [];
  const keep = (c: string): void => {
    code.push(c);
    bare.push(c);
  };
  const literal = (c: string): void => {
    code.push(c);
    bare.push(c === "\n" ? "\n" : " ");
  };
  const comment = (c: string): void => {
    const blank = c === "\n" ? "\n" : " ";
    code.push(blank);
    bare.push(blank);
  };
  const stack: Context[] = [{ kind: "code", depth: 0 }];
  let last = "";
  let i = 0;
  while (i < src.length) {
    const top = stack[stack.length - 1]!;
    const c = src[i]!;
    const next = src[i + 1] ?? "";
    if (top.kind === "template") {
      if (c === "\\") {
        literal(c);
        if (i + 1 < src.length) literal(next);
        i += 2;
      } else if (c === "`") {
        keep(c);
        stack.pop();
        last = "`";
        i += 1;
      } else if (c === "$" && next === "{") {
        keep(c);
        keep(next);
        stack.push({ kind: "code", depth: 0 });
        last = "{";
        i += 2;
      } else {
        literal(c);
        i += 1;
      }
      continue;
    }
    if (c === "/" && next === "/") {
      while (i < src.length && src[i] !== "\n") comment(src[i++]!);
      continue;
    }
    if (c === "/" && next === "*") {
      const end = src.indexOf("*/", i + 2);
      const stop = end < 0 ? src.length : end + 2;
      while (i < stop) comment(src[i++]!);
      continue;
    }
    if (c === '"' || c === "'") {
      keep(c);
      i += 1;
      while (i < src.length && src[i] !== c && src[i] !== "\n") {
        if (src[i] === "\\") literal(src[i++]!);
        if (i < src.length) literal(src[i++]!);
      }
      if (i < src.length) keep(src[i++]!);
      last = "x";
      continue;
    }
    if (c === "`") {
      keep(c);
      stack.push({ kind: "template" });
      i += 1;
      continue;
    }
    if (c === "{") {
      top.depth += 1;
      keep(c);
      last = "{";
      i += 1;
      continue;
    }
    if (c === "}") {
      keep(c);
      i += 1;
      if (top.depth === 0 && stack.length > 1) {
        stack.pop();
      } else {
        top.depth -= 1;
        last = "}";
      }
      continue;
    }
    if (
      c === "/" &&
      (last === "" || regexAfterPunctuation.has(last) || regexAfterWords.has(last))
    ) {
      keep(c);
      i += 1;
      let inClass = false;
      while (i < src.length && src[i] !== "\n") {
        const r = src[i]!;
        if (r === "\\") {
          literal(src[i++]!);
          if (i < src.length) literal(src[i++]!);
          continue;
        }
        if (r === "[") inClass = true;
        else if (r === "]") inClass = false;
        else if (r === "/" && !inClass) break;
        literal(r);
        i += 1;
      }
      if (i < src.length && src[i] === "/") keep(src[i++]!);
      last = "x";
      continue;
    }
    if (/[A-Za-z0-9_$]/.test(c)) {
      let word = "";
      while (i < src.length && /[A-Za-z0-9_$]/.test(src[i]!)) {
        word += src[i];
        keep(src[i++]!);
      }
      last = word;
      continue;
    }
    keep(c);
    if (!/\s/.test(c)) last = c;
    i += 1;
  }
  return { code: code.join(""), bare: bare.join("") };
}

export interface ImportSite {
  readonly specifier: string;
  readonly line: number;
  /** "static": import/export ... from and side-effect imports; "dynamic": import(), require(). */
  readonly kind: "static" | "dynamic";
}

/** Every module specifier the source imports or re-exports, type-only ones included. */
export function importsOf(src: string): ImportSite[] {
  const { code, bare } = stripSource(src);
  const out: ImportSite[] = [];
  const lineAt = (index: number): number => code.slice(0, index).split("\n").length;
  const specifierAt = (quoteIndex: number): string => {
    const quote = code[quoteIndex]!;
    const end = code.indexOf(quote, quoteIndex + 1);
    return code.slice(quoteIndex + 1, end);
  };
  const patterns = [/\b(?:import|export)\b[^;'"`=()]*?\bfrom\s*(["'])/g, /\bimport\s*(["'])/g];
  for (const pattern of patterns) {
    for (const m of bare.matchAll(pattern)) {
      const quoteIndex = m.index + m[0].length - 1;
      out.push({ specifier: specifierAt(quoteIndex), line: lineAt(m.index), kind: "static" });
    }
  }
  for (const m of bare.matchAll(/\b(?:import|require)\s*\(/g)) {
    out.push({ specifier: "(dynamic)", line: lineAt(m.index), kind: "dynamic" });
  }
  return out.sort((a, b) => a.line - b.line);
}

export interface TokenSite {
  readonly token: string;
  readonly line: number;
}

/** Occurrences of banned tokens in code (comments, strings and regex literals excluded). */
export function bannedTokensIn(src: string, banned: readonly RegExp[]): TokenSite[] {
  const { bare } = stripSource(src);
  const out: TokenSite[] = [];
  for (const pattern of banned) {
    const global = new RegExp(
      pattern.source,
      pattern.flags.includes("g") ? pattern.flags : pattern.flags + "g",
    );
    for (const m of bare.matchAll(global)) {
      out.push({ token: m[0], line: bare.slice(0, m.index).split("\n").length });
    }
  }
  return out.sort((a, b) => a.line - b.line);
}

/** Every .ts file under `dir` (recursively), as repo-relative paths with forward slashes. */
export function tsFilesUnder(repoRoot: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string): void => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const full = path.join(abs, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(full);
      } else if (entry.name.endsWith(".ts")) {
        out.push(path.relative(repoRoot, full).split(path.sep).join("/"));
      }
    }
  };
  walk(path.join(repoRoot, dir));
  return out.sort();
}

export function readRepoFile(repoRoot: string, rel: string): string {
  return readFileSync(path.join(repoRoot, rel), "utf8");
}

/** The repo-relative target of a relative specifier, or null for a bare one. */
export function resolveRelative(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  return path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
}
