import type { Guid } from "../guid";
import type { Existence, Placement, ValueAtom } from "../store/record";

/**
 * The replicated form of one object: the atoms a source sends because the destination may
 * lack them. Any part may be missing (propagation dampening filtered it out).
 */
export interface ObjectDelta {
  readonly id: Guid;
  readonly existence: Existence | null;
  readonly placement: Placement | null;
  readonly attrs: ReadonlyArray<readonly [string, readonly ValueAtom[]]>;
}
