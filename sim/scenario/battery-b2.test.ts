/**
 * Goal: the second half of battery B's seeds of scenarios/gc-residue-under-crashes.scn (absence
 * residue dropped past the purge horizon under crashes, GC every 2 s): it passes and replays.
 * Method: as battery-b.test.ts, which runs the first half; the halves are two files so the
 * suite's two workers can share the battery's longest scenario.
 */
import { describe } from "vitest";
import { batteryPlan, batteryTests } from "./battery";

describe("scenario battery B, second half of the purge-horizon residue seeds", () => batteryTests(batteryPlan.b2));
