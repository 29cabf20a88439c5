/**
 * Runs webhook attempts: for each attempt a delivery actor starts (delivery.attempt_started), sign
 * the exact stored bytes with every secret active now, POST them, and report the outcome back to
 * the actor, which decides what follows (delivery.ts). Attempts queue per endpoint with a bounded
 * number in flight, so one dead receiver (every attempt waiting out its 5 s) cannot take the
 * capacity of the others. Each attempt is tracked by the actor system, so `system.settle()` waits
 * for in-flight HTTP before a test moves the manual clock.
 *
 * The queue is not capped: a burst of events waits its turn and is sent as the receiver answers.
 * What bounds it is the attempt's watchdog (delivery.ts): an attempt still queued when its answer
 * could no longer come back before the watchdog fires is not sent; the watchdog counts it as a
 * timeout and the retry ladder takes over (spec 6.3). So a queued attempt is never sent after its
 * delivery moved on (no second send of a superseded attempt), and no signature older than the
 * watchdog leaves (spec 6.2's receivers refuse one older than five minutes). A queued attempt holds
 * ids only; the bytes are read from the delivery when it is sent, and an attempt the delivery no
 * longer has in flight is dropped then.
 */
import { logOf, type Platform } from '../../kernel/index.ts';
import { allowsPrivateNetworks } from './address-policy.ts';
import { ATTEMPT_WATCHDOG_MS, type AttemptOutcome, type DeliveryState, WebhookDelivery } from './delivery.ts';
import { activeSecrets, WebhookEndpoint, type EndpointState } from './endpoint.ts';
import { systemResolve, WEBHOOK_RESOLVER } from './resolve.ts';
import { post, RECEIVER_TIMEOUT_MS } from './sender.ts';
import { SIGNATURE_HEADER, signatureHeader } from './webhook-signature.ts';

export interface AttemptJob {
  org: string;
  deliveryId: string;
  endpointId: string;
  attempt: number;
  /** Commit time of delivery.attempt_started: the attempt's own instant, which it signs. */
  at: number;
}

export interface DispatcherOptions {
  /** Attempts in flight per endpoint. */
  perEndpoint: number;
  timeoutMs: number;
  /** The delivery's watchdog (delivery.ts ATTEMPT_WATCHDOG_MS): an attempt that cannot be answered before it is left to it. */
  watchdogMs: number;
}

export const DEFAULT_DISPATCHER: DispatcherOptions = { perEndpoint: 16, timeoutMs: RECEIVER_TIMEOUT_MS, watchdogMs: ATTEMPT_WATCHDOG_MS };

function positiveInt(v: string | undefined, fallback: number): number {
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** WEBHOOK_RECEIVER_TIMEOUT_MS and WEBHOOK_CONCURRENCY_PER_ENDPOINT (README "Configuration"), else the defaults. */
export const dispatcherOptions = (config: Platform['config']): DispatcherOptions => ({
  ...DEFAULT_DISPATCHER,
  timeoutMs: positiveInt(config.WEBHOOK_RECEIVER_TIMEOUT_MS, DEFAULT_DISPATCHER.timeoutMs),
  perEndpoint: positiveInt(config.WEBHOOK_CONCURRENCY_PER_ENDPOINT, DEFAULT_DISPATCHER.perEndpoint),
});

/** Attempts left to the watchdog are logged at most once a minute per endpoint, with their count. */
const LEFT_LOG_EVERY_MS = 60_000;

interface Lane {
  active: number;
  queue: Array<{ job: AttemptJob; done: () => void }>;
  /** Attempts left to the watchdog since the last log line, and when that line was written. */
  left: number;
  loggedAt: number;
}

export class AttemptDispatcher {
  private readonly lanes = new Map<string, Lane>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: development and tests only (README "Configuration"). */
  private readonly allowPrivate: boolean;

  constructor(private readonly platform: Platform, private readonly opts: DispatcherOptions = dispatcherOptions(platform.config)) {
    this.allowPrivate = allowsPrivateNetworks(platform.config);
  }

  submit(job: AttemptJob): void {
    if (this.stopped) return;
    let lane = this.lanes.get(job.endpointId);
    if (!lane) this.lanes.set(job.endpointId, (lane = { active: 0, queue: [], left: 0, loggedAt: -Infinity }));
    const l = lane;
    const p = new Promise<void>((done) => {
      l.queue.push({ job, done });
      this.pump(job.endpointId, l);
    });
    this.inFlight.add(p);
    void p.then(() => this.inFlight.delete(p));
    void this.platform.system.track(p);
  }

  stop(): void {
    this.stopped = true;
  }

  get idle(): boolean {
    return this.inFlight.size === 0;
  }

  /** Resolves when every attempt submitted so far has finished and reported. */
  async finished(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private pump(endpointId: string, lane: Lane): void {
    while (lane.active < this.opts.perEndpoint && lane.queue.length > 0) {
      const { job, done } = lane.queue.shift()!;
      if (!this.answerable(job)) {
        this.leftToWatchdog(endpointId, lane);
        done();
        continue;
      }
      lane.active++;
      void this.attempt(job).finally(() => {
        lane.active--;
        done();
        if (lane.queue.length > 0) this.pump(endpointId, lane);
        else if (lane.active === 0) this.lanes.delete(endpointId);
      });
    }
  }

  /** Whether the attempt's answer can still come back before its watchdog fires. */
  private answerable(job: AttemptJob): boolean {
    return this.platform.clock.now() - job.at + this.opts.timeoutMs < this.opts.watchdogMs;
  }

  private leftToWatchdog(endpointId: string, lane: Lane): void {
    lane.left++;
    const now = this.platform.clock.now();
    if (now - lane.loggedAt < LEFT_LOG_EVERY_MS) return;
    logOf('delivery').warn('attempts waited too long in their queue to be answered before their watchdog; they are left to it (a timeout, then the retry ladder)', { endpoint: endpointId, attempts: lane.left });
    lane.left = 0;
    lane.loggedAt = now;
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
      const resolve = this.platform.services.get(WEBHOOK_RESOLVER) ?? systemResolve;
      const result = await post(endpoint.url, body, { [SIGNATURE_HEADER]: header }, { timeoutMs: this.opts.timeoutMs, allowPrivate: this.allowPrivate, resolve });
      const outcome: AttemptOutcome = { attempt: job.attempt, status: result.status, fault: result.fault, signature_header: header };
      if (result.fault !== null && result.refused !== undefined) {
        // docs/gaps.md#delivery: a refused address is a failed attempt on the usual ladder; the reason is kept in the journal.
        outcome.refused = result.refused;
        logOf('delivery').warn('attempt refused', { delivery: job.deliveryId, attempt: job.attempt, refused: result.refused });
      }
      await system.ask(WebhookDelivery, job.deliveryId, 'record_attempt', outcome, opts);
    } catch (e) {
      // The outcome could not be recorded (node stopping, store down): the watchdog reminder
      // counts the attempt as a timeout and the ladder goes on.
      logOf('delivery').error('attempt not recorded', e, { delivery: job.deliveryId, attempt: job.attempt });
    }
  }
}
