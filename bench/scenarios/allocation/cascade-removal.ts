/**
 * Allocation bench part (b), cascade removal, embedded (memory stores, this process, a platform of
 * its own): WORK_ORDERS live work orders (default 10,000) with cascades of 20 pending offers over
 * POOL workers, so each worker is in 1,000 cascades; each of REVOCATIONS workers (default 20, real
 * live passports) also holds an unstarted assignment. Their passports are ended one at a time
 * (blocklist entry through the API); the time from the passport.ended commit to the commit that
 * withdrew the last of their 1,000 offers and cancelled the assignment. See ../allocation.ts.
 * Its steps: build the work orders and assignments, watch the commits, revoke one at a time.
 */
import type { Clock } from '../../../runtime/index.ts';
import { profiled } from '../../profile.ts';
import { round } from '../../report.ts';
import { type Embedded, livePassport, parallel } from './embedded.ts';
import { POINT } from './open-accept.ts';

export const WORK_ORDERS = Number(process.env.BENCH_WORK_ORDERS ?? 10_000);
export const REVOCATIONS = Number(process.env.BENCH_REVOCATIONS ?? 20);
export const CASCADE = 20;
export const POOL = (WORK_ORDERS * CASCADE) / 1000; // each worker in 1,000 cascades

type Allocation = typeof import('../../../actors/allocation/index.ts');

/** The work orders, each offering to CASCADE of the pool; then an unstarted assignment for each worker to be revoked, from an accepted offer of its own work order. */
async function buildCascades(e: Embedded, clock: Clock, a: Allocation, pool: string[], revoked: string[]): Promise<void> {
  const { platform, org } = e;
  const { newId } = await import('../../../kernel/index.ts');
  const { WorkOrder, WORK_ORDER_PREFIX, Assignment, assignmentIdOf, ACTIVE_WEIGHTS } = a;
  const svc = a.allocation(platform);
  const weights = ACTIVE_WEIGHTS;
  const now = clock.now();
  const woFacts = {
    location: { ...POINT, radius_metres: 300 },
    search_radius_metres: 5000,
    occupation_code: null,
    claim_codes: [],
    licence_required: false,
    window: { starts_at: now, ends_at: now + 6 * 3_600_000 },
    headcount: 1,
    offer_timeout_seconds: 86_400,
    cascade_width: CASCADE,
    weight_set: { version: weights.set.version, content_hash: weights.hash },
    livemode: false,
  };
  const blocks = POOL / CASCADE;
  await parallel(WORK_ORDERS, 64, async (j) => {
    const b = j % blocks;
    const candidates = Array.from({ length: CASCADE }, (_, k) => ({ worker_id: pool[b * CASCADE + ((k + j) % CASCADE)], rank: k + 1, score: 1 - k / 100 }));
    await platform.system.ask(WorkOrder, newId(WORK_ORDER_PREFIX), 'open', { ...woFacts, candidates, excluded_count: 0 }, { org, principal: 'bench' });
  });
  for (const w of revoked) {
    const s = (await platform.system.ask(WorkOrder, newId(WORK_ORDER_PREFIX), 'open', { ...woFacts, cascade_width: 1, candidates: [{ worker_id: w, rank: 1, score: 1 }], excluded_count: 0 }, { org, principal: 'bench' })) as { id: string };
    const state = await platform.system.state<{ offers: { id: string }[]; location: { latitude: number; longitude: number; radius_metres: number } }>(WorkOrder, s.id, org);
    const offer = state.offers[0].id;
    await platform.system.ask(WorkOrder, s.id, 'accept', { offer_id: offer, passport_live: true, engagement_current: true }, { org, principal: 'bench' });
    await platform.system.ask(Assignment, assignmentIdOf(offer), 'create', { work_order_id: s.id, offer_id: offer, worker_id: w, location: state.location, start_digest: 'sha256:x', completion_digest: 'sha256:y', policy_version: svc.policy.pack.version, livemode: false }, { org, principal: 'bench' });
  }
}

