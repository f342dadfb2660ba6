/** Every bound of the system, named once. Units are last in the name. */
export const limits = {
  /** SPEC Limits: attribute value size, inclusive. */
  valueBytesMax: 1024 * 1024,
  /** SPEC naming rules: object names. */
  nameBytesMax: 255,
  dnsLabelBytesMax: 63,
  dnsNameBytesMax: 253,
  portMin: 1,
  portMax: 65535,
  defaultInterlinkPort: 5390,
  msgTextBytesMin: 1,
  msgTextBytesMax: 16384,
  msgLogRecordsMax: 200,
  /** Journal cap (SPEC leaves the size open). */
  journalRecordsMax: 1000,
  restoreWindowDefaultS: 30 * 24 * 3600,
  purgeHorizonDefaultS: 180 * 24 * 3600,
  /**
   * The smallest `maxTimeApart` a write may set (SPEC gives none): a partner that completes no
   * pull within it is refused for good, so 0 refused every partner at once and partitioned the
   * domain for good. 20 s is one pull round at the default timing (5 s period, 1 s jitter, a
   * 10 s answer timeout) with room to spare; an operator wants days.
   */
  purgeHorizonMinS: 20,
  /**
   * The largest `timeUntilShred` or `maxTimeApart` (SPEC gives none): 100 years, "never" for
   * any operator. A larger one was stored as a valid integer and put GC's purge horizon before
   * the year 0: its timestamp assertion threw at every GC run, and the scheduled run at start
   * crashed the daemon on every node the setting reached. The reader clamps stored values to it
   * as well, for data written before the bound.
   */
  durationMaxS: 100 * 365 * 24 * 3600,
  /**
   * A pull batch stops taking objects once their values come to this many bytes (estimated:
   * UTF-16 code units of values, meta and names, plus a fixed share per atom and object), as
   * well as at the destination's object count: 50 objects each holding megabytes of values would
   * otherwise make one message of hundreds of megabytes. An object larger than the target goes
   * in parts, a batch ending inside it (core/repl/split-delta.ts), so no message grows with the
   * size of an object: a batch stays within about twice the target.
   */
  batchBytesTarget: 4 * 1024 * 1024,
  /** Request bodies: admits one 1 MiB value JSON-escaped plus envelope. */
  requestBodyBytesMax: 8 * 1024 * 1024,
} as const;
