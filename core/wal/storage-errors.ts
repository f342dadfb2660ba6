/**
 * Failures of the disk itself. These are neither spec refusals (the node never returns them to a
 * client as an error code) nor bugs (the code did nothing wrong): the environment broke.
 */

/** Thrown by every write once an I/O error has marked the store dead. Reads go on in memory. */
export class StorageDeadError extends Error {
  override readonly name = "StorageDeadError";
  constructor(readonly reason: string) {
    super(`storage is dead after an I/O error, writes are refused: ${reason}`);
  }
}

/**
 * Durable data contradicts itself in a way no crash can produce (a sealed log with a torn tail,
 * a gap in sequence numbers). Boot refuses rather than silently dropping acknowledged writes.
 */
export class StorageCorruptError extends Error {
  override readonly name = "StorageCorruptError";
}
