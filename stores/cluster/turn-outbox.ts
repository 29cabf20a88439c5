/**
 * What a node publishes on one NATS connection in one event-loop turn, written as one buffer.
 * nats.js writes what is published in one synchronous run together, and Node runs the microtasks
 * (where nats.js flushes) after each immediate callback: journal appends and remote asks and
 * answers, each batched in an immediate of its own, were a socket write each per turn. One
 * immediate per connection runs every send queued in the turn, so the turn costs one write.
 */
import type { NatsConnection } from '@nats-io/transport-node';

const outboxes = new WeakMap<NatsConnection, TurnOutbox>();

class TurnOutbox {
  private sends: Array<() => void> = [];

  push(send: () => void): void {
    this.sends.push(send);
    if (this.sends.length === 1) setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    const batch = this.sends;
    this.sends = [];
    // each send handles its own failure; one that throws all the same cannot keep the others unsent
    for (const send of batch) {
      try {
        send();
      } catch (e) {
        console.error('[stores] a NATS send at the end of a turn failed', e);
      }
    }
  };
}

/** Runs `send` (publishes on `nc`, catching their own errors) at the end of this turn, with the turn's other sends on `nc`. */
export function atTurnEnd(nc: NatsConnection, send: () => void): void {
  let o = outboxes.get(nc);
  if (!o) outboxes.set(nc, (o = new TurnOutbox()));
  o.push(send);
}
