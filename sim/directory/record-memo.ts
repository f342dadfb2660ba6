import type { ObjectRecord } from "../../core/store/record";
import { decodeRecord } from "../../core/store/record-codec";

/**
 * A memo of decoded object records by their persisted text, for boots: the simulator restarts
 * nodes constantly and each boot decoded every record it had decoded at the previous one
 * (decoding was the largest part of the simulator's boots). Records are immutable and the
 * text determines the record, so a hit is exactly what decodeRecord would return. Bounded:
 * past `max` entries the memo starts over (a pure cache; no effect on what a run does).
 */
export class RecordMemo {
  private readonly byText = new Map<string, ObjectRecord>();

  constructor(private readonly max = 50_000) {}

  readonly decode = (text: string): ObjectRecord => {
    let record = this.byText.get(text);
    if (record === undefined) {
      if (this.byText.size >= this.max) this.byText.clear();
      record = decodeRecord(text);
      this.byText.set(text, record);
    }
    return record;
  };
}
