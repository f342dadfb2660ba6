/**
 * The ports through which the outside world reaches the pure core. The core owns no clock and
 * no randomness: a shell hands them in (crypto at real boot, a seeded PRNG in the simulator).
 */

/** A source of uniformly random 32-bit unsigned integers. Deterministic under a seed. */
export interface Random {
  nextUint32(): number;
}
