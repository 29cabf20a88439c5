/**
 * The delivery's operation that needs I/O (spec 4.6; docs/gaps.md#sourcing): an attempt is posted
 * to its channel and the outcome reported back to the delivery, which decides what follows
 * (channel-delivery.ts). The sourcing service (service.ts) runs it when a delivery starts an attempt.
 */
import { logOf, type Platform } from '../../kernel/index.ts';
import { ChannelDelivery, type DeliveryState, type RecordAttempt } from './channel-delivery.ts';
import type { ChannelProvider } from './providers/channels.ts';

/**
 * Posts one attempt and records its outcome. The post is tracked by the actor system, so
 * `system.settle()` waits for it before a test moves the clock.
 */
export function postAttempt(platform: Platform, provider: ChannelProvider, org: string, id: string, s: DeliveryState, attempt: number): void {
  const seed = s.seed!;
  const system = platform.system;
  const done = provider
    .post({ channel_id: seed.channel_id, delivery_id: id, attempt, external_id: `${seed.requisition_id}.v${seed.requisition_version}`, text: seed.text })
    .then((o) => {
      const cmd: RecordAttempt = o.outcome === 'accepted' ? { attempt, outcome: o.outcome, detail: o.detail, external_ref: o.external_ref } : { attempt, outcome: o.outcome, detail: o.detail };
      return system.ask(ChannelDelivery, id, 'record_attempt', cmd, { org, principal: 'system', lane: 'system', dedupeId: `attempt:${attempt}`, noReply: true });
    })
    // an outcome that cannot be recorded (the node stopping) is left to the delivery's watchdog
    .catch((err) => {
      if (!system.stopping) logOf('sourcing').error('an attempt\'s outcome was not recorded; the delivery\'s watchdog counts it as a time-out', err, { delivery: id, attempt });
    });
  void system.track(done);
}
