/**
 * UTF-8 encoding of a string into a byte buffer at an offset: every key and value of every WAL
 * append and snapshot rebuild. The portable way, TextEncoder.encodeInto of a `subarray`,
 * allocates a view and a result object per string (in the simulator, where every node appends
 * and rebuilds all the time, ~3 % of the CPU of a standard seed). A shell may install a native
 * writer that encodes at an offset in place (useNativeUtf8Write: Node's
 * Buffer.prototype.utf8Write), refused unless it writes the portable writer's bytes, and
 * nothing outside them, on probes of ASCII, multi-byte text and lone surrogates.
 */
import { assert } from "../assert";

const encoder = new TextEncoder();

/**
 * Writes the UTF-8 of `text` (each lone surrogate as U+FFFD) into `bytes` from `at`; returns
 * the bytes written. The caller guarantees room: 3 bytes per UTF-16 code unit.
 */
export type Utf8Writer = (text: string, bytes: Uint8Array, at: number) => number;

export function utf8WritePortable(text: string, bytes: Uint8Array, at: number): number {
  const { read, written } = encoder.encodeInto(text, bytes.subarray(at));
  assert(read === text.length, "the buffer holds the whole string");
  return written;
}

let installed: Utf8Writer = utf8WritePortable;

export function writeUtf8(text: string, bytes: Uint8Array, at: number): number {
  return installed(text, bytes, at);
}

/** Probes: empty, ASCII, a leading byte-order mark, 2-4 byte sequences, lone surrogates. */
const probes: readonly string[] = [
  "",
  "abc",
  "\ufeffhé😀x",
  "€\u0080\u07ff\u0800\uffff",
  "a\ud800b\udc00c",
  "\ud83d",
  "\ude00\ud83d\ude00\ud83d",
];

/** The bytes `write` leaves in a padded buffer when it writes `text` at offset 2. */
function probeBytes(write: Utf8Writer, text: string): string {
  const bytes = new Uint8Array(4 + 3 * text.length).fill(0x7a);
  const written = write(text, bytes, 2);
  return `${written}:${bytes.join(",")}`;
}

/**
 * Installs `candidate` (null: back to the portable writer). It must leave exactly the portable
 * writer's bytes, and return its count, for every probe written inside a larger buffer.
 */
export function useNativeUtf8Write(candidate: Utf8Writer | null): void {
  if (candidate !== null) {
    for (const probe of probes) {
      assert(
        probeBytes(candidate, probe) === probeBytes(utf8WritePortable, probe),
        "the native UTF-8 writer agrees with the portable one",
      );
    }
  }
  installed = candidate ?? utf8WritePortable;
}
