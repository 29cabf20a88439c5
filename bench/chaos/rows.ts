/**
 * The rows every chaos scenario prints (bench/report.ts BenchResult), each fault count against
 * zero and the write outage against its bound; a scenario adds rows of its own after these.
 */
import { absolute, round, type BenchResult } from '../report.ts';
import type { JournalCounts } from './checks.ts';
import type { KeyedWrite } from './keyed-load.ts';

export interface Outcome {
  writes: readonly KeyedWrite[];
  journal: JournalCounts;
  credentials: { dead: number; deadBefore: number; checked: number; checkedBefore: number };
  list: { missing: number; wholeAfterMs: number };
  reminders: { missing: number; late: number; latestMs: number; lateness: number[]; armed: number; lateBoundMs: number };
  outageP99: number;
  longestGap: number;
  outageTargetMs: number;
}

export function commonRows(scenario: string, o: Outcome): BenchResult[] {
  const n = (s: string) => `[${scenario}] ${s}`;
  const acked = o.writes.filter((w) => w.acked !== undefined).length;
  const refused = o.writes.filter((w) => w.refused !== undefined);
  const retried = o.writes.filter((w) => w.retries > 0).length;
  const listNote = o.list.missing === 0 ? `list whole ${round(o.list.wholeAfterMs / 1000, 1)} s after the load stopped` : 'still missing at the settle deadline (BENCH_CHAOS_SETTLE_MS)';
  return [
    absolute(n('keyed creates acknowledged'), acked, 'writes', undefined, true, `API keys, ${o.writes.length} begun, ${retried} retried with their key on another node${refused.length ? `; ${refused.length} refused, first: ${refused[0].refused}` : ''}`),
    absolute(n('acknowledged creates lost'), o.journal.lost, 'writes', 0, false, 'acknowledged id with no api_key.created event in the journal'),
    absolute(n('duplicates'), o.journal.duplicates, 'records', 0, false, 'api_key.created events per Idempotency-Key beyond the first'),
    absolute(n('credentials no longer authenticating'), o.credentials.dead, 'keys', 0, false, `${o.credentials.deadBefore} of the ${o.credentials.checkedBefore} created before the fault; ${o.credentials.checked} checked`),
    absolute(n('list entries missing'), o.list.missing, 'entries', 0, false, listNote),
    absolute(n('reminders missing'), o.reminders.missing, 'reminders', 0, false, `${o.reminders.armed} consent tokens due around the fault`),
    absolute(n('reminders late'), o.reminders.late, 'reminders', 0, false, `beyond ${round(o.reminders.lateBoundMs / 1000, 1)} s after due; seen expired after due (s): ${o.reminders.lateness.map((ms) => round(ms / 1000, 1)).join(' ')}`),
    absolute(n('write outage p99'), round(o.outageP99), 'ms', o.outageTargetMs, false, `first attempt to acknowledgement, writes acknowledged after the fault; longest span with no acknowledgement ${round(o.longestGap)} ms`),
  ];
}
