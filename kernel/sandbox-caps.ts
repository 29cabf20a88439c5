/**
 * Sandbox caps (docs/gaps.md#sandbox-caps): an organisation's sandbox keeps at most the policy's
 * number of records (sandbox-policy.ts), and a request made with a sandbox credential that would
 * create one past it is refused 403 `sandbox_record_limit_reached`, never left to grow the stores
 * and the heap without bound.
 *
 * A record is an actor with a journal, whoever made it (a request, a reaction, a timer): what the
 * organisation keeps on the platform. The count is a read model kept in memory on every node, as
 * the gates are (journal-feeds.ts NodeReadModel): this node's commits as they happen, and over
 * durable stores the whole journal feed, so the count is rebuilt from the journal after a start
 * and every node of a cluster counts the records made on the others. A stream's first event
 * (version 1) is a record made. So no create pays a write or a network round trip for the count.
 * In a cluster, where that count learns the other nodes' records late, a request is also admitted
 * only against slots of the organisation's budget this node took before it ran (sandbox-budget.ts;
 * docs/gaps.md#sandbox-caps says what bound holds).
 *
 * Only a create asked on behalf of a sandbox request in flight on this node is refused (the
 * gateway says when one begins and ends): the work the platform does itself in consequence of what
 * it accepted (a webhook delivery, a run's payslips made by a reaction) is counted but never
 * refused, so accepted work is never left half done. The runtime asks the check on the asking node
 * and refuses on the owning node only where the command would create (ActorSystem.limitCreation):
 * an organisation at its cap still acts on the records it has.
 *
 * A request is all or nothing under the cap: it is decided once, at its first create (or before
 * its handler, by admit(), where the operation says up front how many records it makes), before
 * it has made anything. Admitted, it holds as many records as it said (one when it said nothing)
 * until it ends or they are counted, so requests admitted at once cannot together pass the cap,
 * and none of its later creates is refused; refused, every create it asks is refused.
 */
import { BoundedMap, type AskOptions, type Committed, type Figure } from '../runtime/index.ts';
import type { FeedEntry } from '../stores/index.ts';
import type { Platform } from './area.ts';
import { NodeReadModel } from './journal-feeds.ts';
import { MEMBERSHIP } from './membership.ts';
import { SandboxBudget } from './sandbox-budget.ts';
import { type LoadedSandboxPolicy, sandboxPolicy } from './sandbox-policy.ts';
import { serviceKey } from './services.ts';

/** Records the feed handed over that are kept to meet their own commit: far more than a commit waits between its append and its listeners. */
const FED_KEPT = 16_384;

interface InFlight {
  org: string;
  /** The records it says it makes, less those counted since it was admitted. */
  records: number;
  /** Undecided until its first create (or admit()); then admitted (true) or refused (false) whole. */
  decided: boolean | undefined;
  /** Slots of the cluster's budget it took when admitted (sandbox-budget.ts), and creates it asked since. */
  taken: number;
  asked: number;
  why?: string;
}

export class SandboxCaps {
  readonly policy: LoadedSandboxPolicy;
  /** Records made per organisation. */
  private readonly records = new Map<string, number>();
  /** Records this node's commits made that the feed has not yet handed over (durable stores): counted once. */
  private readonly unread = new Set<string>();
  /**
   * Streams whose first event the feed handed over most recently (durable stores): at least
   * FED_KEPT of them, in two generations, so letting the oldest go costs nothing per record even
   * when a start reads millions (runtime/bounded.ts says why a FIFO Set does not).
   */
  private readonly fed = new BoundedMap<string, true>(FED_KEPT);
  /** Sandbox requests in flight on this node, by request id. */
  private readonly requests = new Map<string, InFlight>();
  /** Records held by admitted requests in flight on this node, per organisation, not yet counted. */
  private readonly held = new Map<string, number>();
  private readonly follower: NodeReadModel;
  /** In a cluster: the slots of each organisation's budget this node took (sandbox-budget.ts). */
  private readonly budget: SandboxBudget | undefined;
  private unboard: (() => void) | undefined;

  constructor(private readonly platform: Platform) {
    this.policy = sandboxPolicy(platform.config.SANDBOX_POLICY_FILE ?? process.env.SANDBOX_POLICY_FILE);
    if (platform.stores.mode === 'cluster') {
      const nodes = () => platform.services.get(MEMBERSHIP)?.liveCount?.() ?? 1;
      this.budget = new SandboxBudget(platform.stores.kv, platform.clock, () => this.policy.pack.records, (org) => this.recordsOf(org), nodes);
    }
    this.follower = new NodeReadModel(platform, 'sandbox-records', {
      onCommit: (c) => this.onCommit(c),
      onFeed: (e) => this.onFeed(e),
      // the counts, and the records counted from their commit whose entry the feed has not read yet
      kept: { save: () => ({ records: [...this.records], unread: [...this.unread] }), load: (d) => this.load(d as { records: [string, number][]; unread: string[] }) },
      // a record counts from its first event: a later record of a stream is never read
      wants: (_stream, from) => from === 1,
    });
  }

  start(): void {
    this.follower.start();
    this.platform.system.limitCreation((opts) => this.refusal(opts));
    this.unboard = this.platform.system.board.add('sandbox-records', () => this.figures());
  }

  async stop(): Promise<void> {
    this.platform.system.limitCreation(undefined);
    this.unboard?.();
    await this.follower.stop();
  }

  /** For the metrics (docs/gaps.md#metrics): how many organisations are at their cap, never which. */
  private figures(): Figure[] {
    let full = 0;
    for (const n of this.records.values()) if (n >= this.policy.pack.records) full++;
    return [{ name: 'platform_sandbox_organisations_at_record_cap', help: 'Organisations whose sandbox holds as many records as the sandbox policy allows, as this node counts them.', type: 'gauge', value: full }];
  }

