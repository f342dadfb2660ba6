/**
 * The scenario file tokenizer: whitespace separates tokens; `"..."` segments are JSON string
 * literals (so names with spaces, quotes or `#` can be written) and may sit inside a token
 * (`description="two words"`); `#` outside quotes starts a comment.
 */
export interface Token {
  readonly text: string;
  /** Length of the token's leading unquoted part: syntax (`@`, `=`, `->`) counts only there. */
  readonly bareLength: number;
}

export class ScenarioSyntaxError extends Error {
  override readonly name = "ScenarioSyntaxError";
  /**
   * `line` is the 1-based line that holds the mistake; null when no line does (a required
   * directive missing from the file), and the message then names no line.
   */
  constructor(
    readonly line: number | null,
    message: string,
  ) {
    super(line === null ? message : `line ${line}: ${message}`);
  }
}

export function tokenizeLine(source: string, line: number): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = source.length;
  for (let guard = 0; i < n && guard <= n; guard++) {
    while (i < n && /\s/u.test(source[i]!)) i++;
    if (i >= n || source[i] === "#") break;
    let text = "";
    let bareLength = -1;
    while (i < n && !/\s/u.test(source[i]!) && source[i] !== "#") {
      if (source[i] === '"') {
        if (bareLength < 0) bareLength = text.length;
        const end = closingQuote(source, i, line);
        text += decodeQuoted(source.slice(i, end + 1), line);
        i = end + 1;
      } else {
        text += source[i];
        i++;
      }
    }
    tokens.push({ text, bareLength: bareLength < 0 ? text.length : bareLength });
  }
  return tokens;
}

/**
 * The line up to its comment: the first `#` outside quotes and what follows are cut off, and
 * trailing space with them. For the directives whose argument is free text (`checks`,
 * `known-bug`), which keep their quotes as written but treat `#` as every other line does.
 */
export function withoutComment(source: string, line: number): string {
  for (let i = 0; i < source.length; i++) {
    if (source[i] === '"') i = closingQuote(source, i, line);
    else if (source[i] === "#") return source.slice(0, i).trimEnd();
  }
  return source;
}

function closingQuote(source: string, open: number, line: number): number {
  for (let j = open + 1; j < source.length; j++) {
    if (source[j] === "\\") j++;
    else if (source[j] === '"') return j;
  }
  throw new ScenarioSyntaxError(line, "unterminated string");
}

function decodeQuoted(literal: string, line: number): string {
  try {
    const value: unknown = JSON.parse(literal);
    if (typeof value === "string") return value;
  } catch {
    // fall through to the error below
  }
  throw new ScenarioSyntaxError(line, `bad string literal ${literal}`);
}

/** True when the token starts with `prefix` in its unquoted part. */
export function bareStarts(token: Token, prefix: string): boolean {
  return token.bareLength >= prefix.length && token.text.startsWith(prefix);
}

/** Splits `key=value` at an unquoted `=`; null when there is none. */
export function splitAssignment(token: Token): { key: string; value: Token } | null {
  const eq = token.text.indexOf("=");
  if (eq <= 0 || eq >= token.bareLength) return null;
  const value = { text: token.text.slice(eq + 1), bareLength: token.bareLength - eq - 1 };
  return { key: token.text.slice(0, eq), value };
}
