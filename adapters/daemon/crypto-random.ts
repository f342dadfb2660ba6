import { getRandomValues } from "node:crypto";
import type { Random } from "../../core/ports";

/** Words fetched from the OS per refill: one syscall serves many GUID mints. */
const poolWords = 256;

/**
 * The core's Random port at real boot, backed by the operating system's CSPRNG. GUIDs and
 * invocation ids must not collide across machines, so a seeded PRNG (the simulator's choice)
 * would be wrong here.
 */
export class CryptoRandom implements Random {
  private pool = new Uint32Array(0);
  private index = 0;

  nextUint32(): number {
    if (this.index >= this.pool.length) {
      this.pool = getRandomValues(new Uint32Array(poolWords));
      this.index = 0;
    }
    const word = this.pool[this.index++];
    if (word === undefined) throw new Error("CryptoRandom pool underflow");
    return word >>> 0;
  }
}
