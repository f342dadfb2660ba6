/**
 * Goal: acknowledged means durable, and a batch is all or nothing, even under kill -9 at any
 * moment (mid-append, mid-fdatasync, mid-rotation, mid-rebuild, mid-erase).
 * Method: a child process (writer-child.ts) commits 3-key batches and prints "ack n" after each
 * commit returns; the parent SIGKILLs it after a random number of acks, reopens the store and
 * checks that every acked batch is present, every stored batch is whole, and stored batches
 * form the prefix 1..max. The seed is printed on failure; cycles and waits are bounded.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DurableStore } from "../../adapters/storage/durable-store";

const cycles = 12;
const repoRoot = path.resolve(import.meta.dirname, "../..");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-kill-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** A small deterministic generator so a failing run can be replayed from its seed. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Runs the child until it printed `killAfterAcks` acks (and, with `untilSnapshot`, reported a
 * completed rebuild), SIGKILLs it, returns the acks seen.
 */
function runAndKill(killAfterAcks: number, untilSnapshot = false): Promise<{ ready: number; acked: number[] }> {
  return new Promise((resolve, reject) => {
    const args = ["--import", "tsx", "test/storage/writer-child.ts", dataDir];
    const stdio: ["ignore", "pipe", "pipe"] = ["ignore", "pipe", "pipe"];
    const child = spawn(process.execPath, args, { cwd: repoRoot, stdio });
    const acked: number[] = [];
    let ready = -1;
    let snapshot = false;
    let buffered = "";
    let stderr = "";
    let killed = false;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        const [word, n] = line.split(" ");
        if (word === "ready") ready = Number(n);
        if (word === "ack") acked.push(Number(n));
        if (word === "snapshot") snapshot = true;
      }
      // Bounded: the child stops after batchesMax batches and exits (a rejection here).
      if (!killed && ready >= 0 && acked.length >= killAfterAcks && (snapshot || !untilSnapshot)) {
        killed = true;
        child.kill("SIGKILL");
      }
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") resolve({ ready, acked });
      else reject(new Error(`child exited ${code} before the kill: ${stderr}`));
    });
  });
}

describe("kill -9 durability", () => {
  it(`keeps every acked batch whole across ${cycles} SIGKILLs`, async () => {
    const seed = Number(process.env["CANOPY_KILL_SEED"] ?? Date.now() % 2 ** 31);
    const random = lcg(seed);
    let ackedMax = 0;
    let rebuiltSnapshots = 0;
    for (let cycle = 0; cycle < cycles; cycle++) {
      const killAfter = Math.floor(random() * 600);
      // The last cycle waits for a completed rebuild if no boot found one yet: on a loaded
      // machine every kill could land before the first background rebuild finished, and a
      // kill-only run would not cover a store that boots from a rebuilt snapshot.
      const untilSnapshot = cycle === cycles - 1 && rebuiltSnapshots === 0;
      const { ready, acked } = await runAndKill(killAfter, untilSnapshot);
      const where = `seed ${seed} cycle ${cycle}`;
      expect(ready, `${where}: resumes at or after the acks`).toBeGreaterThanOrEqual(ackedMax);
      ackedMax = Math.max(ackedMax, ...acked);
      const { store, entries, boot } = await DurableStore.open(dataDir);
      rebuiltSnapshots = Math.max(rebuiltSnapshots, boot.snapshotGeneration);
      if (process.env["CANOPY_KILL_DEBUG"]) console.log(cycle, killAfter, acked.length, boot);
      const batches = new Map<number, string[]>();
      for (const [key, value] of entries) {
        const [, n, part] = key.split("/");
        expect(value, `seed ${seed}: value of ${key}`).toBe(String(Number(n)));
        batches.set(Number(n), [...(batches.get(Number(n)) ?? []), part ?? ""]);
      }
      for (const [n, parts] of batches) {
        expect(parts.sort(), `${where}: batch ${n} is whole`).toEqual(["a", "b", "c"]);
      }
      const stored = batches.size;
      expect(stored, `${where}: every acked batch survives`).toBeGreaterThanOrEqual(ackedMax);
      expect(Math.max(0, ...batches.keys()), `${where}: batches form a prefix`).toBe(stored);
      await store.close();
    }
    expect(ackedMax).toBeGreaterThan(0);
    expect(rebuiltSnapshots, "a boot found a rebuilt snapshot").toBeGreaterThan(0);
  });
});
