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
  /** Request bodies: admits one 1 MiB value JSON-escaped plus envelope. */
  requestBodyBytesMax: 8 * 1024 * 1024,
} as const;
