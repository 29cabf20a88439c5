/** Work orders over the real gateway: eligible workers (identity and engagements APIs), points, opening, offers. */
import { expect } from 'vitest';
import type { Harness } from '../../support/http.ts';
import { current, subject } from '../engagements/support.ts';
import { livePassport } from '../identity/support.ts';
import { heartbeats, makeAvailable, reading } from './support.ts';

export interface Point {
  latitude: number;
  longitude: number;
}

export interface Made {
  worker: string;
  engagementId?: string;
}

let area = 0;
let n = 0;

export function dispatchKit(h: Harness) {
  const ik = (what: string) => `${what}-${process.pid}-${++n}`;
  const post = (path: string, body?: unknown) => h.request('POST', path, { body, idempotencyKey: ik('wo') });
  let employer = '';
  /** A fresh point per scenario, far from the others, so scenarios never see each other's workers. */
  const centre = (): Point => ({ latitude: 6.3 + 0.05 * ++area, longitude: 3.2 + 0.05 * (process.pid % 7) });
  const north = (at: Point, metres: number): Point => ({ latitude: at.latitude + metres / 111_320, longitude: at.longitude });

  /** A reading of the worker at a point, `agoMs` before now. */
  const at = (worker: string, p: Point, agoMs = 100) => heartbeats(h, { worker_id: worker, readings: [reading(h.clock.now() - agoMs, { position: { ...p, accuracy_metres: 5 } })] });

  /**
   * A worker in supply `metres` north of the point, with a live passport and a current engagement
   * unless told otherwise (`passport: false`: never verified, so no engagement either).
   */
  async function worker(p: Point, metres: number, o: { passport?: boolean; engagement?: boolean } = {}): Promise<Made> {
    if (!employer) {
      employer = subject('employer');
      await livePassport(h, employer);
    }
    const parties = { employer, worker: subject('worker') };
    const made: Made = { worker: parties.worker };
    if (o.passport !== false) await livePassport(h, parties.worker);
    if (o.passport !== false && o.engagement !== false) made.engagementId = (await current(h, parties)).engagement.id;
    await makeAvailable(h, parties.worker);
    await h.clock.advance(500);
    await at(parties.worker, north(p, metres));
    await h.platform.system.settle();
    return made;
  }

  const window = (hours = 4) => ({ starts_at: new Date(h.clock.now()).toISOString(), ends_at: new Date(h.clock.now() + hours * 3_600_000).toISOString() });

  async function open(p: Point, over: Record<string, unknown> = {}) {
    const r = await post('/v1/allocation/work_orders', { location: { ...p, radius_metres: 5000 }, window: window(), headcount: 1, cascade_width: 1, offer_timeout_seconds: 60, ...over });
    expect(r.status, r.text).toBe(201);
    return r.body;
  }

  const offers = async (wo: string) => (await h.request('GET', `/v1/allocation/work_orders/${wo}/offers`)).body.data as { id: string; worker_id: string; status: string; reason: string | null }[];

  return { ik, post, centre, north, at, worker, window, open, offers };
}
