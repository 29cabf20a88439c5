/**
 * Dispatchers of `npm run load` (--dispatchers N; docs/gaps.md#console). At setup a share of the
 * simulated workers (--eligible-share) is made eligible for offers the way an organisation would:
 * a live passport through the identity API (consent token, then a verification the sandbox
 * resolves) and a current engagement through the engagements API (open, paper, both assents,
 * execute, activate) with one employer of the run. During the run the dispatchers open work orders
 * (--work-order-rate a second over all of them, open loop) around eligible devices' positions,
 * follow the offers of the work orders they opened (GET .../offers) and accept each pending offer
 * as the worker would, with the worker's device credential (POST /v1/allocation/offers/{id}/accept).
 * The tool's own tally of work orders filled (accepts reaching the headcount) is compared with the
 * platform's count of work orders filled (GET /v1/allocation/work_orders?status=filled, paged; the
 * count before the run is subtracted). A deployment without work orders (404) is reported and the dispatchers stand down.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '../clients/typescript/src/index.ts';
import { api, pool, settle, type Answer } from './clients.ts';
import type { Metrics } from './metrics.ts';

/** The sandbox identifier that resolves to a live passport (identity sandbox provider). */
const SANDBOX_NIN = '70123456789';
/** Facts of an employment (a worker paid wages, supervised, with the employer's tools). */
const EMPLOYMENT_FACTS = { control: 'engaging_party', integration: 'integral', economic_dependence: 'single_party', tools: 'engaging_party', delegation: 'not_permitted', payment_form: 'wage_or_salary', duration: 'open_ended' } as const;
const TEMPLATE = 'ng_contract_of_employment';
/** Work orders opened by the dispatchers: a geofence of GEOFENCE_M within OFFSET_M of an eligible device, candidates sought within SEARCH_M. */
const GEOFENCE_M = 150;
const OFFSET_M = 300;
const SEARCH_M = 2000;
const OFFER_TIMEOUT_S = 30;
const CASCADE_WIDTH = 3;
/** How often a dispatcher reads the offers of each work order it follows. */
export const FOLLOW_MS = 250;

export interface DispatchOutcome {
  served: boolean;
  note: string;
  dispatchers: number;
  eligible: number;
  eligibleFailed: number;
  opened: number;
  /** The tool's tally: work orders whose accepted offers reached their headcount. */
  filled: number;
  /** Closed unfilled (supply gaps), by supply_gap.reason. */
  unfilled: number;
  gapReasons: Record<string, number>;
  /** Still open when the drain ended (then cancelled by the tool). */
  openAtEnd: number;
  offersAccepted: number;
  platformFilled?: number;
  agreement?: { difference: number; within: boolean };
}

const idem = (what: string) => `load-${what}-${randomBytes(12).toString('hex')}`;
const messageOf = (r: Answer) => (r.ok ? 'answered' : `${r.status} ${r.code}: ${r.message}`);

interface Followed {
  id: string;
  headcount: number;
  accepted: number;
  offers: Set<string>;
  busy: boolean;
  done: boolean;
}

export interface Position {
  workerId: string;
  lat: number;
  lng: number;
}

/** Counts the organisation's work orders of a status, paging newest first (the platform's own count). */
export async function countWorkOrders(target: URL, key: string, status: string, metrics: Metrics): Promise<number> {
  let n = 0;
  let after: string | undefined;
  for (;;) {
    const due = performance.now();
    const r = await settle(api(target, key).allocation.workOrders.list({ status: status as 'filled', limit: 100, starting_after: after }));
    metrics.record(`GET work_orders?status=${status} (count)`, due, r.ok ? undefined : r.code);
    if (!r.ok) throw Object.assign(new Error(`GET /v1/allocation/work_orders?status=${status}: ${messageOf(r)}`), { status: r.status });
    n += r.body.data.length;
    if (!r.body.has_more || r.body.data.length === 0) return n;
    after = r.body.next_cursor ?? r.body.data[r.body.data.length - 1].id;
  }
}

