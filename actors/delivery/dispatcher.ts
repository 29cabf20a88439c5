/**
 * Runs webhook attempts: for each attempt a delivery actor starts (delivery.attempt_started), sign
 * the exact stored bytes with every secret active now, POST them, and report the outcome back to
 * the actor, which decides what follows (delivery.ts). Attempts queue per endpoint with a bounded
 * number in flight, so one dead receiver (every attempt waiting out its 5 s) cannot take the
 * capacity of the others. Each attempt is tracked by the actor system, so `system.settle()` waits
 * for in-flight HTTP before a test moves the manual clock.
 */
import type { Platform } from '../../kernel/index.ts';
import { allowsPrivateNetworks } from './address-policy.ts';
import { WebhookDelivery, type AttemptOutcome } from './delivery.ts';
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
  body: string;
}

export interface DispatcherOptions {
  /** Attempts in flight per endpoint. */
  perEndpoint: number;
  /** Attempts waiting per endpoint; beyond it an attempt is left to the watchdog reminder. */
  queueLimit: number;
  timeoutMs: number;
}

export const DEFAULT_DISPATCHER: DispatcherOptions = { perEndpoint: 16, queueLimit: 10_000, timeoutMs: RECEIVER_TIMEOUT_MS };

interface Lane {
  active: number;
  queue: Array<{ job: AttemptJob; done: () => void }>;
}

export class AttemptDispatcher {
  private readonly lanes = new Map<string, Lane>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: development and tests only (README "Configuration"). */
  private readonly allowPrivate: boolean;

  constructor(private readonly platform: Platform, private readonly opts: DispatcherOptions = DEFAULT_DISPATCHER) {
    this.allowPrivate = allowsPrivateNetworks(platform.config);
  }

  submit(job: AttemptJob): void {
    if (this.stopped) return;
    let lane = this.lanes.get(job.endpointId);
    if (!lane) this.lanes.set(job.endpointId, (lane = { active: 0, queue: [] }));
    if (lane.queue.length >= this.opts.queueLimit) {
      console.error(`[delivery] attempt queue of ${job.endpointId} is full; ${job.deliveryId} attempt ${job.attempt} is left to its watchdog`);
      return;
    }
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
      lane.active++;
      void this.attempt(job).finally(() => {
        lane.active--;
        done();
        if (lane.queue.length > 0) this.pump(endpointId, lane);
        else if (lane.active === 0) this.lanes.delete(endpointId);
      });
    }
  }

  private async attempt(job: AttemptJob): Promise<void> {
    const { system } = this.platform;
    const opts = { org: job.org, principal: 'system', lane: 'system' as const, noReply: true };
    try {
      const endpoint = await system.state<EndpointState>(WebhookEndpoint, job.endpointId, job.org);
      if (endpoint.status === 'disabled') {
        await system.ask(WebhookDelivery, job.deliveryId, 'abandon', { attempt: job.attempt }, opts);
        return;
      }
      const now = job.at;
      const body = Buffer.from(job.body, 'utf8');
      // Spec 6.2-6.3: every attempt signs its own timestamp, with each active secret.
      const header = signatureHeader(activeSecrets(endpoint, now).map((s) => s.secret), Math.floor(now / 1000), body);
      const resolve = this.platform.services.get(WEBHOOK_RESOLVER) ?? systemResolve;
      const result = await post(endpoint.url, body, { [SIGNATURE_HEADER]: header }, { timeoutMs: this.opts.timeoutMs, allowPrivate: this.allowPrivate, resolve });
      const outcome: AttemptOutcome = { attempt: job.attempt, status: result.status, fault: result.fault, signature_header: header };
      if (result.fault !== null && result.refused !== undefined) {
        // docs/gaps.md#delivery: a refused address is a failed attempt on the usual ladder; the reason is kept in the journal.
        outcome.refused = result.refused;
        console.warn(`[delivery] attempt ${job.attempt} of ${job.deliveryId} refused: ${result.refused}`);
      }
      await system.ask(WebhookDelivery, job.deliveryId, 'record_attempt', outcome, opts);
    } catch (e) {
      // The outcome could not be recorded (node stopping, store down): the watchdog reminder
      // counts the attempt as a timeout and the ladder goes on.
      console.error(`[delivery] attempt ${job.attempt} of ${job.deliveryId} not recorded`, e);
    }
  }
}
