// Goal: the key-value store (core/wal/kv-store.ts) keeps the erasure promise when the power
// is cut at any disk call of a shred's persistence: once the overwriting batch is durable,
// either the erasure debt is on disk or no file holds the plaintext, so a boot always knows
// whether an erase is still owed; and the boot's rotation then pays it.
// Method: the same shred persisted as the sim host and the daemon do it (debt, commit,
// rotation), with a power cut armed before each of its mutating disk calls in turn, over
// several crash streams, torn and not; after each cut the disk is reopened and inspected.
// With the debt raised after the commit (the order before this test), the cut between the two
// left plaintext and no debt (scenarios/regressions/erasure-debt-raised-before-commit.scn).
import { describe, expect, it } from "vitest";
import { KvStore } from "../core/wal/kv-store";
import { Prng } from "./prng";
import { SimFs } from "./sim-fs";

const plaintext = "PLAINTEXT-51c3";
const marker = new TextEncoder().encode(plaintext);

function holdsPlaintext(fs: SimFs): string[] {
  return fs.paths().filter((p) => {
    const bytes = fs.read(p) ?? new Uint8Array(0);
    outer: for (let i = 0; i + marker.length <= bytes.length; i++) {
      for (let j = 0; j < marker.length; j++) if (bytes[i + j] !== marker[j]) continue outer;
      return true;
    }
    return false;
  });
}

/** A disk whose store holds the plaintext in a snapshot and in the active log. */
function diskWithPlaintext(): SimFs {
  const fs = new SimFs();
  const { store } = KvStore.open(fs);
  store.commit([{ puts: [["o/x", `"${plaintext}"`]], dels: [] }]);
  store.rotate();
  store.commit([{ puts: [["o/y", `"${plaintext} again"`]], dels: [] }]);
  return fs;
}

/** The shred's persistence, as the hosts do it: debt first, the overwrite, then the rotation. */
function persistShred(store: KvStore): void {
  store.markErasureDebt();
  store.commit([{ puts: [["o/x", '"shredded"'], ["o/y", '"shredded"']], dels: [] }]);
  store.rotate();
}

describe("KvStore over SimFs: a power cut inside a shred's persistence", () => {
  it("never leaves a durable overwrite with plaintext on disk and no debt", () => {
    let cuts = 0;
    let durableOverwrites = 0;
    for (const tornTail of [false, true]) {
      for (let seed = 1; seed <= 6; seed++) {
        for (let afterWrites = 1; ; afterWrites++) {
          const fs = diskWithPlaintext();
          const { store } = KvStore.open(fs);
          fs.armPowerCut({ afterWrites, tornTail, prng: new Prng(`${seed}/${afterWrites}`) });
          try {
            persistShred(store);
          } catch {
            // The store dies with the power (StorageDeadError), or the cut hid in the rebuild.
          }
          if (fs.powerCut === null) {
            // The whole persistence ran before the cut: the erase is done.
            fs.clearPowerCut();
            expect(holdsPlaintext(fs)).toEqual([]);
            break;
          }
          cuts++;
          fs.clearPowerCut();
          const reopened = KvStore.open(fs);
          const overwritten = reopened.entries.get("o/x") === '"shredded"';
          if (overwritten) durableOverwrites++;
          const debt = reopened.store.view().erasureDebt;
          const where = `cut before ${JSON.stringify(afterWrites)} (torn ${tornTail}, seed ${seed})`;
          if (overwritten && debt === 0) expect(holdsPlaintext(fs), where).toEqual([]);
          // The boot pays what is owed (the daemon and the sim host rotate when debt > 0).
          if (debt > 0) reopened.store.rotate();
          if (overwritten) expect(holdsPlaintext(fs), where).toEqual([]);
          expect(afterWrites).toBeLessThan(200);
        }
      }
    }
    // The cuts landed everywhere: before the overwrite was durable and after it.
    expect(cuts).toBeGreaterThan(50);
    expect(durableOverwrites).toBeGreaterThan(10);
  });
});
