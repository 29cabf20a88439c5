/**
 * Which webhook attempt starts next (docs/gaps.md#delivery "Fair outbound work"). Attempts wait
 * per endpoint, endpoints per organisation; organisations take turns, and within one the
 * endpoints take turns, so a burst of one organisation's events, or one endpoint that answers
 * slowly, delays only its own attempts. Three caps hold at once: attempts in flight in all,
 * per organisation and per endpoint. Pure bookkeeping: no I/O, no clock.
 */

export interface FairLimits {
  /** Attempts in flight on this node. */
  total: number;
  perOrganisation: number;
  perEndpoint: number;
}

interface EndpointLane<J> {
  active: number;
  queue: J[];
}

interface OrgLane<J> {
  active: number;
  /** Every endpoint of the organisation with attempts queued or in flight. */
  lanes: Map<string, EndpointLane<J>>;
  /** Endpoints with attempts queued, in turn order (a Map keeps insertion order: re-setting sends one to the back). */
  turn: Map<string, EndpointLane<J>>;
}

export interface Started<J> {
  org: string;
  endpoint: string;
  job: J;
}

export class FairQueue<J> {
  private active = 0;
  private queued = 0;
  private readonly orgs = new Map<string, OrgLane<J>>();
  /** Organisations with attempts queued, in turn order. */
  private readonly turn = new Map<string, OrgLane<J>>();

  constructor(private readonly limits: FairLimits) {}

  /** Attempts waiting their turn. */
  get depth(): number {
    return this.queued;
  }

  /** Attempts started and not yet done. */
  get running(): number {
    return this.active;
  }

  push(org: string, endpoint: string, job: J): void {
    let o = this.orgs.get(org);
    if (!o) this.orgs.set(org, (o = { active: 0, lanes: new Map(), turn: new Map() }));
    let lane = o.lanes.get(endpoint);
    if (!lane) o.lanes.set(endpoint, (lane = { active: 0, queue: [] }));
    lane.queue.push(job);
    this.queued++;
    if (!o.turn.has(endpoint)) o.turn.set(endpoint, lane);
    if (!this.turn.has(org)) this.turn.set(org, o);
  }

  /** The next attempt the caps allow, counted as running until done() is called for it; undefined when none may start. */
  next(): Started<J> | undefined {
    if (this.active >= this.limits.total) return undefined;
    for (const [org, o] of this.turn) {
      if (o.active >= this.limits.perOrganisation) continue;
      for (const [endpoint, lane] of o.turn) {
        if (lane.active >= this.limits.perEndpoint) continue;
        const job = lane.queue.shift()!;
        this.queued--;
        lane.active++;
        o.active++;
        this.active++;
        // To the back of both turns (or out of them when nothing of theirs waits).
        o.turn.delete(endpoint);
        if (lane.queue.length > 0) o.turn.set(endpoint, lane);
        this.turn.delete(org);
        if (o.turn.size > 0) this.turn.set(org, o);
        return { org, endpoint, job };
      }
    }
    return undefined;
  }

  /** An attempt next() handed out has ended. */
  done(org: string, endpoint: string): void {
    const o = this.orgs.get(org);
    const lane = o?.lanes.get(endpoint);
    if (!o || !lane) throw new Error(`fair queue: no attempt of ${org}/${endpoint} is running`);
    lane.active--;
    o.active--;
    this.active--;
    if (lane.active === 0 && lane.queue.length === 0) o.lanes.delete(endpoint);
    if (o.lanes.size === 0) this.orgs.delete(org);
  }

  /** Takes every queued attempt out (the process is stopping); those running stay counted until done. */
  drain(): J[] {
    const out: J[] = [];
    for (const o of this.orgs.values()) {
      for (const [endpoint, lane] of o.lanes) {
        out.push(...lane.queue.splice(0));
        if (lane.active === 0) o.lanes.delete(endpoint);
      }
      o.turn.clear();
    }
    for (const [org, o] of this.orgs) if (o.lanes.size === 0) this.orgs.delete(org);
    this.turn.clear();
    this.queued = 0;
    return out;
  }
}
