import { presetScenario } from "/work/main/sim/scenario/swarm";
import { runScenario } from "/work/main/sim/scenario/run-scenario";
import { DirectoryNode } from "/work/main/core/node/directory-node";
const s = presetScenario({ preset: "chaos", nodes: 5, rate: 20, safetyMs: 60 * 60_000 });
let boots = 0, entries = 0, ms = 0;
const ob = DirectoryNode.boot; (DirectoryNode as any).boot = function (...a: any[]) { boots++; entries += a[1].size; const t = performance.now(); const r = ob.apply(this, a as any); ms += performance.now() - t; return r; };
const r = runScenario({ ...s, maxEvents: 1e8 }, { seed: 1 });
console.log(`events ${r.events} boots ${boots} entries ${entries} avg ${(entries / boots).toFixed(0)} bootMs ${ms.toFixed(0)}`);
