/**
 * JetStream publishes whose acknowledgements come back through one inbox subscription: a publish
 * carries the reply subject `<inbox>.<token>` and waits in a map by token for the server's PubAck.
 * nats.js's own `js.publish` goes through `nc.request`, which makes a request object, a timer and,
 * however the request ends, an Error with its stack trace: per journal append, the largest single
 * share of a cluster node's CPU when commands travel through three nodes. Here a publish costs a
 * map entry, a headers object and one promise; deadlines are swept by one timer.
 *
 * Publishes are written together once per event-loop turn, with the connection's other sends of
 * the turn (turn-outbox.ts): appends made from separate promise continuations would each become
 * a socket write of their own.
 *
 * The errors keep the names nats.js gives them (TimeoutError, NoRespondersError,
 * ClosedConnectionError, JetStreamApiError with the server's error code), so a store fault is
 * recognised as one (stores/faults.ts) and a refused expectation reads as before.
 */
import { createInbox, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { atTurnEnd } from './turn-outbox.ts';

/** How long a publish waits for its acknowledgement (nats.js's JetStream default). */
export const ACK_TIMEOUT_MS = 5_000;
/** How often waiting publishes are checked against their deadline. */
const SWEEP_MS = 500;

const EXPECTED_LAST_SUBJECT_SEQUENCE = 'Nats-Expected-Last-Subject-Sequence';

export interface PubAck {
  stream: string;
  seq: number;
  duplicate?: boolean;
}

/**
 * The one header an append carries, as the bytes the client writes: nats.js reads a publish's
 * headers only through encode(), and its headers object checks and canonicalises the key and
 * builds a map on every append for a line that is the same but for its number.
 */
function expectation(lastSubjectSequence: number): MsgHdrs {
  const bytes = Buffer.from(`NATS/1.0\r\n${EXPECTED_LAST_SUBJECT_SEQUENCE}: ${lastSubjectSequence}\r\n\r\n`, 'latin1');
  return { encode: () => bytes } as unknown as MsgHdrs;
}

/** An error named as nats.js names it, so isStoreFault and the callers' checks read it alike. */
function named(name: string, message: string, code?: number): Error {
  const e = new Error(message) as Error & { code?: number };
  e.name = name;
  if (code !== undefined) e.code = code;
  return e;
}

interface Waiting {
  resolve(ack: PubAck): void;
  reject(err: Error): void;
  deadline: number;
}

interface Outgoing {
  subject: string;
  data: Uint8Array;
  token: number;
  expectedLastSubjectSequence: number | undefined;
}

export class PublishAcks {
  private readonly inbox: string;
  private readonly waiting = new Map<number, Waiting>();
  private sub: Subscription | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private next = 0;
  private outbox: Outgoing[] = [];

  constructor(
    private readonly nc: NatsConnection,
    private readonly now: () => number = Date.now,
    private readonly timeoutMs = ACK_TIMEOUT_MS,
  ) {
    this.inbox = createInbox();
  }

  /** Publishes `data` to `subject` (a stream's subject) and resolves with the server's acknowledgement. */
  publish(subject: string, data: Uint8Array, expectedLastSubjectSequence?: number): Promise<PubAck> {
    if (this.nc.isClosed()) return Promise.reject(named('ClosedConnectionError', 'closed connection'));
    this.listen();
    return new Promise((resolve, reject) => {
      const token = this.next++;
      this.waiting.set(token, { resolve, reject, deadline: this.now() + this.timeoutMs });
      this.outbox.push({ subject, data, token, expectedLastSubjectSequence });
      if (this.outbox.length === 1) atTurnEnd(this.nc, this.flush);
    });
  }

  private listen(): void {
    if (this.sub) return;
    const sub = this.nc.subscribe(`${this.inbox}.*`, {
      callback: (err, msg) => {
        if (!err) this.settle(msg);
      },
    });
    this.sub = sub;
    // The connection closed under the subscription: nothing waiting can be answered any more.
    void sub.closed.then(() => {
      if (this.sub !== sub) return;
      this.sub = undefined;
      clearInterval(this.sweeper);
      this.sweeper = undefined;
      this.failAll(named('ClosedConnectionError', 'closed connection'));
    });
    this.sweeper = setInterval(this.sweep, SWEEP_MS);
    this.sweeper.unref();
  }

  private readonly flush = (): void => {
    const batch = this.outbox;
    this.outbox = [];
    const prefix = `${this.inbox}.`;
    for (const o of batch) {
      try {
        const h = o.expectedLastSubjectSequence === undefined ? undefined : expectation(o.expectedLastSubjectSequence);
        this.nc.publish(o.subject, o.data, { reply: prefix + o.token, headers: h });
      } catch (e) {
        const w = this.waiting.get(o.token);
        this.waiting.delete(o.token);
        w?.reject(e as Error);
      }
    }
  };

  /** Publishes waiting for their acknowledgement (tests). */
  get size(): number {
    return this.waiting.size;
  }

  /** Fails the publishes past their deadline (a timer calls this every SWEEP_MS). */
  readonly sweep = (): void => {
    if (this.waiting.size === 0) return;
    const now = this.now();
    for (const [token, w] of this.waiting) {
      if (now < w.deadline) continue;
      this.waiting.delete(token);
      w.reject(named('TimeoutError', 'timeout'));
    }
  };

  private settle(msg: Msg): void {
    const token = Number(msg.subject.slice(this.inbox.length + 1));
    const w = this.waiting.get(token);
    if (!w) return; // answered after its deadline
    this.waiting.delete(token);
    if (msg.data.length === 0) {
      // a status without a body: nobody serves the subject (no stream holds it), or another status
      w.reject(msg.headers?.code === 503 ? named('NoRespondersError', `no responders: ${msg.subject}`) : named('JetStreamStatusError', `status ${msg.headers?.code ?? 'unknown'}`));
      return;
    }
    let ack: PubAck & { error?: { code: number; err_code: number; description: string } };
    try {
      ack = msg.json();
    } catch (e) {
      w.reject(named('JetStreamError', `invalid ack response: ${(e as Error).message}`));
      return;
    }
    if (ack.error) w.reject(named('JetStreamApiError', ack.error.description, ack.error.err_code));
    else if (!ack.stream) w.reject(named('JetStreamError', 'invalid ack response'));
    else w.resolve(ack);
  }

  private failAll(err: Error): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of all) w.reject(err);
  }
}
