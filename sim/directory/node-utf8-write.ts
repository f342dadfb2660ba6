/**
 * Node's in-place UTF-8 encoder for core's batch encoding (core/wal/utf8-write.ts): the
 * `utf8Write` method behind `Buffer#write(text, offset, "utf8")`, called on a plain
 * Uint8Array, which it accepts as any byte view. Same bytes as TextEncoder.encodeInto (core
 * checks it on probes when it is installed), without a view and a result object per string.
 */
const utf8Write = (Buffer.prototype as unknown as { utf8Write(this: Uint8Array, text: string, offset: number): number })
  .utf8Write;

export function nodeUtf8Write(text: string, bytes: Uint8Array, at: number): number {
  return utf8Write.call(bytes, text, at);
}
