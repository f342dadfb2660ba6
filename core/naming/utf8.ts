/**
 * UTF-8 measurements by hand: core's lib has no TextEncoder typing, and counting by code
 * unit is exact without allocating an encoded copy of a value that may be 1 MiB long.
 */

/** True when the string has no unpaired surrogate, i.e. it encodes to UTF-8 losslessly. */
export function isWellFormedUtf16(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c >= 0xdc00) return false;
    const next = s.charCodeAt(i + 1);
    if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
    i++;
  }
  return true;
}

/**
 * The UTF-8 byte length of a string. An unpaired surrogate counts 3 bytes, the size of the
 * U+FFFD that an encoder would substitute; callers refuse such strings anyway.
 */
export function utf8ByteLength(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(s.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
