/**
 * Bench results (DESIGN "Bench"): every figure beside its baseline measured in the same run.
 * A scenario returns BenchResult[]; the runner prints a table and writes bench/results/<name>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  baseline_name?: string;
  baseline_value?: number;
  ratio?: number;
  /** Target for the ratio (or for the value when no baseline), e.g. 0.5 for ">= 50% of baseline". */
  target?: number;
  pass?: boolean;
  note?: string;
}

/** A figure with its baseline; ratio = value / baseline; pass when ratio >= target. */
export function compared(name: string, value: number, unit: string, baselineName: string, baselineValue: number, target?: number, note?: string): BenchResult {
  const ratio = baselineValue > 0 ? value / baselineValue : 0;
  return { name, value, unit, baseline_name: baselineName, baseline_value: baselineValue, ratio: round(ratio, 3), target, pass: target === undefined ? undefined : ratio >= target, note };
}

/** A figure beside its baseline, ratio printed, judged against an absolute target for the value. */
export function versus(name: string, value: number, unit: string, baselineName: string, baselineValue: number, valueTarget: number, note?: string): BenchResult {
  const ratio = baselineValue > 0 ? value / baselineValue : 0;
  return { name, value, unit, baseline_name: baselineName, baseline_value: baselineValue, ratio: round(ratio, 3), target: valueTarget, pass: value >= valueTarget, note };
}

/** A figure that should stay low beside its baseline (a latency under load vs at rest); pass when ratio <= maxRatio. */
export function atMost(name: string, value: number, unit: string, baselineName: string, baselineValue: number, maxRatio: number, note?: string): BenchResult {
  const ratio = baselineValue > 0 ? value / baselineValue : 0;
  return { name, value, unit, baseline_name: baselineName, baseline_value: baselineValue, ratio: round(ratio, 3), target: maxRatio, pass: ratio <= maxRatio, note };
}

/** A lone figure against an absolute target; `higherIsBetter` false for latencies and memory. */
export function absolute(name: string, value: number, unit: string, target?: number, higherIsBetter = true, note?: string): BenchResult {
  return { name, value, unit, target, pass: target === undefined ? undefined : higherIsBetter ? value >= target : value <= target, note };
}

export const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

export function printTable(scenario: string, results: BenchResult[]): void {
  const rows = results.map((r) => [
    r.name,
    `${fmt(r.value)} ${r.unit}`,
    r.baseline_name ? `${r.baseline_name}: ${fmt(r.baseline_value!)} ${r.unit}` : '',
    r.ratio !== undefined ? `${r.ratio}x` : '',
    r.target !== undefined ? String(r.target) : '',
    r.pass === undefined ? '' : r.pass ? 'pass' : 'FAIL',
    r.note ?? '',
  ]);
  const head = ['figure', 'value', 'baseline (same run)', 'ratio', 'target', '', 'note'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  console.log(`\n== bench: ${scenario}`);
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

export function writeResults(scenario: string, results: BenchResult[]): string {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${scenario}.json`);
  writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  return file;
}

function fmt(n: number): string {
  return Math.abs(n) >= 1000 ? Math.round(n).toLocaleString('en-US') : String(round(n, 3));
}
