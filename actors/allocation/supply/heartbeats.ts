/**
 * Heartbeat operations (spec 4.7; DESIGN "Heartbeats arrive two ways with one code path"): POST
 * /v1/allocation/heartbeats and the heartbeat socket both land in `ingestHeartbeats`, which runs a
 * batch through named steps on the node-local service (service.ts): the worker's soft state, the
 * readings judged, the accepted ones stored, signals and drift reported to the worker actor, the
 * supply map told, the receipt. A step that need not wait answers at once;
 * `x instanceof Promise ? await x : x` keeps the common batch free of waits.
 */
import { type Caller, errorEntry, type Platform, readings, type ValidationEntry } from '../../../kernel/index.ts';
import { parseBatch, storedReading, type HeartbeatBatch, type Reading } from './heartbeat.ts';
import type { LiveWorker } from './live.ts';
import type { Presence } from './presence.ts';
import type { CrossCheckAnswer } from '../providers/network-cross-check.ts';
import { allocationService, type AllocationService } from './service.ts';
import { judgeBatch, type Verdict, type Rejection, type Signal } from './validation.ts';
import { Worker, type WireSignal } from './worker.ts';

export interface HeartbeatReceipt {
  object: 'heartbeat_receipt';
  worker_id: string;
  accepted_count: number;
  rejected_count: number;
  reconciled: boolean;
  presence: Presence;
  validation: { entry_count: number; error_count: number; warning_count: number; entries: ValidationEntry[] };
  rejections: Rejection[];
}

const NO_DUPLICATES: ReadonlySet<number> = new Set();

/** A batch as a request body or a socket frame's value: checked by parseBatch, then ingested. */
export function submitHeartbeats(platform: Platform, caller: Caller, body: unknown): Promise<HeartbeatReceipt> {
  const s = allocationService(platform);
  return ingestHeartbeats(platform, caller, parseBatch(body, s.policy.pack.heartbeat.max_readings_per_batch));
}

/** A batch already parsed (parseBatch, or the socket's one-pass msgpack decoder). */
export async function ingestHeartbeats(platform: Platform, caller: Caller, batch: HeartbeatBatch): Promise<HeartbeatReceipt> {
  const s = allocationService(platform);
  const got = s.liveWorker(caller.org, batch.workerId);
  const lw = got instanceof Promise ? await got : got;
  const dup = olderDuplicates(s, lw, batch.readings);
  const older = dup instanceof Promise ? await dup : dup;
  const v = judgeBatch(batch.readings, { now: platform.clock.now(), policy: s.policy.pack, stateAt: lw.stateAt, recent: lw.recent, olderDuplicates: older });
  const signals: Signal[] = v.signals;
  if (v.accepted.length) {
    await store(s, lw, v.accepted, caller);
    const checked = crossCheck(s, batch.workerId, v.accepted);
    const inconsistent = checked instanceof Promise ? await checked : checked;
    if (inconsistent) signals.push(inconsistent);
  }
  if (signals.length) await reportSignals(s, lw, signals, caller);
  if (v.drift.length) reportDrift(s, lw, batch.readings, v, caller);
  const presence = s.tellSupply(lw, true).presence;
  s.counters.count(caller.org, batch.readings.length, v.accepted.length, v.rejections);
  return receipt(batch, v, presence);
}

/** What this node's heartbeat path received and accepted for the organisation since the node started. */
export function heartbeatCounters(platform: Platform, org: string) {
  const c = allocationService(platform).counters;
  return { object: 'allocation_counters' as const, since: new Date(c.since).toISOString(), ...c.of(org) };
}

/** When the recent memory is full, a reading older than it may duplicate one only the store holds. */
function olderDuplicates(s: AllocationService, lw: LiveWorker, batch: readonly Reading[]): ReadonlySet<number> | Promise<ReadonlySet<number>> {
  const h = s.policy.pack.heartbeat;
  if (lw.recent.size < h.recent_readings_kept) return NO_DUPLICATES;
  const horizon = s.platform.clock.now() - h.retention_window_seconds * 1000;
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of batch) if (r.recordedAt < lw.recent.oldest && r.recordedAt >= horizon) (lo = Math.min(lo, r.recordedAt)), (hi = Math.max(hi, r.recordedAt));
  if (lo > hi) return NO_DUPLICATES;
  return readings(s.platform).range(lw.id, lo, hi).then((rs) => new Set(rs.map((r) => r.recordedAt)));
}

