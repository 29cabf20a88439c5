/**
 * Runs webhook attempts: for each attempt a delivery actor starts (delivery.attempt_started), sign
 * the exact stored bytes with every secret active now, POST them, and report the outcome back to
 * the actor, which decides what follows (delivery.ts). Attempts wait in a fair queue
 * (fair-queue.ts): organisations take turns, with caps on attempts in flight in all, per
 * organisation and per endpoint, so one organisation's dead or slowly resolving receivers
 * (every attempt waiting out its 5 s) cannot take the capacity of the others; host names
 * resolve through c-ares with a share of lookups per organisation (resolve.ts). Each attempt is
 * tracked by the actor system, so `system.settle()` waits for in-flight HTTP before a test moves
 * the manual clock.
 *
 * The queue is not capped: a burst of events waits its turn and is sent as the receiver answers.
 * What bounds it is the attempt's watchdog (delivery.ts): an attempt still queued when its answer
 * could no longer come back before the watchdog fires is not sent; the watchdog counts it as a
 * timeout and the retry ladder takes over (spec 6.3). So a queued attempt is never sent after its
 * delivery moved on (no second send of a superseded attempt), and no signature older than the
 * watchdog leaves (spec 6.2's receivers refuse one older than five minutes). A queued attempt holds
 * ids only; the bytes are read from the delivery when it is sent, and an attempt the delivery no
 * longer has in flight is dropped then.
 *
 * stop() (the process is stopping) takes no more attempts, drops those queued and abandons those
 * in flight without recording an outcome: each delivery stays in flight under its durable
 * watchdog reminder, which after a restart counts the attempt as a timeout and puts it back on the
 * retry ladder. Nothing is failed by a shutdown.
 */
import { logOf, type Platform } from '../../kernel/index.ts';
import { allowsPrivateNetworks } from './address-policy.ts';
import { ATTEMPT_WATCHDOG_MS, type AttemptOutcome, type DeliveryState, WebhookDelivery } from './delivery.ts';
import { activeSecrets, WebhookEndpoint, type EndpointState } from './endpoint.ts';
import { FairQueue, type FairLimits } from './fair-queue.ts';
import { dnsServers, HostResolver, WEBHOOK_RESOLVER } from './resolve.ts';
import { ABANDONED, type Abandonable, post, RECEIVER_TIMEOUT_MS } from './sender.ts';
import { SIGNATURE_HEADER, signatureHeader } from './webhook-signature.ts';

export interface AttemptJob {
  org: string;
  deliveryId: string;
  endpointId: string;
  attempt: number;
  /** Commit time of delivery.attempt_started: the attempt's own instant, which it signs. */
  at: number;
}

export interface DispatcherOptions extends FairLimits {
  timeoutMs: number;
  /** The delivery's watchdog (delivery.ts ATTEMPT_WATCHDOG_MS): an attempt that cannot be answered before it is left to it. */
  watchdogMs: number;
  /** New host names resolved at once per organisation. */
  lookupsPerOrganisation: number;
  /** DNS servers for webhook hosts (`ip` or `ip:port`); the system's when empty. */
  dnsServers: string[];
}

export const DEFAULT_DISPATCHER: DispatcherOptions = {
  total: 256, perOrganisation: 32, perEndpoint: 16, lookupsPerOrganisation: 4, dnsServers: [],
  timeoutMs: RECEIVER_TIMEOUT_MS, watchdogMs: ATTEMPT_WATCHDOG_MS,
};

