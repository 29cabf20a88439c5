/** The bench's HTML report (bench/html-report.ts): every figure beside its baseline and target. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeBenchHtml } from '../../bench/html-report.ts';
import { absolute, compared, versus } from '../../bench/report.ts';

describe('bench HTML report', () => {
  it('every scenario\'s figures are shown each beside its baseline and its target, a ratio target read as a share of the baseline, a figure below target marked FAIL', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-html-'));
    writeFileSync(join(dir, 'heartbeats.json'), JSON.stringify([
      compared('frames a second', 40_000, 'frames/s', 'bare uWS echo', 100_000, 0.5),
      versus('readings a second', 9_000, 'readings/s', 'plain HTTP POST loop', 12_000, 10_000),
    ]));
    writeFileSync(join(dir, 'supply.json'), JSON.stringify([absolute('p99 nearest', 0.8, 'ms', 2, false)]));
    const html = readFileSync(writeBenchHtml(dir), 'utf8');
    for (const s of ['heartbeats', 'supply', 'frames a second', 'bare uWS echo: 100,000 frames/s', '0.5x baseline', 'plain HTTP POST loop: 12,000 readings/s', '10,000 readings/s', 'p99 nearest', '2 ms']) expect(html).toContain(s);
    expect(html.match(/<tr class="fail">/g)).toHaveLength(2);
    expect(html.match(/<tr class="pass">/g)).toHaveLength(1);
    expect(html).not.toMatch(/<script/);
  });
});