  /** Records made in `org` as this node knows them. */
  recordsOf(org: string): number {
    return this.records.get(org) ?? 0;
  }

  /**
   * A request made with a sandbox credential of `org` began: its creates are held to the cap until
   * it ends, as one record's unless admit() says how many it makes.
   */
  began(requestId: string, org: string): void {
    this.requests.set(requestId, { org, records: 1, decided: undefined, taken: 0, asked: 0 });
  }

  ended(requestId: string): void {
    const r = this.requests.get(requestId);
    if (r === undefined) return;
    this.requests.delete(requestId);
    // slots it took and did not spend (a create asked counts as spent) go back to this node's
    this.budget?.giveBack(r.org, r.taken - (r.decided === true ? r.asked : 0));
    if (r.decided !== true) return;
    this.release(r, r.records);
  }

  /**
   * In a cluster, before a sandbox request runs: this node takes slots of the organisation's
   * budget for what it makes (`records` where the operation counts them up front, else one), so
   * its decision needs no round trip. Elsewhere nothing to wait for (undefined).
   */
  prepare(requestId: string, records: number | undefined): Promise<void> | undefined {
    const r = this.requests.get(requestId);
    if (r === undefined || this.budget === undefined || r.decided !== undefined) return undefined;
    if (records !== undefined) r.records = Math.max(1, records);
    const need = r.records - r.taken;
    if (need <= 0) return undefined;
    return this.budget.acquire(r.org, need).then((n) => void (r.taken += n));
  }

  /**
   * Decides a request before it makes anything, knowing it makes `records` (the gateway asks
   * before the handler of an operation the sandbox policy counts up front): the reason it is
   * refused, or nothing when it goes ahead, holding them.
   */
  admit(requestId: string, records: number): string | undefined {
    const r = this.requests.get(requestId);
    if (r === undefined) return undefined;
    if (r.decided === undefined) r.records = Math.max(1, records);
    return this.decide(r);
  }

  private refusal(opts: AskOptions): string | undefined {
    if (opts.requestId === undefined) return undefined;
    const r = this.requests.get(opts.requestId);
    if (r === undefined || r.org !== opts.org) return undefined;
    const why = this.decide(r);
    if (why === undefined) r.asked++;
    return why;
  }

  private decide(r: InFlight): string | undefined {
    if (r.decided === undefined) {
      const made = this.records.get(r.org) ?? 0;
      const held = this.held.get(r.org) ?? 0;
      // in a cluster, also only against slots of the shared budget it took before it ran
      // (prepare): the count here learns the other nodes' records late
      const fits = made + held + r.records <= this.policy.pack.records;
      r.decided = fits && (this.budget === undefined || r.taken >= r.records);
      if (r.decided) this.held.set(r.org, held + r.records);
      else r.why = this.why(made, held, r.records, fits);
    }
    return r.decided ? undefined : r.why;
  }

  private why(made: number, held: number, records: number, fits: boolean): string {
    const cap = this.policy.pack.records;
    const what = records === 1 ? 'the record this request would create' : `the ${records} records this request would create`;
    // in a cluster the other nodes' requests in flight take their share of what is left (sandbox-budget.ts)
    const others = held > 0 ? ` (and ${held} more that requests in flight are making)` : fits ? ' (and more that requests in flight on other nodes are making)' : '';
    return `This organisation's sandbox holds ${made} records${others} and its sandbox policy (${this.policy.pack.version}) allows ${cap}; ${what} would pass it, so nothing was created. Records already made can still be read and acted on.`;
  }

  /** An admitted request's records stop being held: `n` of them are counted now, or it ended. */
  private release(r: InFlight, n: number): void {
    const take = Math.min(n, r.records);
    if (take <= 0) return;
    r.records -= take;
    const left = (this.held.get(r.org) ?? 0) - take;
    if (left > 0) this.held.set(r.org, left);
    else this.held.delete(r.org);
  }

  private onCommit(c: Committed): void {
    if (c.events.length === 0 || c.events[0]!.version !== 1 || this.platform.system.kind(c.kind).ephemeral) return;
    if (!this.platform.stores.durable) return this.add(c.org, c.events[0]!.requestId);
    if (this.fed.delete(c.stream)) return;
    this.add(c.org, c.events[0]!.requestId);
    this.unread.add(c.stream);
  }

  private onFeed(entries: FeedEntry[]): void {
    for (const { stream, event } of entries) {
      if (event.version !== 1 || this.unread.delete(stream)) continue;
      this.add(event.org, event.requestId);
      // where a commit's listeners run after its append (cluster), the feed may hand a record
      // over before them: kept a while, so that commit does not count it again
      this.fed.set(stream, true);
    }
  }

  private load(d: { records: [string, number][]; unread: string[] }): void {
    for (const [org, n] of d.records) this.records.set(org, (this.records.get(org) ?? 0) + n);
    for (const stream of d.unread) this.unread.add(stream);
  }

  /** A record made, counted once whether its commit or the feed told of it first. */
  private add(org: string, requestId: string | undefined): void {
    this.records.set(org, (this.records.get(org) ?? 0) + 1);
    // a record an admitted request in flight here made is counted from now, so it no longer holds it
    const r = requestId === undefined ? undefined : this.requests.get(requestId);
    if (r?.decided === true && r.org === org) this.release(r, 1);
  }
}

export const SANDBOX_CAPS = serviceKey<SandboxCaps>('sandbox-caps');

/** The platform's sandbox caps (createPlatform provides them). */
export const sandboxCaps = (platform: Platform): SandboxCaps => platform.services.require(SANDBOX_CAPS);
