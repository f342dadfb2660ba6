import type { ProgressSink } from "./seed-progress";
import { shrinkRunsMax } from "./scenario/shrink";

/**
 * Progress of a shrink on stderr, for the command line: up to 200 runs of a failing scenario
 * went by for minutes with nothing on screen. A line each time a smaller variant is kept, and
 * otherwise at most one per `everyMs` of wall time (rewritten in place on a terminal, cleared at
 * the end), saying how many runs were made, how many variants were kept and the last one. The
 * clock is the caller's.
 */
export class ShrinkProgress {
  private readonly startedMs: number;
  private lastMs: number;
  private shown = false;
  private kept = 0;

  constructor(
    private readonly label: string,
    private readonly nowMs: () => number,
    private readonly sink: ProgressSink,
    private readonly everyMs = 10_000,
    private readonly runsMax = shrinkRunsMax,
  ) {
    this.startedMs = nowMs();
    this.lastMs = this.startedMs;
  }

  /** Notes the runs made and the variants kept (`steps`, the last one latest); prints a line when one is due. */
  note(runs: number, steps: readonly string[]): void {
    const now = this.nowMs();
    const keptMore = steps.length > this.kept;
    this.kept = steps.length;
    if (!keptMore && now - this.lastMs < this.everyMs) return;
    this.lastMs = now;
    const last = steps.at(-1);
    const line =
      `${this.label}: ${runs} of at most ${this.runsMax} runs, ${steps.length} smaller variant${steps.length === 1 ? "" : "s"} kept` +
      `${last === undefined ? "" : ` (last: ${last})`}, ${Math.round((now - this.startedMs) / 1000)}s elapsed ` +
      "(Ctrl-C keeps the smallest so far)";
    this.sink.write(this.sink.isTTY === true ? `\r\x1b[K${line}` : `${line}\n`);
    this.shown = true;
  }

  /** Clears a line left on a terminal, so that what follows starts on a clean line. */
  end(): void {
    if (this.shown && this.sink.isTTY === true) this.sink.write("\r\x1b[K");
  }
}