/** The accepted readings into the ReadingStore, and the latest report. */
async function store(s: AllocationService, lw: LiveWorker, accepted: readonly Reading[], caller: Caller): Promise<void> {
  try {
    await readings(s.platform).append(lw.id, accepted.map((r) => ({ recordedAt: r.recordedAt, data: storedReading(r) })));
  } catch (e) {
    s.live.forget(caller.org, lw.workerId); // its recent memory now holds readings the store refused
    throw e;
  }
  const reported = Math.min(accepted[accepted.length - 1].recordedAt, s.platform.clock.now());
  if (lw.lastReportAt === undefined || reported > lw.lastReportAt) lw.lastReportAt = reported;
}

/** The network's view of the latest positioned accepted reading; a signal when it disagrees. */
function crossCheck(s: AllocationService, workerId: string, accepted: readonly Reading[]): Signal | undefined | Promise<Signal | undefined> {
  let positioned: Reading | undefined;
  for (let i = accepted.length - 1; i >= 0 && !positioned; i--) if (accepted[i].position) positioned = accepted[i];
  if (!positioned) return undefined;
  const at = positioned.recordedAt;
  const pending = s.network.check({ worker_id: workerId, latitude: positioned.position!.latitude, longitude: positioned.position!.longitude, recorded_at: at, connectivity: positioned.connectivity });
  return pending instanceof Promise ? pending.then((answer) => inconsistency(answer, at)) : inconsistency(pending, at);
}

/** Signals not yet on the worker's open flag go to the worker actor (which opens or extends it). */
async function reportSignals(s: AllocationService, lw: LiveWorker, signals: Signal[], caller: Caller): Promise<void> {
  const st = lw.state;
  const known = new Set(st.open_flag_id !== null ? st.open_flag_sources : []);
  const fresh: WireSignal[] = [];
  let mocked = false;
  for (const sig of signals) {
    if (known.has(sig.source)) continue;
    known.add(sig.source);
    fresh.push({ source: sig.source, fired_at: new Date(sig.firedAt).toISOString(), detail: sig.detail });
    mocked ||= sig.mocked === true;
  }
  if (!fresh.length) return;
  await s.platform.system.ask(Worker, lw.id, 'report_signals', { worker_id: lw.workerId, signals: fresh, livemode: caller.livemode, mocked }, caller);
}

/** The first drift since the availability changed is recorded on the worker (in the background). */
function reportDrift(s: AllocationService, lw: LiveWorker, batch: readonly Reading[], v: Verdict, caller: Caller): void {
  if (lw.state.drift_reported) return;
  const d = v.drift[0];
  const r = batch[d.index - 1];
  s.background(s.platform.system.ask(Worker, lw.id, 'report_drift', { reported: d.reported, recorded: d.recorded, recorded_at: new Date(r.recordedAt).toISOString() }, caller));
}

function inconsistency(answer: CrossCheckAnswer, at: number): Signal | undefined {
  return answer.outcome === 'inconsistent' ? { source: 'network_cross_check', firedAt: at, detail: answer.detail, mocked: answer.mocked } : undefined;
}

function receipt(batch: HeartbeatBatch, v: Verdict, presence: Presence): HeartbeatReceipt {
  const entries: ValidationEntry[] = v.rejections.map((r) => errorEntry(undefined, r.reason, r.detail ?? r.reason, r.index));
  for (const d of v.drift) entries.push({ index: d.index, severity: 'warning', code: 'availability_drift', detail: `The device believed ${d.reported}; the recorded availability was ${d.recorded}.` });
  if (v.drift.length) entries.sort((a, b) => a.index - b.index);
  return {
    object: 'heartbeat_receipt',
    worker_id: batch.workerId,
    accepted_count: v.accepted.length,
    rejected_count: v.rejections.length,
    reconciled: v.reconciled,
    presence,
    validation: { entry_count: batch.readings.length, error_count: v.rejections.length, warning_count: v.drift.length, entries },
    rejections: v.rejections,
  };
}
