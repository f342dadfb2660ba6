/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. `bench/throughput.ts --profile
 * DIR`): the functions with the most self time and the most inclusive time (time on the stack,
 * each function counted once per stack), with file and line, as percentages of the samples.
 *
 * Usage: npx tsx bench/profile-summary.ts FILE.cpuprofile [--top N] [--from SECONDS]
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { isMain } from "./figures";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
  readonly children?: readonly number[];
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  /** Microseconds between consecutive samples. */
  readonly timeDeltas?: readonly number[];
}

/**
 * The profile with only the samples taken from `fromSeconds` after its start on: startup,
 * module loading and bench setup stay out of a steady-state summary.
 */
export function fromSecond(profile: Profile, fromSeconds: number): Profile {
  const deltas = profile.timeDeltas ?? [];
  const samples: number[] = [];
  let atUs = 0;
  profile.samples.forEach((id, i) => {
    atUs += deltas[i] ?? 0;
    if (atUs >= fromSeconds * 1e6) samples.push(id);
  });
  return { nodes: profile.nodes, samples };
}

export interface HotSpot {
  readonly where: string;
  readonly selfPercent: number;
  readonly totalPercent: number;
}

function label(node: ProfileNode, root: string): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.startsWith("file://") ? path.relative(root, new URL(url).pathname) : url;
  return `${functionName || "(anonymous)"} ${file || "(native)"}:${lineNumber + 1}`;
}

export function summarise(profile: Profile, root: string): HotSpot[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  // Depth-first with the labels on the stack, so recursion counts once per stack.
  const stack: Array<{ id: number; onStack: ReadonlySet<string> }> = [];
  const rootNode = profile.nodes[0];
  if (rootNode !== undefined) stack.push({ id: rootNode.id, onStack: new Set() });
  const subtreeHits = new Map<number, number>();
  /** Nodes whose function is already on the stack above them (recursion). */
  const recursive = new Set<number>();
  const order: number[] = [];
  for (let guard = 0; stack.length > 0 && guard < profile.nodes.length * 2; guard++) {
    const top = stack.pop();
    if (top === undefined) break;
    order.push(top.id);
    const node = byId.get(top.id);
    if (node === undefined) continue;
    const name = label(node, root);
    const count = hits.get(node.id) ?? 0;
    self.set(name, (self.get(name) ?? 0) + count);
    const onStack = new Set(top.onStack).add(name);
    for (const child of node.children ?? []) stack.push({ id: child, onStack });
    if (top.onStack.has(name)) recursive.add(node.id);
  }
  for (const id of order.reverse()) {
    const node = byId.get(id);
    if (node === undefined) continue;
    let sum = hits.get(id) ?? 0;
    for (const child of node.children ?? []) sum += subtreeHits.get(child) ?? 0;
    subtreeHits.set(id, sum);
    if (!recursive.has(id)) {
      const name = label(node, root);
      total.set(name, (total.get(name) ?? 0) + sum);
    }
  }
  const samples = profile.samples.length || 1;
  return [...total.keys()].map((where) => ({
    where,
    selfPercent: (100 * (self.get(where) ?? 0)) / samples,
    totalPercent: (100 * (total.get(where) ?? 0)) / samples,
  }));
}

export function printHotSpots(file: string, top: number, fromSeconds = 0): void {
  const profile = fromSecond(JSON.parse(fs.readFileSync(file, "utf8")) as Profile, fromSeconds);
  const spots = summarise(profile, process.cwd());
  const ignore = /^\((root|program|idle|garbage collector)\)/;
  console.log(`${file}: ${profile.samples.length} samples from second ${fromSeconds} on`);
  console.log("\nby self time:");
  for (const s of [...spots].sort((a, b) => b.selfPercent - a.selfPercent).slice(0, top)) {
    console.log(`  ${s.selfPercent.toFixed(1).padStart(5)}%  ${s.where}`);
  }
  console.log("\nby inclusive time:");
  const inclusive = spots.filter((s) => !ignore.test(s.where));
  for (const s of inclusive.sort((a, b) => b.totalPercent - a.totalPercent).slice(0, top)) {
    console.log(`  ${s.totalPercent.toFixed(1).padStart(5)}%  ${s.where}`);
  }
}

if (isMain(import.meta.url)) {
  const file = process.argv[2];
  if (file === undefined) throw new Error("usage: profile-summary.ts FILE [--top N] [--from S]");
  const at = process.argv.indexOf("--top");
  const from = process.argv.indexOf("--from");
  const top = at >= 0 ? Number(process.argv[at + 1]) : 25;
  printHotSpots(file, top, from >= 0 ? Number(process.argv[from + 1]) : 0);
}
