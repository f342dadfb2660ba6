/**
 * The command line of the benches that run one simulated workload's shape (sim-anatomy.ts,
 * wire.ts): `--minutes M --rate W --preset NAME --seed N`, each with the script's default,
 * checked; a bad value is refused with the script's usage line.
 */
import { isPresetName, type PresetName } from "../sim/faults";

export interface RunShape {
  readonly minutes: number;
  readonly rate: number;
  readonly seed: number;
  readonly preset: PresetName;
}

export function runShapeArgs(script: string, defaults: RunShape, argv: readonly string[] = process.argv): RunShape {
  const arg = (name: string, fallback: string): string => {
    const at = argv.indexOf(name);
    return at > 0 ? (argv[at + 1] ?? fallback) : fallback;
  };
  const minutes = Number(arg("--minutes", String(defaults.minutes)));
  const rate = Number(arg("--rate", String(defaults.rate)));
  const seed = Number(arg("--seed", String(defaults.seed)));
  const preset = arg("--preset", defaults.preset);
  if (!isPresetName(preset)) throw new Error(`unknown preset ${preset}`);
  if (!(minutes > 0) || !(rate >= 0) || !Number.isSafeInteger(seed)) {
    throw new Error(`usage: ${script} [--minutes M > 0] [--rate W >= 0] [--preset NAME] [--seed N]`);
  }
  return { minutes, rate, seed, preset };
}
