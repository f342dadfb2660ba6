/**
 * Goal: namespaced schema holds under chaos on every battery seed: namespaced facets, classes
 * and extensions are defined, instantiated, attached, written and deleted concurrently (schema
 * life) with every node compiling the same schema; and namespaced attributes of every syntax
 * are defined (one name with different bodies on different nodes) and their values written
 * with meta.
 * Method: as battery-c.test.ts (these two files were its longest half; split so the suite's two
 * workers share them): each file runs on seeds 1..200 (SIM_SEEDS overrides), every seed twice
 * to prove bit-for-bit replay (trace hashes equal; the first divergent event is named if not).
 */
import { describe } from "vitest";
import { batteryPlan, batteryTests } from "./battery";

describe("scenario battery D: namespaced schema under chaos", () => batteryTests(batteryPlan.d));
