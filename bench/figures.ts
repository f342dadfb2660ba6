/** One measured figure of a bench, printed as a table row and collected by bench/run.ts. */
export interface Figure {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** The target, as text ("≥ 2,000/s"), and whether the value meets it. */
  readonly target: string;
  readonly met: boolean | null;
  readonly detail: string;
}

export function formatValue(value: number, unit: string): string {
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  const text = value.toLocaleString("en-US", { maximumFractionDigits: digits });
  return unit === "" ? text : `${text} ${unit}`;
}

export function printFigures(figures: readonly Figure[]): void {
  console.log("| figure | measured | target | met | detail |");
  console.log("|---|---|---|---|---|");
  for (const f of figures) {
    const met = f.met === null ? "" : f.met ? "yes" : "**no**";
    const value = formatValue(f.value, f.unit);
    console.log(`| ${f.name} | ${value} | ${f.target} | ${met} | ${f.detail} |`);
  }
}

/** `--quick` anywhere on the command line. */
export function quickFlag(argv: readonly string[]): boolean {
  return argv.includes("--quick");
}

/** True when the module is the script node was asked to run (not imported by run.ts). */
export function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && new URL(moduleUrl).pathname === script;
}
