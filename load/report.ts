/** The load run's HTML report: the summary table, the counters check, and plots over time. */
import { escapeHtml, htmlTable, page, type Plot } from './html.ts';
import type { Second, Summary } from './metrics.ts';
import type { DispatchOutcome } from './dispatch.ts';
import type { LoadOptions } from './options.ts';

export interface LoadOutcome {
  options: LoadOptions;
  runId: string;
  summary: Summary[];
  series: Record<string, Second[]>;
  counters: Record<string, number>;
  platform: { served: boolean; accepted: number; received: number; perNode: { target: string; accepted: number; received: number }[]; note?: string };
  agreement: { difference: number; within: boolean } | undefined;
  dispatch: DispatchOutcome | undefined;
  unanswered: number;
  seconds: number;
  /** Seconds from the tool's start at which the load began (setup before it). */
  runStartSecond: number;
  reportFile: string;
}

const f = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(2));

export function loadReport(out: LoadOutcome): string {
  const o = out.options;
  const config = htmlTable(['setting', 'value'], [
    ['targets', o.targets.map((t) => t.origin).join(', ')], ['devices', o.devices], ['sockets', o.sockets], ['interval', `${o.intervalMs} ms`],
    ['duration', `${o.durationMs} ms (ran ${out.seconds.toFixed(1)} s with the drain)`], ['bad share', o.badShare], ['encoding', o.encoding], ['reads a second', o.readRate],
    ['dispatchers', o.dispatchers ? `${o.dispatchers}: ${out.dispatch?.note ?? ''}` : 'off'], ['eligible share', o.dispatchers ? o.eligibleShare : '-'], ['work orders a second', o.dispatchers ? o.workOrderRate : '-'], ['city', `${o.city.latitude}, ${o.city.longitude}, ${o.city.radiusMetres} m`], ['run', out.runId],
  ]);
  const summary = htmlTable(['operation', 'ok', 'errors', 'per s', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'error codes'],
    out.summary.map((r) => [r.setup ? `${r.name} (setup)` : r.name, r.count, r.errors, r.setup ? '-' : r.rate.toFixed(1), f(r.p50), f(r.p90), f(r.p99), f(r.p999), f(r.max), Object.entries(r.errorCodes).map(([k, n]) => `${k}: ${n}`).join(', ')]));
  const counters = htmlTable(['tool counter', 'value'], Object.entries(out.counters).sort());
  const check = out.platform.served
    ? `<p class="${out.agreement!.within ? 'pass' : 'fail'}">Readings accepted: the platform counted ${out.platform.accepted} (${out.platform.perNode.map((p) => `${escapeHtml(p.target)}: ${p.accepted}`).join(', ')}), the tool's receipts ${out.counters['readings accepted (receipts)'] ?? 0}; difference ${(out.agreement!.difference * 100).toFixed(3)}% (${out.agreement!.within ? 'within' : 'not within'} 1%).</p>`
    : `<p class="fail">${escapeHtml(out.platform.note)}</p>`;
  const d = out.dispatch;
  const dispatch = !d ? '' : !d.served
    ? `<h2>Dispatchers</h2><p class="fail">${escapeHtml(d.note)}</p>`
    : `<h2>Dispatchers</h2>${htmlTable(['figure', 'value'], [
      ['eligible workers (live passport, current engagement)', d.eligible], ['not made eligible (setup refused)', d.eligibleFailed], ['work orders opened', d.opened], ['work orders filled (tool)', d.filled],
      ['work orders filled (platform)', d.platformFilled ?? '-'], ['unfilled: supply gaps', `${d.unfilled}${d.unfilled ? ` (${Object.entries(d.gapReasons).map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''}`],
      ['open at the end (cancelled)', d.openAtEnd], ['offers accepted', d.offersAccepted],
    ])}<p class="${d.agreement!.within ? 'pass' : 'fail'}">Work orders filled: the platform counted ${d.platformFilled} (GET /v1/allocation/work_orders?status=filled, paged), the tool ${d.filled}; difference ${(d.agreement!.difference * 100).toFixed(3)}% (${d.agreement!.within ? 'within' : 'not within'} 1%).</p>`;
  const names = Object.keys(out.series);
  const x = names.length ? out.series[names[0]].map((s) => s.t) : [];
  const runStart = out.runStartSecond;
  const plots: Plot[] = [
    { title: 'Answers a second per operation', yLabel: 'per second', x, runStart, series: names.map((n) => ({ label: n, values: out.series[n].map((s) => s.count) })) },
    { title: 'p99 latency per second (ms)', yLabel: 'ms', x, runStart, series: names.map((n) => ({ label: n, values: out.series[n].map((s) => s.p99) })) },
    { title: 'p50 latency per second (ms)', yLabel: 'ms', x, runStart, series: names.map((n) => ({ label: n, values: out.series[n].map((s) => s.p50) })) },
    { title: 'Errors a second per operation', yLabel: 'per second', x, runStart, series: names.map((n) => ({ label: n, values: out.series[n].map((s) => s.errors) })) },
  ];
  return page(`Load report ${out.runId}`, `<h2>Run</h2>${config}<h2>Throughput and latency</h2>${summary}<h2>Counters</h2>${check}${counters}${out.unanswered ? `<p class="fail">${out.unanswered} frame(s) unanswered at the end.</p>` : ''}${dispatch}<h2>Over time</h2>`, plots);
}
