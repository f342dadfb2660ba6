import { presetScenario } from "/work/main/sim/scenario/swarm";
import { runScenario } from "/work/main/sim/scenario/run-scenario";
import { DirectoryNode } from "/work/main/core/node/directory-node";
const s = presetScenario({ preset: "chaos", nodes: 5, rate: 20, safetyMs: 60 * 60_000 });
let boots = 0; const agg = new Map<string, number>();
const ob = DirectoryNode.boot; (DirectoryNode as any).boot = function (...a: any[]) { boots++; if (boots > 500) for (const k of (a[1] as Map<string,string>).keys()) { const p = k.split("/").slice(0, 2).join("/").replace(/[0-9a-f-]{36}/, "*"); agg.set(p, (agg.get(p) ?? 0) + 1); } return ob.apply(this, a as any); };
runScenario({ ...s, maxEvents: 1e8 }, { seed: 1 });
console.log([...agg].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, v]) => `${k}=${v}`).join(" "));
