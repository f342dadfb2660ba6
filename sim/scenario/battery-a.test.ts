/**
 * Goal: the naming and placement scenarios hold on every battery seed: caseless name
 * conflicts render CNF names (earliest claim keeps the name), orphans show under
 * /LostAndFound, two- and three-member move cycles break at the latest placement claim, and
 * attribute last-writer-wins follows stamps under clock skew; with all seven oracles. Also
 * objects larger than a pull batch travel in parts under chaos (seeds 1..50).
 * Method: each scenario file runs on seeds 1..200 (SIM_SEEDS overrides), every seed twice to
 * prove bit-for-bit replay (trace hashes equal; the first divergent event is named if not).
 */
import { describe } from "vitest";
import { batteryPlan, batteryTests } from "./battery";

describe("scenario battery A: names and placement", () => batteryTests(batteryPlan.a));