export class Dispatch {
  readonly outcome: DispatchOutcome;
  private before = 0;
  private eligible: string[] = [];
  private readonly followed: Followed[][] = [];
  private n = 0;
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly targets: URL[],
    private readonly key: string,
    private readonly runId: string,
    private readonly metrics: Metrics,
    private readonly random: () => number,
    private readonly o: { dispatchers: number; eligibleShare: number; workOrderRate: number },
    /** The worker's device credential: a worker accepts their own offer with it (spec 4.7). */
    private readonly deviceKeyOf: (workerId: string) => string | undefined = () => undefined,
  ) {
    this.outcome = { served: false, note: '', dispatchers: o.dispatchers, eligible: 0, eligibleFailed: 0, opened: 0, filled: 0, unfilled: 0, gapReasons: {}, openAtEnd: 0, offersAccepted: 0 };
    for (let i = 0; i < o.dispatchers; i++) this.followed.push([]);
  }

  private target(i: number): URL {
    return this.targets[i % this.targets.length];
  }

  /** One call through the TypeScript client, timed; a refusal is counted as an error by its code (a 409 on an offer taken meanwhile too). */
  private async timed(name: string, i: number, fn: (c: Client) => PromiseLike<unknown>, key = this.key): Promise<Answer> {
    const due = performance.now();
    const r = await settle(fn(api(this.target(i), key)));
    this.metrics.record(name, due, r.ok ? undefined : r.code);
    return r;
  }

  /**
   * Setup: is there a work order API, then the run's employer and the eligible workers. Returns
   * false (with the reason in the outcome's note) when the dispatchers stand down.
   */
  async setup(workerIds: string[], tick: () => void): Promise<boolean> {
    const probe = await settle(api(this.targets[0], this.key).allocation.workOrders.list({ limit: 1 }));
    if (!probe.ok && probe.status === 404) return this.standDown('work orders are not served by this deployment (GET /v1/allocation/work_orders answered 404)');
    if (!probe.ok) return this.standDown(`work orders could not be listed: ${messageOf(probe)}`);
    this.before = await countWorkOrders(this.targets[0], this.key, 'filled', this.metrics);
    const employer = `load_${this.runId}_employer`;
    try {
      await this.livePassport(employer, 0);
    } catch (e) {
      return this.standDown(`the run's employer could not be given a live passport: ${(e as Error).message}`);
    }
    const share = Math.round(workerIds.length * this.o.eligibleShare);
    const chosen = workerIds.slice(0, share);
    // the first alone: an API that refuses it stands the dispatchers down with its message
    if (chosen.length) {
      try {
        await this.makeEligible(employer, chosen[0], 0);
        this.eligible.push(chosen[0]);
        tick();
      } catch (e) {
        return this.standDown(`workers could not be made eligible: ${(e as Error).message}`);
      }
    }
    await pool(chosen.slice(1), 32, async (w, i) => {
      try {
        await this.makeEligible(employer, w, i + 1);
        this.eligible.push(w);
      } catch (e) {
        this.outcome.eligibleFailed++;
        this.metrics.add(`eligibility failed: ${(e as Error).message.slice(0, 80)}`);
      }
    }, tick);
    this.outcome.eligible = this.eligible.length;
    this.outcome.served = true;
    this.outcome.note = `${this.o.dispatchers} dispatcher(s), ${this.eligible.length} eligible worker(s) (live passport and current engagement)`;
    return true;
  }

  get eligibleWorkers(): readonly string[] {
    return this.eligible;
  }

  private standDown(note: string): false {
    this.outcome.served = false;
    this.outcome.note = note;
    return false;
  }

  private async livePassport(subject: string, i: number): Promise<void> {
    const t = await this.timed('setup: POST consent_tokens', i, (c) => c.identity.consentTokens.create({ subject_ref: subject, purpose: 'employment_verification', checks: ['government_identifier', 'name_match', 'date_of_birth_match'], wording_version: 'v1' }));
    if (!t.ok) throw new Error(`consent token: ${messageOf(t)}`);
    const v = await this.timed('setup: POST verifications', i, (c) => c.identity.verifications.create({ subject_ref: subject, consent_token_id: t.body.id, claims: { full_name: 'Load Worker', date_of_birth: '1990-04-12', government_identifier: SANDBOX_NIN } }));
    if (!v.ok || v.body?.outcome !== 'resolved') throw new Error(`verification: ${v.ok ? v.body?.outcome : messageOf(v)}`);
  }

  private async makeEligible(employer: string, worker: string, i: number): Promise<void> {
    await this.livePassport(worker, i);
    // a day back, so a target whose clock is a little behind still finds the start reached
    const startsOn = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const e = await this.timed('setup: POST engagements', i, (c) => c.rail.engagements.create({ engaging_party_ref: employer, worker_ref: worker, starts_on: startsOn, ends_on: null, facts: EMPLOYMENT_FACTS }));
    if (!e.ok) throw new Error(`engagement: ${messageOf(e)}`);
    const p = await this.timed('setup: POST engagement paper', i, (c) => c.rail.engagements.paper(e.body.id, { template_code: TEMPLATE }));
    if (!p.ok) throw new Error(`paper: ${messageOf(p)}`);
    const list = await this.timed('setup: GET instruments', i, (c) => c.rail.instruments.list({ engagement_id: e.body.id }));
    const instrument = list.body?.data?.[0]?.id;
    if (!instrument) throw new Error(`instruments: ${messageOf(list)}`);
    for (const [party, ref] of [['engaging_party', employer], ['worker', worker]] as const) {
      const a = await this.timed('setup: POST assents', i, (c) => c.rail.engagements.instruments.assents.create(e.body.id, instrument, { party, subject_ref: ref }));
      if (!a.ok) throw new Error(`assent: ${messageOf(a)}`);
    }
    const x = await this.timed('setup: POST execute', i, (c) => c.rail.engagements.instruments.execute(e.body.id, instrument));
    if (!x.ok) throw new Error(`execute: ${messageOf(x)}`);
    const c = await this.timed('setup: POST activate', i, (k) => k.rail.engagements.activate(e.body.id));
    if (!c.ok || c.body?.status !== 'current') throw new Error(`activate: ${messageOf(c)}`);
  }

  /** Opens every work order due by `now` (open loop from `from`), round robin over the dispatchers, around eligible devices. */
  issue(from: number, now: number, positionOf: (workerId: string) => Position | undefined): void {
    if (!this.outcome.served || this.stopped || this.o.workOrderRate <= 0 || !this.eligible.length) return;
    while (from + (this.n * 1000) / this.o.workOrderRate <= now) {
      const due = from + (this.n * 1000) / this.o.workOrderRate;
      const d = this.n % this.o.dispatchers;
      const near = positionOf(this.eligible[Math.floor(this.random() * this.eligible.length)]);
      this.n++;
      if (!near) continue;
      const [latitude, longitude] = offset(near.lat, near.lng, this.random() * 2 * Math.PI, this.random() * OFFSET_M);
      const headcount = this.random() < 0.25 ? 2 : 1;
      const body = {
        location: { latitude, longitude, radius_metres: GEOFENCE_M }, search_radius_metres: SEARCH_M, headcount, cascade_width: CASCADE_WIDTH, offer_timeout_seconds: OFFER_TIMEOUT_S,
        window: { starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 2 * 3_600_000).toISOString() },
      };
      this.inFlight++;
      settle(api(this.target(d), this.key).allocation.workOrders.create(body, { idempotencyKey: idem('work-order') }))
        .then((r) => {
          this.metrics.record('POST work_orders', due, r.ok ? undefined : r.code);
          if (!r.ok) return;
          this.outcome.opened++;
          const w: Followed = { id: r.body.id, headcount, accepted: 0, offers: new Set(), busy: false, done: false };
          if (r.body.status !== 'open') this.closed(w, r.body);
          else this.followed[d].push(w);
        })
        .finally(() => this.inFlight--);
    }
  }

  /** Starts following: every FOLLOW_MS each dispatcher reads the offers of its open work orders and accepts the pending ones. */
  start(): void {
    if (!this.outcome.served) return;
    this.timer = setInterval(() => {
      this.followed.forEach((list, d) => {
        for (const w of list) if (!w.busy && !w.done) void this.follow(w, d);
      });
    }, FOLLOW_MS);
  }

  private async follow(w: Followed, d: number): Promise<void> {
    w.busy = true;
    this.inFlight++;
    try {
      const r = await this.timed('GET work_order offers', d, (c) => c.allocation.workOrders.offers(w.id));
      if (!r.ok) return;
      const pending = (r.body.data as { id: string; status: string; worker_id: string }[]).filter((o) => o.status === 'pending' && !w.offers.has(o.id));
      // each worker accepts their offer with their device's credential as soon as the device sees it
      await Promise.all(pending.map(async (o) => {
        w.offers.add(o.id);
        const a = await this.timed('POST offers/{id}/accept', d, (c) => c.allocation.offers.accept(o.id), this.deviceKeyOf(o.worker_id) ?? this.key);
        if (a.ok) {
          w.accepted++;
          this.outcome.offersAccepted++;
        } else this.metrics.add(`accept answered ${a.status} ${a.code}`);
      }));
      if (w.accepted >= w.headcount) {
        this.outcome.filled++;
        w.done = true;
        return;
      }
      if (pending.length === 0) {
        const g = await this.timed('GET work_order', d, (c) => c.allocation.workOrders.retrieve(w.id));
        if (g.ok && g.body.status !== 'open') this.closed(w, g.body);
      }
    } finally {
      w.busy = false;
      this.inFlight--;
    }
  }

  private closed(w: Followed, record: { status: string; supply_gap?: { reason: string } | null; closed_reason?: string | null }): void {
    w.done = true;
    if (record.status === 'unfilled') {
      this.outcome.unfilled++;
      const reason = record.supply_gap?.reason ?? record.closed_reason ?? 'unknown';
      this.outcome.gapReasons[reason] = (this.outcome.gapReasons[reason] ?? 0) + 1;
    } else if (record.status === 'filled') this.outcome.filled++;
    else this.metrics.add(`work order closed ${record.status}`);
  }

  /** Stop opening; true while work orders are being opened or followed and open. */
  get busy(): boolean {
    return this.inFlight > 0 || this.followed.some((l) => l.some((w) => !w.done));
  }

  stopOpening(): void {
    this.stopped = true;
  }

  /** Ends following: cancels what is still open, then counts the platform's work orders filled during the run. */
  async finish(tolerance: number): Promise<DispatchOutcome> {
    clearInterval(this.timer);
    this.stopped = true;
    const out = this.outcome;
    if (!out.served) return out;
    while (this.inFlight > 0) await new Promise((r) => setTimeout(r, 20));
    const open = this.followed.flatMap((l, d) => l.filter((w) => !w.done).map((w) => ({ w, d })));
    out.openAtEnd = open.length;
    await pool(open, 16, async ({ w, d }) => {
      await this.timed('POST work_orders/{id}/cancel', d, (c) => c.allocation.workOrders.cancel(w.id, { reason: 'load run ended' }));
    });
    out.platformFilled = (await countWorkOrders(this.targets[0], this.key, 'filled', this.metrics)) - this.before;
    const difference = Math.abs(out.platformFilled - out.filled) / Math.max(1, out.filled);
    out.agreement = { difference, within: difference <= tolerance };
    return out;
  }
}

function offset(lat: number, lng: number, heading: number, metres: number): [number, number] {
  const R = 6_371_000;
  const dLat = (metres * Math.cos(heading)) / R;
  const dLng = (metres * Math.sin(heading)) / (R * Math.cos((lat * Math.PI) / 180));
  return [lat + (dLat * 180) / Math.PI, lng + (dLng * 180) / Math.PI];
}