/** A revocation under way: when its passport ended, the offers still to be withdrawn, whether the assignment is cancelled. */
interface Pending {
  start: number;
  offers: number;
  assignment: boolean;
  done: (ms: number) => void;
}

/** Watches the commits of a revocation: passport.ended starts its clock, the last offer withdrawn and the assignment cancelled stop it. Answers the unsubscribe. */
async function watchRemovals(e: Embedded, a: Allocation, pending: Map<string, Pending>): Promise<() => void> {
  const { PASSPORT_KIND, PASSPORT_ENDED } = await import('../../../actors/identity/index.ts');
  const { WorkOrder, Assignment } = a;
  return e.platform.system.onCommit((c) => {
    if (c.kind === PASSPORT_KIND) {
      for (const ev of c.events) if (ev.type === PASSPORT_ENDED) {
        const p = pending.get((c.state as { subject_ref: string }).subject_ref);
        if (p && p.start === 0) p.start = performance.now();
      }
      return;
    }
    if (c.kind === WorkOrder.kind) {
      for (const ev of c.events) if (ev.type === 'offer.withdrawn') {
        const d = ev.data as { worker_id: string; reason: string };
        const p = d.reason === 'identity_revoked' ? pending.get(d.worker_id) : undefined;
        if (p && --p.offers === 0 && p.assignment) p.done(performance.now() - p.start);
      }
      return;
    }
    if (c.kind === Assignment.kind) {
      for (const ev of c.events) if (ev.type === 'assignment.cancelled') {
        const d = ev.data as { worker_id: string };
        const p = pending.get(d.worker_id);
        if (p && !p.assignment) {
          p.assignment = true;
          if (p.offers === 0) p.done(performance.now() - p.start);
        }
      }
    }
  });
}

/** Part (b): each revocation's time to its last removal, and this process's CPU over it (the blocklist request included). */
export async function cascadeRemoval(e: Embedded, clock: Clock): Promise<{ latencies: number[]; cpuMs: number[] }> {
  const a = await import('../../../actors/allocation/index.ts');
  const { platform, call, key } = e;
  process.stderr.write(`  (b) ${WORK_ORDERS.toLocaleString('en-US')} work orders x ${CASCADE} offers over ${POOL} workers; ${REVOCATIONS} with live passports\n`);
  const pool = Array.from({ length: POOL }, (_, i) => `bench_cascade_${i}`);
  const revoked = pool.slice(0, REVOCATIONS);
  await parallel(revoked.length, 4, (i) => livePassport(e, revoked[i]));
  const t0 = performance.now();
  await buildCascades(e, clock, a, pool, revoked);
  await platform.system.settle();
  process.stderr.write(`  (b) built in ${round((performance.now() - t0) / 1000, 1)} s; revoking one at a time\n`);

  const pending = new Map<string, Pending>();
  const unsubscribe = await watchRemovals(e, a, pending);
  const latencies: number[] = [];
  const cpuMs: number[] = [];
  try {
    await profiled('cascade-removal', async () => {
      for (const w of revoked) {
        const finished = new Promise<number>((resolve) => pending.set(w, { start: 0, offers: 1000, assignment: false, done: resolve }));
        const cpu0 = process.cpuUsage();
        await call('POST', '/v1/identity/blocklist_entries', { subject_ref: w, reason: 'bench revocation' }, key);
        const ms = await Promise.race([finished, new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`cascade removal of ${w} did not finish in 60 s: ${JSON.stringify({ ...pending.get(w), done: undefined })}`)), 60_000))]);
        latencies.push(ms);
        const cpu = process.cpuUsage(cpu0);
        cpuMs.push((cpu.user + cpu.system) / 1000);
        await platform.system.settle();
      }
    });
  } finally {
    unsubscribe();
  }
  return { latencies, cpuMs };
}
