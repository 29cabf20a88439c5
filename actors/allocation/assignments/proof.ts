/**
 * What a worker's readings say about an assignment step (spec 3: arrival needs geofence entry
 * corroborated by the start passcode; completion needs the completion passcode, dwell inside the
 * geofence and telemetry continuity). Reads the worker's stored readings since the step began,
 * marks each inside or outside the geofence (radius plus the policy's slack for GPS error), and
 * derives the crossings, the first entry, the dwell (time between consecutive readings both
 * inside, each interval no longer than the policy's telemetry gap: a silence is not presence) and
 * the longest gap (including the silence up to now). Completion's dwell counts from the geofence
 * entry that arrival relied on, so its readings start where arrival's did (the start of the
 * assignment's travel), while its continuity is judged from arrival on. The assignment actor decides.
 */
import { type Platform, readings as readingStore } from '../../../kernel/index.ts';
import { moduleGates } from '../work-orders/candidates.ts';
import { distanceMetres } from '../geo.ts';
import type { StoredReadingData } from '../supply/heartbeat.ts';
import type { AssignmentState, ProofReading, Signal, StepFacts } from './assignment.ts';
import { passcodeDigest } from './assignment.ts';
import type { PolicyPack } from '../policy.ts';
import { allocationService } from '../supply/service.ts';
import { workerActorId } from '../supply/worker.ts';

export async function stepFacts(platform: Platform, s: AssignmentState, step: 'start' | 'completion', passcode: string, policy: PolicyPack): Promise<StepFacts> {
  const now = platform.clock.now();
  const travel = s.started_at ?? s.created_at;
  const from = step === 'start' ? travel : (s.arrived_at ?? s.created_at);
  const slack = policy.assignment?.geofence_slack_metres ?? 0;
  const maxGapMs = (policy.assignment?.max_telemetry_gap_seconds ?? Infinity) * 1000;
  const stored = await readingStore(platform).range(workerActorId(s.org, s.worker_id), travel, now);
  const readings: ProofReading[] = [];
  for (const r of stored) {
    const p = (r.data as StoredReadingData).position;
    if (!p) continue;
    const d = distanceMetres(p.latitude, p.longitude, s.location.latitude, s.location.longitude);
    readings.push({ recorded_at: new Date(r.recordedAt).toISOString(), latitude: p.latitude, longitude: p.longitude, accuracy_metres: p.accuracy_metres, inside: d <= s.location.radius_metres + slack });
  }
  const crossings: StepFacts['crossings'] = [];
  let entered: string | null = null;
  let dwell = 0;
  let gap = 0;
  let prevAt = from;
  for (let i = 0; i < readings.length; i++) {
    const r = readings[i]!;
    const at = Date.parse(r.recorded_at);
    const before = readings[i - 1];
    if (r.inside && entered === null) entered = r.recorded_at;
    if (before && before.inside !== r.inside) crossings.push({ direction: r.inside ? 'entered' : 'left', at: r.recorded_at });
    if (!before && r.inside) crossings.push({ direction: 'entered', at: r.recorded_at });
    const since = before ? at - Date.parse(before.recorded_at) : 0;
    if (before && before.inside && r.inside && since <= maxGapMs) dwell += since / 1000;
    if (at < from) continue; // before arrival: counts towards dwell, not towards continuity
    gap = Math.max(gap, (at - prevAt) / 1000);
    prevAt = at;
  }
  gap = Math.max(gap, (now - prevAt) / 1000);
  const g = moduleGates(platform);
  const signals: Signal[] = [];
  const svc = allocationService(platform);
  const flag = svc.openFlagOf(s.org, s.worker_id);
  if (flag) signals.push({ name: 'integrity_signal', detail: `Integrity flag ${flag} is open on the worker.` });
  return {
    passcode_digest: passcodeDigest(s.id, step, passcode),
    engagement_current: g.isCurrent(s.org, s.worker_id),
    passport_live: g.isLive(s.org, s.worker_id),
    signals,
    readings,
    crossings,
    entered_at: entered,
    dwell_seconds: Math.round(dwell),
    max_gap_seconds: Math.round(gap),
  };
}
