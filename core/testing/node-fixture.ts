import { assert } from "../assert";
import type { ErrorCode, Result } from "../errors";
import type { Guid } from "../guid";
import { DirectoryNode } from "../node/directory-node";
import type { AttributePayload, ObjectPayload } from "../view/payload-types";
import { seededRandom } from "./seeded-random";

/**
 * Shared fixtures for the core's behaviour tests (imported by *.test.ts only): a fresh domain
 * on one DirectoryNode with its landmarks looked up by path (there are no well-known GUIDs),
 * and small helpers that unwrap Results and read payloads the way a client would.
 */

/** 2025-01-01T00:00:00Z; tests move time forward from here explicitly. */
export const t0Ms = 1_735_689_600_000;
export const secondMs = 1000;
export const dayMs = 24 * 3600 * secondMs;

export interface DomainFixture {
  readonly node: DirectoryNode;
  readonly root: Guid;
  readonly configuration: Guid;
  readonly schema: Guid;
  readonly lostAndFound: Guid;
  readonly domainControllers: Guid;
}

export function freshDomain(seed = 1, domainName = "example.test"): DomainFixture {
  const node = DirectoryNode.createDomain(seededRandom(seed), domainName, t0Ms);
  const idAt = (path: string): Guid => unwrap(node.resolvePath(path, t0Ms)).id;
  return {
    node,
    root: unwrap(node.root(t0Ms)).id,
    configuration: idAt("/Configuration"),
    schema: idAt("/Configuration/Schema"),
    lostAndFound: idAt("/LostAndFound"),
    domainControllers: idAt("/Domain Controllers"),
  };
}

/** The value of an ok Result; a refusal here is a broken test precondition. */
export function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected ok, got ${result.code}: ${result.message}`);
  return result.value;
}

/** The refusal code of a Result, or "ok" (so tests can compare against the expected code). */
export function outcome<T>(result: Result<T>): ErrorCode | "ok" {
  return result.ok ? "ok" : result.code;
}

/** The message of a refusal; a success here is a broken test precondition. */
export function refusalMessage<T>(result: Result<T>): string {
  assert(!result.ok, "expected a refusal");
  return result.message;
}

export function attribute(payload: ObjectPayload, name: string): AttributePayload | undefined {
  return payload.attributes.find((a) => a.name === name);
}

/** The present values of an attribute as plain strings (canonical order). */
export function valuesOf(payload: ObjectPayload, name: string): string[] {
  return attribute(payload, name)?.values.map((v) => v.value) ?? [];
}

/** Creates an object and returns its id; refusals fail the test as broken preconditions. */
export function make(
  node: DirectoryNode,
  parent: Guid,
  name: string,
  className = "organizationalUnit",
  nowMs = t0Ms,
  attributes: Record<string, readonly unknown[]> = {},
): Guid {
  return unwrap(node.create({ parent, name, className, attributes }, nowMs)).id;
}

/**
 * A domain with a stored parent cycle, as concurrent moves leave one: A under B locally, then
 * B under A as a later replicated atom would put it (written straight into the store, as a
 * merge would). The view breaks the cycle; the stored atoms keep it.
 */
export function withStoredCycle(): DomainFixture & { a: Guid; b: Guid } {
  const d = freshDomain();
  const n = d.node;
  const a = make(n, d.root, "A");
  const b = make(n, d.root, "B");
  unwrap(n.move(a, { parent: b }, t0Ms + secondMs));
  const rb = n.dir.get(b)!;
  const usn = n.dir.allocateUsn();
  n.dir.write({
    ...rb,
    placement: {
      ...rb.placement,
      parent: a,
      stamp: n.dir.stamp(rb.placement.stamp, t0Ms + 2 * secondMs, usn),
    },
    usnChanged: usn,
  });
  return { ...d, a, b };
}
