/**
 * The bench's HTML report (`npm run bench` writes bench/results/report.html beside the JSON):
 * every scenario's figures, each beside its baseline measured in the same run and its target,
 * drawn as bars, in one self-contained file (no script, no network).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './report.ts';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'results');
const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const fmt = (n: number | undefined) => (n === undefined ? '' : Math.abs(n) >= 1000 ? Math.round(n).toLocaleString('en-US') : String(Math.round(n * 1000) / 1000));

/**
 * What a target bounds: the ratio to the baseline (report.ts `compared`) or the value itself
 * (`versus`, `absolute`). The JSON does not say; the recorded pass tells them apart where only one
 * reading agrees with it, else a target of at most 10 beside a baseline is taken as a ratio.
 */
function targetOf(r: BenchResult): { kind: 'ratio' | 'value'; value: number } | undefined {
  if (r.target === undefined) return undefined;
  if (r.baseline_value === undefined || r.ratio === undefined) return { kind: 'value', value: r.target };
  const byRatio = r.ratio >= r.target;
  const byValue = r.value >= r.target;
  const kind = r.pass !== undefined && byRatio !== byValue ? (r.pass === byRatio ? 'ratio' : 'value') : r.target <= 10 ? 'ratio' : 'value';
  return { kind, value: kind === 'ratio' ? r.target * r.baseline_value : r.target };
}

/** Bars of the figure, its baseline and (when the target is an absolute value) the target, on one scale. */
function bars(r: BenchResult): string {
  const rows: [string, number, string][] = [['value', r.value, r.pass === false ? '#c62828' : '#1565c0']];
  if (r.baseline_value !== undefined) rows.push(['baseline', r.baseline_value, '#9e9e9e']);
  const targetValue = targetOf(r)?.value;
  const max = Math.max(...rows.map((x) => x[1]), targetValue ?? 0) || 1;
  const w = 260;
  let svg = `<svg width="${w + 10}" height="${rows.length * 16 + 4}" role="img">`;
  rows.forEach(([label, v, color], i) => (svg += `<rect x="0" y="${i * 16 + 2}" width="${Math.max(1, (v / max) * w)}" height="12" fill="${color}"><title>${label}: ${fmt(v)}</title></rect>`));
  if (targetValue !== undefined) svg += `<line x1="${(targetValue / max) * w}" x2="${(targetValue / max) * w}" y1="0" y2="${rows.length * 16 + 4}" stroke="#000" stroke-dasharray="3 2"><title>target: ${fmt(targetValue)}</title></line>`;
  return svg + '</svg>';
}

export function benchHtml(scenarios: { name: string; results: BenchResult[] }[]): string {
  const sections = scenarios.map(({ name, results }) => `<h2 id="${esc(name)}">${esc(name)}</h2><table><thead><tr><th>figure</th><th>value</th><th>baseline (same run)</th><th>ratio</th><th>target</th><th></th><th>value, baseline, target</th><th>note</th></tr></thead><tbody>${results
    .map((r) => `<tr class="${r.pass === false ? 'fail' : r.pass ? 'pass' : ''}"><td>${esc(r.name)}</td><td>${fmt(r.value)} ${esc(r.unit)}</td><td>${r.baseline_name ? `${esc(r.baseline_name)}: ${fmt(r.baseline_value)} ${esc(r.unit)}` : ''}</td><td>${r.ratio !== undefined ? `${r.ratio}x` : ''}</td><td>${((t) => (t ? (t.kind === 'ratio' ? `${fmt(r.target)}x baseline` : `${fmt(t.value)} ${esc(r.unit)}`) : ''))(targetOf(r))}</td><td>${r.pass === undefined ? '' : r.pass ? 'pass' : 'FAIL'}</td><td>${bars(r)}</td><td>${esc(r.note ?? '')}</td></tr>`)
    .join('')}</tbody></table>`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bench report</title><style>body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1d2430}table{border-collapse:collapse;margin-bottom:1.5rem}th,td{padding:.25rem .6rem;border-bottom:1px solid #ddd;text-align:left;vertical-align:middle}tr.fail td{color:#b00020}tr.pass td:nth-child(6){color:#1b6e20}</style></head><body><h1>Bench report</h1><p>${esc(new Date().toISOString())}. Each figure beside its baseline measured in the same run and its target (bars: value in blue, red when below target; baseline grey; target dashed).</p><p>${scenarios.map((s) => `<a href="#${esc(s.name)}">${esc(s.name)}</a>`).join(' · ')}</p>${sections.join('')}</body></html>`;
}

/** Writes bench/results/report.html from every bench/results/<scenario>.json there; returns its path. */
export function writeBenchHtml(dir = RESULTS): string {
  const scenarios = existsSync(dir)
    ? readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => ({ name: f.slice(0, -5), results: JSON.parse(readFileSync(join(dir, f), 'utf8')) as BenchResult[] }))
    : [];
  const file = join(dir, 'report.html');
  writeFileSync(file, benchHtml(scenarios));
  return file;
}
