import { presetScenario } from "/work/main/sim/scenario/swarm";
import { runScenario } from "/work/main/sim/scenario/run-scenario";
const min = Number(process.argv[2] ?? 30);
const s = presetScenario({ preset: "chaos", nodes: 5, rate: 20, safetyMs: min * 60_000 });
const c0 = process.cpuUsage();
const r = runScenario({ ...s, maxEvents: 1e8 }, { seed: 1 });
const c = process.cpuUsage(c0);
console.log(`${min} min: events ${r.events} cpu ${((c.user + c.system) / 1000).toFixed(0)} ms -> ${(r.virtualMs / ((c.user + c.system) / 1000)).toFixed(0)}x per CPU`);