function positiveInt(v: string | undefined, fallback: number): number {
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** The WEBHOOK_* settings (docs/gaps.md#delivery), else the defaults. */
export const dispatcherOptions = (config: Platform['config']): DispatcherOptions => ({
  ...DEFAULT_DISPATCHER,
  timeoutMs: positiveInt(config.WEBHOOK_RECEIVER_TIMEOUT_MS, DEFAULT_DISPATCHER.timeoutMs),
  total: positiveInt(config.WEBHOOK_CONCURRENCY, DEFAULT_DISPATCHER.total),
  perOrganisation: positiveInt(config.WEBHOOK_CONCURRENCY_PER_ORGANISATION, DEFAULT_DISPATCHER.perOrganisation),
  perEndpoint: positiveInt(config.WEBHOOK_CONCURRENCY_PER_ENDPOINT, DEFAULT_DISPATCHER.perEndpoint),
  lookupsPerOrganisation: positiveInt(config.WEBHOOK_LOOKUPS_PER_ORGANISATION, DEFAULT_DISPATCHER.lookupsPerOrganisation),
  dnsServers: dnsServers(config.WEBHOOK_DNS_SERVERS),
});

/** Attempts left to the watchdog are logged at most once a minute, with their count. */
const LEFT_LOG_EVERY_MS = 60_000;

/** Tallies read by the metrics at scrape time (docs/gaps.md#metrics). */
export interface AttemptTallies {
  /** Attempts sent, by outcome: `2xx`, `non_2xx`, a spec 2.12 fault, or `refused` (the address rule). */
  outcomes: Record<'2xx' | 'non_2xx' | 'timeout' | 'dns_failure' | 'refused_connection' | 'refused', number>;
  /** Attempts not sent because they could no longer be answered before their watchdog. */
  leftToWatchdog: number;
  /** Attempts given up as the process stopped. */
  abandoned: number;
}

export class AttemptDispatcher {
  private readonly queue: FairQueue<AttemptJob>;
  /** Attempts submitted and not yet ended (queued, or sent and not yet reported). */
  private pending = 0;
  /**
   * While any is pending, one promise the actor system tracks (settle() waits for it), resolved
   * when the last ends: one for a run of attempts rather than one per attempt.
   */
  private busy: { done: Promise<void>; end: () => void } | undefined;
  /** Attempts sent and not yet answered, given up by stop(). */
  private readonly live = new Set<Abandonable>();
  private readonly resolver: HostResolver;
  private stopped = false;
  /** Attempts left to the watchdog since the last log line, and when that line was written. */
  private left = 0;
  private loggedAt = -Infinity;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: development and tests only (README "Configuration"). */
  private readonly allowPrivate: boolean;
  readonly tallies: AttemptTallies = { outcomes: { '2xx': 0, non_2xx: 0, timeout: 0, dns_failure: 0, refused_connection: 0, refused: 0 }, leftToWatchdog: 0, abandoned: 0 };

  constructor(private readonly platform: Platform, private readonly opts: DispatcherOptions = dispatcherOptions(platform.config)) {
    this.allowPrivate = allowsPrivateNetworks(platform.config);
    this.queue = new FairQueue(opts);
    // Half the attempt's budget: what is left still lets the receiver answer.
    this.resolver = new HostResolver({ servers: opts.dnsServers, budgetMs: Math.floor(opts.timeoutMs / 2), perOrganisation: opts.lookupsPerOrganisation, now: () => platform.clock.now() });
  }

  submit(job: AttemptJob): void {
    if (this.stopped) return;
    if (this.pending++ === 0) {
      let end!: () => void;
      const done = new Promise<void>((r) => (end = r));
      this.busy = { done, end };
      void this.platform.system.track(done);
    }
    this.queue.push(job.org, job.endpointId, job);
    this.pump();
  }

  /** An attempt submitted has ended, reported or not. */
  private ended(): void {
    if (--this.pending > 0) return;
    const busy = this.busy;
    this.busy = undefined;
    busy?.end();
  }

  /** Takes no more attempts, drops the queued ones and abandons those in flight (see the header). */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    const queued = this.queue.drain();
    const running = this.queue.running;
    for (let i = 0; i < queued.length; i++) this.ended();
    this.tallies.abandoned += queued.length;
    for (const a of [...this.live]) a.abandon();
    this.resolver.cancel();
    if (queued.length + running > 0) logOf('delivery').info('stopping: webhook attempts left to their watchdog reminders, retried after a restart', { queued: queued.length, in_flight: running });
  }

  get idle(): boolean {
    return this.pending === 0;
  }

  /** Attempts waiting their turn and in flight, and DNS queries sent (the metrics read them). */
  get depth(): { queued: number; inFlight: number; dnsQueries: number } {
    return { queued: this.queue.depth, inFlight: this.queue.running, dnsQueries: this.resolver.queries };
  }

  /** Resolves when every attempt submitted so far has finished and reported. */
  async finished(): Promise<void> {
    while (this.busy) await this.busy.done;
  }

  private pump(): void {
    for (let s = this.queue.next(); s !== undefined; s = this.queue.next()) {
      const { org, endpoint, job } = s;
      const stopping = this.stopped || this.platform.system.stopping;
      if (stopping || !this.answerable(job)) {
        if (stopping) this.tallies.abandoned++;
        else this.leftToWatchdog();
        this.queue.done(org, endpoint);
        this.ended();
        continue;
      }
      void this.attempt(job).finally(() => {
        this.queue.done(org, endpoint);
        this.ended();
        this.pump();
      });
    }
  }

  /** Whether the attempt's answer can still come back before its watchdog fires. */
  private answerable(job: AttemptJob): boolean {
    return this.platform.clock.now() - job.at + this.opts.timeoutMs < this.opts.watchdogMs;
  }

  private leftToWatchdog(): void {
    this.left++;
    this.tallies.leftToWatchdog++;
    const now = this.platform.clock.now();
    if (now - this.loggedAt < LEFT_LOG_EVERY_MS) return;
    logOf('delivery').warn('attempts waited too long in their queue to be answered before their watchdog; they are left to it (a timeout, then the retry ladder)', { attempts: this.left });
    this.left = 0;
    this.loggedAt = now;
  }

  private async attempt(job: AttemptJob): Promise<void> {
    const { system } = this.platform;
    const opts = { org: job.org, principal: 'system', lane: 'system' as const, noReply: true };
    try {
      const [endpoint, delivery] = await Promise.all([
        system.state<EndpointState>(WebhookEndpoint, job.endpointId, job.org),
        system.state<DeliveryState>(WebhookDelivery, job.deliveryId, job.org),
      ]);
      // The delivery moved on while this attempt waited (its watchdog fired): never sent twice.
      if (delivery.status !== 'in_flight' || delivery.attempts !== job.attempt || !delivery.seed) return;
      if (endpoint.status === 'disabled') {
        await system.ask(WebhookDelivery, job.deliveryId, 'abandon', { attempt: job.attempt }, opts);
        return;
      }
      const now = job.at;
      const body = delivery.seed.body; // signed and sent as its UTF-8 bytes
      // Spec 6.2-6.3: every attempt signs its own timestamp, with each active secret.
      const header = signatureHeader(activeSecrets(endpoint, now).map((s) => s.secret), Math.floor(now / 1000), body);
      const resolve = this.platform.services.get(WEBHOOK_RESOLVER) ?? this.resolver.resolve;
      const result = this.stopped ? ABANDONED : await post(endpoint.url, body, { [SIGNATURE_HEADER]: header }, { timeoutMs: this.opts.timeoutMs, allowPrivate: this.allowPrivate, resolve, org: job.org, live: this.live });
      if (result === ABANDONED) {
        this.tallies.abandoned++;
        return;
      }
      const outcome: AttemptOutcome = { attempt: job.attempt, status: result.status, fault: result.fault, signature_header: header };
      this.tally(outcome, result.fault !== null && result.refused !== undefined);
      if (result.fault !== null && result.refused !== undefined) {
        // docs/gaps.md#delivery: a refused address is a failed attempt on the usual ladder; the reason is kept in the journal.
        outcome.refused = result.refused;
        logOf('delivery').warn('attempt refused', { delivery: job.deliveryId, attempt: job.attempt, refused: result.refused });
      }
      await system.ask(WebhookDelivery, job.deliveryId, 'record_attempt', outcome, opts);
    } catch (e) {
      // The outcome could not be recorded (node stopping, store down): the watchdog reminder
      // counts the attempt as a timeout and the ladder goes on. Stopping is expected, not a fault.
      if (this.stopped || system.stopping) return;
      logOf('delivery').error('attempt not recorded', e, { delivery: job.deliveryId, attempt: job.attempt });
    }
  }

  private tally(o: AttemptOutcome, refused: boolean): void {
    const t = this.tallies.outcomes;
    if (refused) t.refused++;
    else if (o.fault === null) t[o.status !== null && o.status >= 200 && o.status < 300 ? '2xx' : 'non_2xx']++;
    else t[o.fault === 'timeout' ? 'timeout' : o.fault === 'DNS failure' ? 'dns_failure' : 'refused_connection']++;
  }
}
