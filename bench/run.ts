/**
 * `npm run bench -- <scenario>` runs one scenario; `npm run bench` runs them all in turn.
 * A scenario is bench/scenarios/<name>.ts whose default export returns BenchResult[].
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeBenchHtml } from './html-report.ts';
import { printTable, writeResults, type BenchResult } from './report.ts';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'scenarios');
// a bench measures throughput, not budgets: every platform it starts, in process or as a child,
// keeps its rate limits and sandbox caps on with the open policies, whose figures no bench reaches
process.env.RATE_POLICY_FILE ??= fileURLToPath(new URL('../support/rate-policy-open.json', import.meta.url));
process.env.SANDBOX_POLICY_FILE ??= fileURLToPath(new URL('../support/sandbox-policy-open.json', import.meta.url));
// platforms started side by side each serve their metrics on a free port
process.env.METRICS_PORT ??= '0';
const available = readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3)).sort();
const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const chosen = asked.length ? asked : available;
const unknown = chosen.filter((c) => !available.includes(c));
if (unknown.length) {
  console.error(`unknown scenario(s): ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(2);
}

let failed = false;
for (const [i, name] of chosen.entries()) {
  process.stderr.write(`[${i + 1}/${chosen.length}] ${name} ...\n`);
  const mod = (await import(pathToFileURL(join(dir, `${name}.ts`)).href)) as { default: () => Promise<BenchResult[]> };
  const results = await mod.default();
  printTable(name, results);
  console.log(`results: ${writeResults(name, results)}`);
  if (results.some((r) => r.pass === false)) failed = true;
}
console.log(`report: ${writeBenchHtml()}`);
// Figures below target are reported, not fatal: a bench informs, it does not gate CI.
process.exitCode = 0;
if (failed) console.log('\nsome figures are below target (see FAIL rows)');
