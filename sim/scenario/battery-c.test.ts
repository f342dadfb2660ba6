/**
 * Goal: the schema-ordering and split-brain scenarios hold on every battery seed: definitions
 * delivered before their dependencies quarantine (and an instance shows as a ghost) until the
 * dependencies arrive, then compile everywhere; a 3|2 partition with writes on both sides
 * converges after the heal with every acknowledged write kept; tombstones age, harden and
 * purge under chaos with GC running (restores racing with hardening converge); along a line
 * of five nodes a rollback is detected through neighbours and convergence comes within
 * 2 x diameter + 1 rounds. (The namespaced-schema scenarios under chaos are battery D: the
 * two files let the suite's two workers share what was CI's longest file.)
 * Method: each scenario file runs on seeds 1..200 (SIM_SEEDS overrides), every seed twice to
 * prove bit-for-bit replay (trace hashes equal; the first divergent event is named if not).
 */
import { describe } from "vitest";
import { batteryPlan, batteryTests } from "./battery";

describe("scenario battery C: schema order, split brain, topology", () => batteryTests(batteryPlan.c));
