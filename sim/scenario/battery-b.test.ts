/**
 * Goal: the value, rollback and purge-horizon scenarios hold on every battery seed:
 * concurrent member adds and removes merge per value, a rolled-back node detects it, refuses
 * writes with rollback-quarantine and heals after a completed pull without losing a write
 * acknowledged after the restore, and a partition longer than maxTimeApart is refused on both
 * sides while the majority converges without resurrecting purged tombstones; and the first
 * half of the purge-horizon residue seeds (battery-b2 runs the second).
 * Method: each scenario file runs on seeds 1..200 (SIM_SEEDS overrides), every seed twice to
 * prove bit-for-bit replay (trace hashes equal; the first divergent event is named if not).
 */
import { describe } from "vitest";
import { batteryPlan, batteryTests } from "./battery";

describe("scenario battery B: values, rollback, purge horizon", () => batteryTests(batteryPlan.b));
