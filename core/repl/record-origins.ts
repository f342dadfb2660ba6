import type { ObjectRecord } from "../store/record";
import type { Stamp } from "../store/stamp";
import type { UtdVector } from "./messages";

/**
 * Per record: each originating invocation its atoms carry certificates of, with the highest
 * certificate USN among them, and the highest local USN of any atom. A handful of entries
 * (most records were written under one or two invocations).
 */
interface Origins {
  readonly invocations: readonly string[];
  readonly certUsns: readonly number[];
  readonly localUsnMax: number;
}

/**
 * Records are immutable (a change stores a new record), so the summary lives as long as the
 * record does. A source answers the same records to every partner, and after a watermark
 * reset a partner walks the whole directory page by page: in a standard seed ~85 % of the
 * enumerated records send nothing, and proving that atom by atom was the enumeration's cost.
 */
const originsMemo = new WeakMap<ObjectRecord, Origins>();

function originsOf(record: ObjectRecord): Origins {
  const memo = originsMemo.get(record);
  if (memo !== undefined) return memo;
  const invocations: string[] = [];
  const certUsns: number[] = [];
  let localUsnMax = 0;
  const note = (stamp: Stamp): void => {
    if (stamp.localUsn > localUsnMax) localUsnMax = stamp.localUsn;
    const at = invocations.indexOf(stamp.cert.invocation);
    if (at < 0) {
      invocations.push(stamp.cert.invocation);
      certUsns.push(stamp.cert.usn);
    } else if (stamp.cert.usn > certUsns[at]!) {
      certUsns[at] = stamp.cert.usn;
    }
  };
  note(record.existence.stamp);
  note(record.placement.stamp);
  for (const atoms of record.attrs.values()) for (const atom of atoms.values()) note(atom.stamp);
  const origins: Origins = { invocations, certUsns, localUsnMax };
  originsMemo.set(record, origins);
  return origins;
}

/**
 * True when no atom of `record` can be wanted by a destination at `fromUsn` holding `utd`:
 * every atom is at or below `fromUsn`, or its certificate is covered by the vector. A sound
 * shortcut only (false proves nothing): the caller then filters atom by atom.
 */
export function sendsNothing(record: ObjectRecord, fromUsn: number, utd: UtdVector): boolean {
  const origins = originsOf(record);
  if (origins.localUsnMax <= fromUsn) return true;
  const { invocations, certUsns } = origins;
  for (let i = 0; i < invocations.length; i++) {
    const seen = utd[invocations[i]!];
    if (seen === undefined || certUsns[i]! > seen.usn) return false;
  }
  return true;
}
