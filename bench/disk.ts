/**
 * The disk's own bound on durable writes: small appends each followed by fdatasync, on the
 * file system the benches put their data directories on (os.tmpdir()). A lone durable write
 * can be no faster than this; group commit is how concurrent writes go beyond it.
 *
 * Usage: npx tsx bench/disk.ts [--quick]
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Figure } from "./figures";
import { isMain, printFigures, quickFlag } from "./figures";

export function benchDisk(options: { readonly quick: boolean }): Figure[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-disk-"));
  const file = path.join(dir, "probe.log");
  const fd = fs.openSync(file, "a");
  const record = Buffer.alloc(300, 0x61);
  const durationMs = options.quick ? 1_000 : 5_000;
  let syncs = 0;
  const started = performance.now();
  try {
    while (performance.now() - started < durationMs) {
      fs.writeSync(fd, record);
      fs.fdatasyncSync(fd);
      syncs += 1;
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const seconds = (performance.now() - started) / 1000;
  return [
    {
      name: "disk: 300-byte append + fdatasync",
      value: syncs / seconds,
      unit: "/s",
      target: "",
      met: null,
      detail: `${syncs} syncs in ${seconds.toFixed(1)} s on ${os.tmpdir()}`,
    },
  ];
}

if (isMain(import.meta.url)) printFigures(benchDisk({ quick: quickFlag(process.argv) }));
