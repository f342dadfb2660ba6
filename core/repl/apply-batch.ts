import type { Directory } from "../directory";
import { mergeRecord } from "../merge/merge-record";
import type { PullBatch } from "./messages";

export interface ApplyOutcome {
  readonly applied: number;
  readonly refused: number;
  readonly discarded: number;
}

const journalLinesPerBatchMax = 20;

/**
 * The destination side: merge every delta of a batch, each changed object under a fresh local
 * USN. Discarded concurrent input and refused records go to the journal (bounded per batch).
 */
export function applyBatch(dir: Directory, batch: PullBatch, nowMs: number): ApplyOutcome {
  let applied = 0;
  let refused = 0;
  const lines: Array<readonly [kind: "record-refused" | "merge-discarded", line: string]> = [];
  for (const delta of batch.deltas) {
    const local = dir.get(delta.id);
    const usn = dir.usn + 1;
    const outcome = mergeRecord(local, delta, usn);
    const kind = outcome.record === null ? "record-refused" : "merge-discarded";
    for (const line of outcome.discarded) lines.push([kind, line]);
    if (outcome.record === null) {
      refused += 1;
      continue;
    }
    if (!outcome.changed) continue;
    dir.allocateUsn();
    dir.write(outcome.record);
    applied += 1;
  }
  dir.refreshSchema();
  const from = `from ${batch.from}`;
  for (const [kind, line] of lines.slice(0, journalLinesPerBatchMax)) {
    dir.journal.add(nowMs, kind, `${line} (${from})`);
  }
  if (lines.length > journalLinesPerBatchMax) {
    // Filed under the kind most of the lines left out hold (journal audit: a batch of refused
    // records ended in a "merge-discarded" count).
    const rest = lines.slice(journalLinesPerBatchMax);
    const refused = rest.filter(([kind]) => kind === "record-refused").length;
    const kind = refused * 2 > rest.length ? "record-refused" : "merge-discarded";
    dir.journal.add(nowMs, kind, `${rest.length} more lines (${from})`);
  }
  return { applied, refused, discarded: lines.length - refused };
}
