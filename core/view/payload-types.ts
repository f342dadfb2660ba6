import type { Guid } from "../guid";
import type { Stage } from "../store/record";

/** The wire shapes of SPEC "Resources and their fields", as the core renders them. */
export interface StampPayload {
  readonly version: number;
  readonly at: string;
  readonly origin: Guid;
  readonly cert: { readonly invocation: Guid; readonly usn: number };
  readonly localUsn: number;
}

export interface ValuePayload {
  readonly value: string;
  readonly meta?: Record<string, string[]>;
  readonly refPath?: string | null;
  readonly refState?: Stage | "missing";
  readonly stamp: StampPayload;
}

export interface AttributePayload {
  readonly name: string;
  readonly values: ValuePayload[];
  readonly absent?: Array<{ key: string | null; stamp: StampPayload }>;
}

export interface ObjectPayload {
  readonly id: Guid;
  readonly parent: Guid | null;
  readonly name: string;
  readonly class: string;
  readonly classId: Guid;
  readonly system: boolean;
  readonly facets: string[];
  readonly dn: string;
  readonly path: string;
  readonly hasChildren: boolean;
  readonly stage: Stage;
  readonly effectiveStage: Stage;
  readonly ghost: boolean;
  readonly existence: StampPayload;
  readonly placement: StampPayload;
  readonly usnChanged: number;
  readonly referencedBy: Array<{ id: Guid; path: string; attribute: string }>;
  readonly attributes: AttributePayload[];
  readonly conflicted?: boolean;
  readonly orphaned?: boolean;
  readonly cycleBroken?: boolean;
  readonly effectiveName?: string;
  readonly effectiveParent?: Guid | null;
}

export interface ChildSummary {
  readonly id: Guid;
  readonly name: string;
  readonly class: string;
  readonly system: boolean;
  readonly hasChildren: boolean;
  readonly ghost: boolean;
  readonly conflicted: boolean;
  readonly orphaned: boolean;
  readonly cycleBroken: boolean;
}

export interface MorgueRecord {
  readonly id: Guid;
  readonly name: string;
  readonly class: string;
  readonly stage: Stage;
  readonly effectiveStage: Stage;
  readonly at: string;
  readonly lastPath: string;
}
