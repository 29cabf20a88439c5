/**
 * Self-contained HTML reports: the data, uPlot (its published dist, inlined) and the page in one
 * file that opens offline. Used by `npm run load` and by `npm run bench` (bench/html-report.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const uplotDir = dirname(createRequire(import.meta.url).resolve('uplot'));
let uplot: { js: string; css: string } | undefined;
const assets = () => (uplot ??= { js: readFileSync(join(uplotDir, 'uPlot.iife.min.js'), 'utf8'), css: readFileSync(join(uplotDir, 'uPlot.min.css'), 'utf8') });

export const escapeHtml = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** JSON safe inside a <script> element. */
export const scriptJson = (x: unknown) => JSON.stringify(x).replace(/</g, '\\u003c');

export interface Plot {
  title: string;
  /** x values (seconds) */
  x: number[];
  series: { label: string; values: number[] }[];
  yLabel: string;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

/** One page: a title, HTML sections, and plots drawn with uPlot. */
export function page(title: string, sections: string, plots: Plot[]): string {
  const { js, css } = assets();
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${css}
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1d2430}table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{padding:.25rem .6rem;border-bottom:1px solid #ddd;text-align:right}th:first-child,td:first-child{text-align:left}.pass{color:#1b6e20}.fail{color:#b00020;font-weight:600}.plot{margin-bottom:1.5rem}code{background:#f3f3f3;padding:0 .2rem}</style>
<script>${js}</script></head><body><h1>${escapeHtml(title)}</h1>${sections}<div id="plots"></div>
<script>const PLOTS=${scriptJson(plots)};const COLORS=${scriptJson(COLORS)};
for(const p of PLOTS){const d=document.createElement('div');d.className='plot';document.getElementById('plots').appendChild(d);
new uPlot({title:p.title,width:Math.min(1100,innerWidth-60),height:280,scales:{x:{time:false}},axes:[{label:'seconds'},{label:p.yLabel}],
series:[{label:'s'},...p.series.map((s,i)=>({label:s.label,stroke:COLORS[i%COLORS.length],width:1.5}))]},[p.x,...p.series.map(s=>s.values)],d);}</script>
</body></html>`;
}

/** An HTML table of rows; the first column left-aligned. */
export function htmlTable(head: string[], rows: (string | number)[][], rowClass?: (i: number) => string): string {
  return `<table><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r, i) => `<tr${rowClass ? ` class="${rowClass(i)}"` : ''}>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}
