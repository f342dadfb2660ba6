/**
 * Node's in-place UTF-8 decoder for core's range decoding (core/wal/utf8-range.ts): the
 * `utf8Slice` method behind `Buffer#toString("utf8", start, end)`, called on a plain
 * Uint8Array, which it accepts as any byte view. Same results as TextDecoder with ignoreBOM
 * (core checks it on probes when it is installed), without a view object per string.
 */
const utf8Slice = (Buffer.prototype as unknown as { utf8Slice(this: Uint8Array, start: number, end: number): string })
  .utf8Slice;

export function nodeUtf8Slice(bytes: Uint8Array, start: number, end: number): string {
  return utf8Slice.call(bytes, start, end);
}
