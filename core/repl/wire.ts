/**
 * The wire form of replication messages (version 1): what the `dir/drs` fabric service will
 * carry between machines, and what the simulator's network can carry too (`wire` in a
 * scenario's network line), so that every message a run exchanges is proven to survive
 * serialisation with nothing shared between sender and receiver.
 *
 * The form is JSON. Records' parts reuse the record codec's tuples (store/record-codec.ts), so
 * a delta on the wire reads like the records on disk. A vector travels flat: every entry once,
 * the sender's own current entry in place of its stored one, sorted by invocation, entries
 * reduced to `usn`, `node` and `epoch` (`flatVector`); the receiver gets it back as a travelling vector
 * whose entries include the own one.
 *
 * `fromWire` trusts its input's shape: text from this module's own encoder, or a value a
 * boundary decoder (io-ts, in the fabric adapter) has already checked against `WireMessage`.
 * A shape it does not expect fails an assertion, a bug, never a peer's fault.
 */
import { assert } from "../assert";
import type { ObjectDelta } from "../merge/object-delta";
import type { ValueAtom } from "../store/record";
import {
  PartDecoder,
  encodeAtom,
  encodeExistence,
  encodePlacement,
  type AtomTuple,
  type ExistenceTuple,
  type PlacementTuple,
} from "../store/record-codec";
import type { AtomCursor, ReplicationMessage, TravellingVector, VectorEntry } from "./messages";
import { flatVector } from "./vector-parts";

export const wireVersion = 1;

/** invocation, usn, its node as an index into the vector's node table `n`, and its epoch */
export type WireVectorEntry = [string, number, number, number];

/**
 * Every entry once, sorted by invocation; `o` names the sender's own invocation among them.
 * Nodes are named once, in `n` (in order of first use), and entries point into it: a node
 * has an invocation per boot, so the table saves one GUID of two per entry (~40 % of a
 * vector, which is most of a pull request).
 */
export interface WireVector {
  n: string[];
  e: WireVectorEntry[];
  o: string;
}

/** id, existence, placement, attributes (each a name and its atoms) */
export type WireDelta = [string, ExistenceTuple | null, PlacementTuple | null, Array<[string, AtomTuple[]]>];

export interface WireHint {
  v: 1;
  t: "hint";
  /** sender */
  f: string;
}

export interface WireRefusal {
  v: 1;
  t: "refused";
  r: number;
  /** sender (the source refusing) */
  f: string;
  /** why */
  y: string;
}

/** An object a batch stopped inside: its source USN, and where its next part begins (attribute, key prefix). */
export type WireCursor = [number, string, string];

export interface WirePull {
  v: 1;
  t: "pull";
  /** request id */
  r: number;
  f: string;
  /** watermark: invocation, usn, propUsn, and inside a cycle maybe the object it stopped inside */
  w: [string, number, number] | [string, number, number, WireCursor] | null;
  /** the asker's vector */
  u: WireVector;
  /** objects at most per batch */
  m: number;
}

export interface WireBatch {
  v: 1;
  t: "batch";
  r: number;
  f: string;
  /** the source's invocation */
  i: string;
  /** continued: 1 when enumerated after the request's watermark */
  c: 0 | 1;
  d: WireDelta[];
  /** high USN: the next watermark */
  h: number;
  /** more batches follow */
  x: 0 | 1;
  /** the source's vector, on the last batch */
  u: WireVector | null;
  /** only when the batch ended inside an object */
  p?: WireCursor;
}

export type WireMessage = WireHint | WirePull | WireBatch | WireRefusal;

/** The message as text (UTF-8 on a real link). */
export function encodeMessage(msg: ReplicationMessage): string {
  return JSON.stringify(toWire(msg));
}

/** A message from this module's own text: its shape is trusted (see the file comment). */
export function decodeMessage(text: string): ReplicationMessage {
  return fromWire(JSON.parse(text) as WireMessage);
}

