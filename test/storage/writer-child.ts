/**
 * Child process for the kill -9 durability test. Opens the store in argv[2], resumes after the
 * highest batch number already stored, and commits batches in a loop; each batch n puts three
 * keys k/<n>/a, k/<n>/b, k/<n>/c with value n. It prints "ack <n>" only after commit(n)
 * returned, so every printed ack is a promise that batch n is durable. The parent SIGKILLs it
 * at a random moment. A small rotation threshold keeps rotations and background rebuilds in
 * flight, so kills also land in the middle of a rebuild or an erase. It prints "snapshot <g>"
 * when a background rebuild has completed snapshot generation g.
 */
import { DurableStore } from "../../adapters/storage/durable-store";

const batchesMax = 1_000_000;

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  const rotateBytes = Number(process.argv[3] ?? 16 * 1024);
  if (dataDir === undefined) throw new Error("usage: writer-child <dataDir> [rotateBytes]");
  const { store, entries } = await DurableStore.open(dataDir, { rotateBytes });
  let highest = 0;
  for (const key of entries.keys()) highest = Math.max(highest, Number(key.split("/")[1]));
  process.stdout.write(`ready ${highest}\n`);
  // Reported as background rebuilds complete, for the parent's last cycle.
  let snapshotSeen = store.view().snapshotGeneration;
  for (let n = highest + 1; n <= highest + batchesMax; n++) {
    const value = String(n);
    const name = `k/${String(n).padStart(9, "0")}`;
    const puts: Array<[string, string]> = ["a", "b", "c"].map((part) => [`${name}/${part}`, value]);
    store.commit([{ puts, dels: [] }]);
    process.stdout.write(`ack ${n}\n`);
    const snapshot = store.view().snapshotGeneration;
    if (snapshot > snapshotSeen) process.stdout.write(`snapshot ${(snapshotSeen = snapshot)}\n`);
    // Let the background rebuild and stdout make progress between commits.
    if (n % 4 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`writer-child failed: ${String(error)}\n`);
  process.exit(1);
});
