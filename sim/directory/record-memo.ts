import type { ObjectRecord } from "../../core/store/record";
import { decodeRecord } from "../../core/store/record-codec";

/**
 * A memo of decoded object records for boots: the simulator restarts nodes constantly and each
 * boot decoded every record it had decoded at the previous one (decoding was the largest part
 * of the simulator's boots). Entries are found by store key and hit only when the persisted
 * text is the same (a length check and a memory compare, cheaper than hashing the text);
 * records are immutable and the text determines the record, so a hit is exactly what
 * decodeRecord would return. Bounded: past `max` keys the memo starts over (a pure cache; no
 * effect on what a run does).
 */
export class RecordMemo {
  private readonly byKey = new Map<string, { readonly text: string; readonly record: ObjectRecord }>();

  constructor(private readonly max = 50_000) {}

  readonly decode = (text: string, key: string): ObjectRecord => {
    const held = this.byKey.get(key);
    if (held !== undefined && held.text === text) return held.record;
    if (held === undefined && this.byKey.size >= this.max) this.byKey.clear();
    const record = decodeRecord(text);
    this.byKey.set(key, { text, record });
    return record;
  };
}