export function toWire(msg: ReplicationMessage): WireMessage {
  switch (msg.type) {
    case "hint":
      return { v: wireVersion, t: "hint", f: msg.from };
    case "refused":
      return { v: wireVersion, t: "refused", r: msg.requestId, f: msg.from, y: msg.reason };
    case "pull": {
      const w = msg.watermark;
      return {
        v: wireVersion,
        t: "pull",
        r: msg.requestId,
        f: msg.from,
        w:
          w === null
            ? null
            : w.within === undefined
              ? [w.invocation, w.usn, w.propUsn]
              : [w.invocation, w.usn, w.propUsn, cursorToWire(w.within)],
        u: vectorToWire(msg.utd),
        m: msg.objectsMax,
      };
    }
    case "batch":
      return {
        v: wireVersion,
        t: "batch",
        r: msg.requestId,
        f: msg.from,
        i: msg.invocation,
        c: msg.continued ? 1 : 0,
        d: msg.deltas.map(deltaToWire),
        h: msg.highUsn,
        x: msg.more ? 1 : 0,
        u: msg.utd === null ? null : vectorToWire(msg.utd),
        ...(msg.within === undefined ? {} : { p: cursorToWire(msg.within) }),
      };
  }
}

export function fromWire(w: WireMessage): ReplicationMessage {
  assert(w.v === wireVersion, "wire version");
  switch (w.t) {
    case "hint":
      return { type: "hint", from: w.f };
    case "refused":
      return { type: "refused", requestId: w.r, from: w.f, reason: w.y };
    case "pull":
      return {
        type: "pull",
        requestId: w.r,
        from: w.f,
        watermark:
          w.w === null
            ? null
            : {
                invocation: w.w[0],
                usn: w.w[1],
                propUsn: w.w[2],
                ...(w.w.length === 4 ? { within: cursorFromWire(w.w[3]) } : {}),
              },
        utd: vectorFromWire(w.u),
        objectsMax: w.m,
      };
    case "batch":
      return {
        type: "batch",
        requestId: w.r,
        from: w.f,
        invocation: w.i,
        continued: w.c === 1,
        deltas: w.d.map(deltaFromWire),
        highUsn: w.h,
        more: w.x === 1,
        utd: w.u === null ? null : vectorFromWire(w.u),
        ...(w.p === undefined ? {} : { within: cursorFromWire(w.p) }),
      };
  }
}

function cursorToWire(c: AtomCursor): WireCursor {
  return [c.usn, c.next[0], c.next[1]];
}

function cursorFromWire(w: WireCursor): AtomCursor {
  return { usn: w[0], next: [w[1], w[2]] };
}

function vectorToWire(vector: TravellingVector): WireVector {
  const flat = flatVector(vector);
  const n: string[] = [];
  const index = new Map<string, number>();
  const e: WireVectorEntry[] = [];
  for (const inv of Object.keys(flat)) {
    const entry = flat[inv]!;
    let at = index.get(entry.node);
    if (at === undefined) {
      at = n.length;
      n.push(entry.node);
      index.set(entry.node, at);
    }
    e.push([inv, entry.usn, at, entry.epoch]);
  }
  return { n, e, o: vector.own[0] };
}

function vectorFromWire(w: WireVector): TravellingVector {
  const entries: Record<string, VectorEntry> = {};
  for (const [inv, usn, at, epoch] of w.e) {
    assert(entries[inv] === undefined, "one wire vector entry per invocation");
    const node = w.n[at];
    assert(node !== undefined, "a wire vector entry's node is in the node table");
    entries[inv] = { usn, node, epoch };
  }
  const own = entries[w.o];
  assert(own !== undefined, "the wire vector holds its sender's own entry");
  return { entries, own: [w.o, own] };
}

function deltaToWire(d: ObjectDelta): WireDelta {
  return [
    d.id,
    d.existence === null ? null : encodeExistence(d.existence),
    d.placement === null ? null : encodePlacement(d.placement),
    d.attrs.map(([name, atoms]): [string, AtomTuple[]] => [name, atoms.map(encodeAtom)]),
  ];
}

function deltaFromWire(w: WireDelta): ObjectDelta {
  const parts = new PartDecoder();
  const attrs: Array<readonly [string, readonly ValueAtom[]]> = [];
  for (const [name, atoms] of w[3]) {
    const list: ValueAtom[] = [];
    for (const t of atoms) list.push(parts.atom(t));
    attrs.push([name, list]);
  }
  return {
    id: w[0],
    existence: w[1] === null ? null : parts.existence(w[1]),
    placement: w[2] === null ? null : parts.placement(w[2]),
    attrs,
  };
}
