/**
 * UTF-8 decoding of a byte range: every key and value of a log or snapshot record, at every
 * replay. The portable way, TextDecoder.decode of a `subarray`, allocates a view per string
 * (in the simulator, where every boot replays the log, those views were 8.5 % of all bytes
 * allocated). A shell may install a native range decoder that reads the range in place
 * (useNativeUtf8Range: Node's Buffer.prototype.utf8Slice), refused unless it agrees with the
 * portable decoder on probes of valid and invalid UTF-8.
 */
import { assert } from "../assert";

/** ignoreBOM: a string may begin with U+FEFF, and it must come back (the default drops it). */
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** The decoding of `bytes[start, end)`: well-formed UTF-8 as is, each bad sequence as U+FFFD. */
export type Utf8RangeDecoder = (bytes: Uint8Array, start: number, end: number) => string;

export function utf8RangePortable(bytes: Uint8Array, start: number, end: number): string {
  return decoder.decode(bytes.subarray(start, end));
}

let installed: Utf8RangeDecoder = utf8RangePortable;

export function decodeUtf8Range(bytes: Uint8Array, start: number, end: number): string {
  return installed(bytes, start, end);
}

/** Probes: ASCII, a leading byte-order mark, 2-4 byte sequences, truncated and invalid bytes. */
const probes: readonly number[][] = [
  [],
  [0x61, 0x62, 0x63],
  [0xef, 0xbb, 0xbf, 0x68, 0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80, 0x78],
  [0x61, 0xe2, 0x82, 0x62, 0xf0, 0x9f, 0x98, 0xff, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0x63],
  [0xe2, 0x82, 0xac, 0xe2, 0x82],
  [0xf4, 0x90, 0x80, 0x80, 0x80, 0xbf, 0xfe],
];

/**
 * Installs `candidate` (null: back to the portable decoder). It must give the portable
 * decoder's result for every probe, whole and from an offset inside a larger buffer.
 */
export function useNativeUtf8Range(candidate: Utf8RangeDecoder | null): void {
  if (candidate !== null) {
    for (const probe of probes) {
      const bytes = Uint8Array.from(probe);
      const padded = Uint8Array.from([0x7a, 0xc3, ...probe, 0xa9, 0x7a]);
      assert(
        candidate(bytes, 0, bytes.length) === utf8RangePortable(bytes, 0, bytes.length) &&
          candidate(padded, 2, 2 + probe.length) === utf8RangePortable(padded, 2, 2 + probe.length),
        "the native UTF-8 range decoder agrees with the portable one",
      );
    }
  }
  installed = candidate ?? utf8RangePortable;
}
