/**
 * Runs every bench one after the other (the machine has 2 cores: concurrent benches would
 * measure each other) and prints one table of figures against the targets.
 *
 * Usage: npx tsx bench/run.ts [--quick]   (npm run bench -- --quick)
 * --quick: 2 s per throughput figure and the 100,000-object boot only (about a minute);
 * the full run takes 10 s per figure and adds the 1,000,000-object boot (several minutes).
 */
import { benchBoot } from "./boot";
import { benchDisk } from "./disk";
import type { Figure } from "./figures";
import { printFigures, quickFlag } from "./figures";
import { benchThroughput } from "./throughput";

const quick = quickFlag(process.argv);
const figures: Figure[] = [];
console.error(`bench: ${quick ? "quick" : "full"} run`);
figures.push(...benchDisk({ quick }));
figures.push(...(await benchThroughput({ quick })));
figures.push(...(await benchBoot({ quick })));
printFigures(figures);
const missed = figures.filter((f) => f.met === false).map((f) => f.name);
console.log(missed.length === 0 ? "\nall targets met" : `\ntargets missed: ${missed.join("; ")}`);
