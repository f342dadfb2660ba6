/**
 * Goal: the random workload's schema life (workload.ts `schemaLifeKinds`) really exercises
 * what it names on a live run under chaos: namespaced facets, classes and extensions get
 * defined, namespaced classes instantiated, instances seen as ghosts on nodes their class has
 * not reached (or lost to a concurrent delete), facets attached, namespaced attributes
 * written, definitions deleted and deleted ones restored; and the runs still pass every oracle.
 * Method: seeds of scenarios/schema-life-under-chaos.scn, watching every node after each
 * event for ghosts and reading the final directories of the first node that holds a root.
 */
import { describe, expect, it } from "vitest";
import { isGhost } from "../../core/ops/gates";
import { presentValues } from "../../core/store/record";
import { loadScenario } from "../scenario/battery";
import { runScenario } from "../scenario/run-scenario";
import type { DirectoryWorld } from "./directory-world";

const definitionClasses = ["attributeDefinition", "facetDefinition", "classDefinition", "classExtension"];

describe("the workload's schema life", () => {
  it("defines, instantiates, attaches, writes and deletes namespaced definitions, ghosts included", () => {
    const s = loadScenario("scenarios/schema-life-under-chaos.scn");
    const seen = new Map<string, number>();
    const note = (what: string): void => void seen.set(what, (seen.get(what) ?? 0) + 1);
    for (let seed = 1; seed <= 3; seed++) {
      let world: DirectoryWorld | null = null;
      const report = runScenario(s, {
        seed,
        afterEvent(dw) {
          world = dw;
          for (const node of dw.nodes().values()) {
            for (const r of node.dir.store.all()) {
              if (r.existence.stage === "alive" && r.existence.className.includes("-") && isGhost(node.dir, r)) {
                note("ghost");
                return;
              }
            }
          }
        },
      });
      expect(report.violations).toEqual([]);
      const node = [...(world as DirectoryWorld | null)!.nodes().values()].find((n) => n.dir.landmarks() !== null);
      for (const r of node!.dir.store.all()) {
        const cls = r.existence.className;
        const named = r.placement.name ?? "";
        if (definitionClasses.includes(cls) && r.existence.stage !== "alive") note(`deleted ${cls}`);
        if (r.existence.stage !== "alive") continue;
        if (definitionClasses.includes(cls) && /^(attr|facet|class|ext)\d$/u.test(named)) note(cls);
        // Alive at a third existence stamp: created, deleted, restored (`redefine`).
        if (definitionClasses.includes(cls) && r.existence.stamp.version >= 3) note("redefined");
        if (cls.includes("-")) note("instance");
        if (presentValues(r, "attachedFacets").length > 0) note("attached");
        for (const name of r.attrs.keys()) if (name.includes("-") && presentValues(r, name).length > 0) note("custom");
      }
    }
    for (const what of [
      "attributeDefinition",
      "facetDefinition",
      "classDefinition",
      "classExtension",
      "instance",
      "ghost",
      "attached",
      "custom",
      "redefined",
    ]) {
      expect(seen.get(what) ?? 0, what).toBeGreaterThan(0);
    }
    // Deletes of definitions: at least one kind of definition was deleted.
    expect(definitionClasses.some((c) => (seen.get(`deleted ${c}`) ?? 0) > 0)).toBe(true);
  });
});
