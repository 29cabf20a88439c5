/**
 * What the load tool measures: per operation, an HDR histogram of latency (hdr-histogram-js; in
 * microseconds, 3 significant digits) over the whole run and one per second for the plots, with
 * counts of answers and errors. Latency runs from when a request was due, not when it left, so a
 * stalled target shows up as latency (no coordinated omission).
 */
import * as hdr from 'hdr-histogram-js';

type Histogram = ReturnType<typeof hdr.build>;

const newHistogram = (): Histogram => hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3, autoResize: true });

export interface Second {
  /** Seconds since the run started. */
  t: number;
  count: number;
  errors: number;
  p50: number;
  p99: number;
}

class Operation {
  readonly all = newHistogram();
  count = 0;
  errors = 0;
  first = Infinity;
  last = -Infinity;
  readonly errorCodes = new Map<string, number>();
  readonly seconds = new Map<number, { h: Histogram; count: number; errors: number }>();
}

export interface Summary {
  name: string;
  count: number;
  errors: number;
  rate: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
  errorCodes: Record<string, number>;
  /** Every answer came before the load began: a setup step, whose rate says nothing of the load. */
  setup: boolean;
}

export class Metrics {
  private readonly ops = new Map<string, Operation>();
  readonly startedAt = performance.now();
  /** When the load itself began (after setup: registration, credentials, sockets, eligibility). */
  runStartedAt: number | undefined;
  endedAt: number | undefined;
  /** Counters the tool keeps besides latency (readings sent, accepted by receipt, ...). */
  readonly counters = new Map<string, number>();

  private op(name: string): Operation {
    let o = this.ops.get(name);
    if (!o) this.ops.set(name, (o = new Operation()));
    return o;
  }

  add(name: string, by = 1): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + by);
  }

  counter(name: string): number {
    return this.counters.get(name) ?? 0;
  }

  /** One answer of `name`: due at `dueAt` (performance.now()), answered now; an error code when it failed. */
  record(name: string, dueAt: number, error?: string): void {
    const now = performance.now();
    const us = Math.max(1, Math.round((now - dueAt) * 1000));
    const o = this.op(name);
    const sec = Math.floor((now - this.startedAt) / 1000);
    o.first = Math.min(o.first, now);
    o.last = Math.max(o.last, now);
    let s = o.seconds.get(sec);
    if (!s) o.seconds.set(sec, (s = { h: newHistogram(), count: 0, errors: 0 }));
    if (error) {
      o.errors++;
      s.errors++;
      o.errorCodes.set(error, (o.errorCodes.get(error) ?? 0) + 1);
      return;
    }
    o.count++;
    s.count++;
    o.all.recordValue(us);
    s.h.recordValue(us);
  }

  names(): string[] {
    return [...this.ops.keys()].sort();
  }

  summary(): Summary[] {
    return this.names().map((name) => {
      const o = this.ops.get(name)!;
      // the rate over the span the operation ran (setup steps run before the load)
      const seconds = Math.max(1, (o.last - o.first) / 1000);
      const ms = (p: number) => (o.count ? o.all.getValueAtPercentile(p) / 1000 : 0);
      return {
        name, count: o.count, errors: o.errors, rate: o.count / seconds, setup: this.runStartedAt !== undefined && o.last < this.runStartedAt,
        p50: ms(50), p90: ms(90), p99: ms(99), p999: ms(99.9), max: o.count ? o.all.maxValue / 1000 : 0, mean: o.count ? o.all.mean / 1000 : 0,
        errorCodes: Object.fromEntries(o.errorCodes),
      };
    });
  }

  /** Per operation, one entry per second of the run (zeros where nothing was answered). */
  series(): Record<string, Second[]> {
    const last = Math.floor(((this.endedAt ?? performance.now()) - this.startedAt) / 1000);
    const out: Record<string, Second[]> = {};
    for (const name of this.names()) {
      const o = this.ops.get(name)!;
      out[name] = [];
      for (let t = 0; t <= last; t++) {
        const s = o.seconds.get(t);
        out[name].push({ t, count: s?.count ?? 0, errors: s?.errors ?? 0, p50: s?.count ? s.h.getValueAtPercentile(50) / 1000 : 0, p99: s?.count ? s.h.getValueAtPercentile(99) / 1000 : 0 });
      }
    }
    return out;
  }
}

/** The table printed at the end: throughput and latency percentiles (ms) per operation; setup steps have no rate. */
export function table(rows: Summary[]): string {
  const head = ['operation', 'ok', 'errors', 'per s', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms'];
  const f = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(2));
  const body = rows.map((r) => [r.setup ? `${r.name} (setup)` : r.name, String(r.count), String(r.errors), r.setup ? '-' : r.rate.toFixed(1), f(r.p50), f(r.p90), f(r.p99), f(r.p999), f(r.max)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (c: string[]) => c.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}
