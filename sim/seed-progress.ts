/**
 * Progress of a seed range on stderr, for the command line: a battery of hundreds of seeds ran
 * for minutes with nothing on screen until its summary. At most one line per `everyMs` of wall
 * time while seeds remain (rewritten in place on a terminal, cleared at the end), saying how
 * many seeds ran, how many failed and about how long the rest will take; stdout keeps the
 * verdicts and summaries alone. The clock is the caller's: the simulation never reads one.
 */

/** Where the lines go: process.stderr, or a test's stand-in. */
export interface ProgressSink {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export class SeedProgress {
  private done = 0;
  private failed = 0;
  private readonly startedMs: number;
  private lastMs: number;
  private shown = false;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly nowMs: () => number,
    private readonly sink: ProgressSink,
    private readonly everyMs = 10_000,
  ) {
    this.startedMs = nowMs();
    this.lastMs = this.startedMs;
  }

  /** Notes one seed's verdict; prints a line when one is due and seeds remain. */
  note(pass: boolean): void {
    this.done += 1;
    if (!pass) this.failed += 1;
    const now = this.nowMs();
    if (this.done >= this.total || now - this.lastMs < this.everyMs) return;
    this.lastMs = now;
    const elapsed = now - this.startedMs;
    const left = (elapsed / this.done) * (this.total - this.done);
    const line =
      `${this.label}: ${this.done}/${this.total} seeds (${this.failed} failed), ` +
      `${duration(elapsed)} elapsed, ~${duration(left)} left`;
    this.sink.write(this.sink.isTTY === true ? `\r\x1b[K${line}` : `${line}\n`);
    this.shown = true;
  }

  /** Clears a line left on a terminal, so that the summary starts on a clean line. */
  end(): void {
    if (this.shown && this.sink.isTTY === true) this.sink.write("\r\x1b[K");
  }
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, "0")}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}
