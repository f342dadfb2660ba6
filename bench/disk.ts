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

/** Appends + fdatasyncs per second over `durationMs` (a probe on the benches' file system). */
export function fsyncRate(durationMs: number): {
  perSecond: number;
  syncs: number;
  seconds: number;
} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-disk-"));
  const fd = fs.openSync(path.join(dir, "probe.log"), "a");
  const record = Buffer.alloc(300, 0x61);
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
  return { perSecond: syncs / seconds, syncs, seconds };
}

export function benchDisk(options: { readonly quick: boolean }): Figure[] {
  const probe = fsyncRate(options.quick ? 1_000 : 5_000);
  return [
    {
      name: "disk: 300-byte append + fdatasync",
      value: probe.perSecond,
      unit: "/s",
      target: "",
      met: null,
      detail: `${probe.syncs} syncs in ${probe.seconds.toFixed(1)} s on ${os.tmpdir()}`,
    },
  ];
}

if (isMain(import.meta.url)) printFigures(benchDisk({ quick: quickFlag(process.argv) }));
