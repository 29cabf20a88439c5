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
  /** Seconds at which the measured phase began: drawn as a line, the setup before it shaded. */
  runStart?: number;
}

/**
 * A colour per series, none repeated however many: hues a golden angle apart (the most even spread
 * for an open count), alternating two lightnesses, so neighbours differ in both.
 */
export function seriesColor(i: number): string {
  return `hsl(${Math.round((i * 137.508) % 360)} 70% ${i % 2 ? 34 : 48}%)`;
}

/** One page: a title, HTML sections, and plots drawn with uPlot. */
export function page(title: string, sections: string, plots: Plot[]): string {
  const { js, css } = assets();
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${css}
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1d2430}table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{padding:.25rem .6rem;border-bottom:1px solid #ddd;text-align:right}th:first-child,td:first-child{text-align:left}.pass{color:#1b6e20}.fail{color:#b00020;font-weight:600}.plot{margin-bottom:1.5rem}code{background:#f3f3f3;padding:0 .2rem}</style>
<script>${js}</script></head><body><h1>${escapeHtml(title)}</h1>${sections}<div id="plots"></div>
<script>const PLOTS=${scriptJson(plots.map((p) => ({ ...p, colors: p.series.map((_, i) => seriesColor(i)) })))};
const setupBand=(x0)=>(u)=>{if(x0===undefined||x0===null)return;const c=u.ctx,l=u.bbox.left,x=u.valToPos(x0,'x',true);c.save();c.fillStyle='rgba(120,120,120,.12)';c.fillRect(l,u.bbox.top,Math.max(0,x-l),u.bbox.height);c.strokeStyle='#555';c.setLineDash([4,4]);c.beginPath();c.moveTo(x,u.bbox.top);c.lineTo(x,u.bbox.top+u.bbox.height);c.stroke();c.fillStyle='#555';c.fillText('setup | load',x+4,u.bbox.top+12);c.restore();};
for(const p of PLOTS){const d=document.createElement('div');d.className='plot';document.getElementById('plots').appendChild(d);
new uPlot({title:p.title,width:Math.min(1100,innerWidth-60),height:280,scales:{x:{time:false}},axes:[{label:'seconds'},{label:p.yLabel}],hooks:{draw:[setupBand(p.runStart)]},
series:[{label:'s'},...p.series.map((s,i)=>({label:s.label,stroke:p.colors[i],width:1.5}))]},[p.x,...p.series.map(s=>s.values)],d);}</script>
</body></html>`;
}

/** An HTML table of rows; the first column left-aligned. */
export function htmlTable(head: string[], rows: (string | number)[][], rowClass?: (i: number) => string): string {
  return `<table><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r, i) => `<tr${rowClass ? ` class="${rowClass(i)}"` : ''}>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}
