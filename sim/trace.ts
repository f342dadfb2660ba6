import { assert } from "../core/assert";

/** FNV-1a 64 over UTF-8, kept as four 16-bit limbs (low first) so it needs no BigInt. */
export class Fnv1a64 {
  private h0 = 0x2325;
  private h1 = 0x8422;
  private h2 = 0x9ce4;
  private h3 = 0xcbf2;

  /** Feeds one byte: xor into the low limb, then multiply by the prime 2^40 + 0x1b3. */
  byte(b: number): void {
    const h0 = this.h0 ^ (b & 0xff);
    const t0 = h0 * 0x1b3;
    let t1 = this.h1 * 0x1b3;
    let t2 = this.h2 * 0x1b3;
    let t3 = this.h3 * 0x1b3;
    t2 += h0 << 8;
    t3 += this.h1 << 8;
    t1 += t0 >>> 16;
    t2 += t1 >>> 16;
    t3 += t2 >>> 16;
    this.h0 = t0 & 0xffff;
    this.h1 = t1 & 0xffff;
    this.h2 = t2 & 0xffff;
    this.h3 = t3 & 0xffff;
  }

  /** Feeds a string as UTF-8 (lone surrogates as U+FFFD, like TextEncoder). */
  text(s: string): void {
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        this.byte(c);
        continue;
      }
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const low = s.charCodeAt(i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
          i++;
        }
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      this.codePoint(c);
    }
  }

  /** Feeds a non-negative safe integer as decimal digits, without building a string. */
  decimal(n: number): void {
    assert(Number.isSafeInteger(n) && n >= 0, "decimal: non-negative safe integer");
    let div = 1;
    while (div * 10 <= n) div *= 10;
    for (; div >= 1; div /= 10) this.byte(48 + (Math.floor(n / div) % 10));
  }

  hex(): string {
    const limbs = [this.h3, this.h2, this.h1, this.h0];
    return limbs.map((limb) => limb.toString(16).padStart(4, "0")).join("");
  }

  private codePoint(c: number): void {
    if (c < 0x800) {
      this.byte(0xc0 | (c >> 6));
    } else if (c < 0x10000) {
      this.byte(0xe0 | (c >> 12));
      this.byte(0x80 | ((c >> 6) & 0x3f));
    } else {
      this.byte(0xf0 | (c >> 18));
      this.byte(0x80 | ((c >> 12) & 0x3f));
      this.byte(0x80 | ((c >> 6) & 0x3f));
    }
    this.byte(0x80 | (c & 0x3f));
  }
}

/** FNV-1a 64 of a whole string, as 16 hex digits. */
export function fnv1a64Hex(s: string): string {
  const h = new Fnv1a64();
  h.text(s);
  return h.hex();
}

export interface TraceOptions {
  /** Lines kept for printing the tail; older ones are forgotten (the hash still covers them). */
  readonly ringLines: number;
  /** Keep every line, for firstDivergence between two runs; costs memory. */
  readonly keepAll: boolean;
  /** Also print each line as it is recorded (a CLI's --verbose). */
  readonly echo?: (line: string) => void;
}

export const defaultTraceOptions: TraceOptions = { ringLines: 200, keepAll: false };

/**
 * Records one line per event, `t=<virtual ms> node=<id> <event> <detail>`, into a running
 * FNV-1a 64 hash, so two runs compare by hash; the hash covers the exact bytes of the lines
 * plus a newline after each. The tail sits in a ring of raw fields and is only formatted
 * when printed, so recording allocates no strings.
 */
export class Trace {
  private readonly hash = new Fnv1a64();
  private readonly ringT: number[];
  private readonly ringNode: string[];
  private readonly ringEvent: string[];
  private readonly ringDetail: string[];
  private readonly all: string[] | null;
  private count = 0;
  /** The hash after every `checkpointLines` lines: where two runs first differ, roughly. */
  private readonly marks: string[] = [];

  constructor(private readonly options: TraceOptions = defaultTraceOptions) {
    assert(options.ringLines >= 1, "trace ring holds at least one line");
    this.ringT = new Array<number>(options.ringLines).fill(0);
    this.ringNode = new Array<string>(options.ringLines).fill("");
    this.ringEvent = new Array<string>(options.ringLines).fill("");
    this.ringDetail = new Array<string>(options.ringLines).fill("");
    this.all = options.keepAll ? [] : null;
  }

  /** Lines recorded so far. */
  get length(): number {
    return this.count;
  }

  record(tMs: number, node: string, event: string, detail: string): void {
    const h = this.hash;
    h.text("t=");
    h.decimal(tMs);
    h.text(" node=");
    h.text(node);
    h.byte(32);
    h.text(event);
    h.byte(32);
    h.text(detail);
    h.byte(10);
    const slot = this.count % this.options.ringLines;
    this.ringT[slot] = tMs;
    this.ringNode[slot] = node;
    this.ringEvent[slot] = event;
    this.ringDetail[slot] = detail;
    this.count++;
    if (this.count % checkpointLines === 0) this.marks.push(h.hex());
    if (this.all !== null || this.options.echo !== undefined) {
      const line = formatLine(tMs, node, event, detail);
      this.all?.push(line);
      this.options.echo?.(line);
    }
  }

  /** The hash after each `checkpointLines` lines so far. */
  checkpoints(): readonly string[] {
    return this.marks;
  }

  /** Hash of every line so far, as 16 hex digits. */
  hashHex(): string {
    return this.hash.hex();
  }

  /** The last `n` lines (at most the ring size), oldest first. */
  tail(n = this.options.ringLines): string[] {
    const kept = Math.min(n, this.options.ringLines, this.count);
    const lines: string[] = [];
    for (let i = this.count - kept; i < this.count; i++) {
      const slot = i % this.options.ringLines;
      lines.push(
        formatLine(
          this.ringT[slot] as number,
          this.ringNode[slot] as string,
          this.ringEvent[slot] as string,
          this.ringDetail[slot] as string,
        ),
      );
    }
    return lines;
  }

  /** Every line; only with keepAll. */
  lines(): readonly string[] {
    assert(this.all !== null, "trace lines need keepAll");
    return this.all;
  }
}

/** Lines between two hash checkpoints of a trace. */
export const checkpointLines = 1024;

/**
 * The lines two runs first differ within, from their checkpoints: [from, to), `to` null
 * when they agree at every checkpoint both reached (the difference is after the last).
 */
export function divergentWindow(a: readonly string[], b: readonly string[]): { from: number; to: number | null } {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return { from: i * checkpointLines, to: (i + 1) * checkpointLines };
  return { from: n * checkpointLines, to: null };
}

export function formatLine(tMs: number, node: string, event: string, detail: string): string {
  return `t=${tMs} node=${node} ${event} ${detail}`;
}

export interface Divergence {
  readonly index: number;
  /** The line of each trace at index, or null where that trace had already ended. */
  readonly a: string | null;
  readonly b: string | null;
}

/** The first line where two traces differ, or null when they are identical. */
export function firstDivergence(a: readonly string[], b: readonly string[]): Divergence | null {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const la = a[i];
    const lb = b[i];
    if (la !== lb) return { index: i, a: la ?? null, b: lb ?? null };
  }
  return null;
}
