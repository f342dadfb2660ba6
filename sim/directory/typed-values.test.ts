/**
 * Goal: the random workload's typed values (workload.ts `typedValueKinds`) really define
 * namespaced attributes of every syntax, single- and multi-valued, with legalMeta, write their
 * values with meta, and have nodes define one name with different bodies concurrently (a
 * duplicate waits in quarantine while values written under it stay); and the runs pass every
 * oracle.
 * Method: seeds of scenarios/typed-values-under-chaos.scn; the final directory of the first
 * node that holds a root is read for definitions, values and meta of namespaced attributes.
 */
import { describe, expect, it } from "vitest";
import { presentValues } from "../../core/store/record";
import { loadScenario } from "../scenario/battery";
import { runScenario } from "../scenario/run-scenario";
import type { DirectoryWorld } from "./directory-world";

describe("the workload's typed values", () => {
  it("defines attributes of every syntax and writes their values with meta", () => {
    const s = loadScenario("scenarios/typed-values-under-chaos.scn");
    const seen = new Map<string, number>();
    const note = (what: string): void => void seen.set(what, (seen.get(what) ?? 0) + 1);
    for (let seed = 1; seed <= 6; seed++) {
      let world: DirectoryWorld | null = null;
      const report = runScenario(s, { seed, afterEvent: (dw) => void (world = dw) });
      expect(report.violations).toEqual([]);
      const node = [...(world as DirectoryWorld | null)!.nodes().values()].find((n) => n.dir.landmarks() !== null);
      const schema = node!.dir.schema;
      for (const q of schema.quarantined) if (q.reason.startsWith("duplicate name")) note("duplicate");
      for (const a of schema.attributes) {
        if (!a.name.includes("-")) continue;
        note(`syntax ${a.syntax}`);
        note(a.singleValued ? "single" : "multi");
        if (a.legalMeta.length > 0) note("legalMeta");
      }
      for (const r of node!.dir.store.all()) {
        if (r.existence.stage !== "alive") continue;
        for (const name of r.attrs.keys()) {
          if (!name.includes("-")) continue;
          const values = presentValues(r, name);
          const def = schema.attribute(name);
          if (def !== undefined && values.length > 0) note(`value ${def.syntax}`);
          if (values.length > 1) note("several values");
          if (values.some((v) => v.meta !== null)) note("meta");
        }
      }
    }
    const syntaxes = ["string", "boolean", "integer", "timestamp", "reference", "endpoint", "publicKey"];
    for (const what of ["duplicate", "single", "multi", "legalMeta", "several values", "meta", ...syntaxes.map((s) => `syntax ${s}`)]) {
      expect(seen.get(what) ?? 0, what).toBeGreaterThan(0);
    }
    // Values of most syntaxes (which attributes reach a surface varies by seed).
    expect(syntaxes.filter((s) => (seen.get(`value ${s}`) ?? 0) > 0).length).toBeGreaterThanOrEqual(5);
  });
});
