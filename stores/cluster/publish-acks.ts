/**
 * JetStream publishes whose acknowledgements come back through one inbox subscription: a publish
 * carries the reply subject `<inbox>.<token>` and waits in a map by token for the server's PubAck.
 * nats.js's own `js.publish` goes through `nc.request`, which makes a request object, a timer and,
 * however the request ends, an Error with its stack trace: per journal append, the largest single
 * share of a cluster node's CPU when commands travel through three nodes. Here a publish costs a
 * map entry and one promise; deadlines are swept by one timer.
 *
 * Publishes are written together once per event-loop turn, with the connection's other sends of
 * the turn (turn-outbox.ts): appends made from separate promise continuations would each become
 * a socket write of their own. The turn's publishes are written as protocol frames (`HPUB` with
 * the expectation header, NATS client protocol) into one buffer handed to the client's outbound
 * queue (`Frames`): nats.js's publish() checks both subjects against a pattern, builds its
 * protocol line as a string, encodes it and queues three pieces per message, which cost more than
 * the message's share of the socket write. The client's checks that matter here are kept: a closed
 * or draining connection refuses, a message over the server's max_payload is refused alone, and
 * the client's message counts include these. A client without that queue gets nc.publish().
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

/** A stored publish: the stream sequence the server gave it. */
export interface PubAck {
  seq: number;
}

/** `{"stream":"`: the server's acknowledgement of a stored message begins so; an error begins `{"error"`. */
const STORED = Buffer.from('{"stream":"', 'latin1');
const SEQ_KEY = Buffer.from('"seq":', 'latin1');

/**
 * The sequence of an acknowledgement in the server's usual form, `{"stream":"<name>", "seq":<n>}`
 * (the 2.9 server writes the space), read from its bytes; undefined for any other form (an error,
 * a duplicate, a domain), which is parsed as JSON. Every append is acknowledged, and decoding and
 * parsing each as JSON was a measurable part of an append's cost on a busy node.
 */
export function storedSeq(data: Uint8Array): number | undefined {
  const n = data.length;
  if (n < STORED.length + 9 || data[n - 1] !== 0x7d /* } */) return undefined;
  for (let i = 0; i < STORED.length; i++) if (data[i] !== STORED[i]) return undefined;
  // the stream name holds no quote: the first one after it closes it
  let i = STORED.length;
  while (i < n && data[i] !== 0x22) i++;
  if (data[i + 1] !== 0x2c /* , */) return undefined;
  i += 2;
  while (data[i] === 0x20) i++;
  for (let k = 0; k < SEQ_KEY.length; k++, i++) if (data[i] !== SEQ_KEY[k]) return undefined;
  const first = i;
  let seq = 0;
  for (; i < n - 1; i++) {
    const d = data[i] - 0x30;
    if (d < 0 || d > 9) return undefined;
    seq = seq * 10 + d;
  }
  return i > first ? seq : undefined;
}

/**
 * The one header an append carries, as the bytes the client writes: nats.js reads a publish's
 * headers only through encode(), and its headers object checks and canonicalises the key and
 * builds a map on every append for a line that is the same but for its number. A class, not an
 * object with its own arrow function: a function made per append costs its name as well when the
 * platform runs through tsx.
 */
class Expectation {
  private readonly bytes: Buffer;

  constructor(lastSubjectSequence: number) {
    this.bytes = Buffer.from(expectationOf(lastSubjectSequence), 'latin1');
  }

  encode(): Uint8Array {
    return this.bytes;
  }
}

const expectationOf = (lastSubjectSequence: number): string => `NATS/1.0\r\n${EXPECTED_LAST_SUBJECT_SEQUENCE}: ${lastSubjectSequence}\r\n\r\n`;

/** What of nats.js's protocol handler the frames are written through (nc.protocol; nats-core 3). */
interface Frames {
  sendCommand(frames: Uint8Array): void;
  outMsgs: number;
  outBytes: number;
  noMorePublishing?: boolean;
  info?: { max_payload?: number };
}

function framesOf(nc: NatsConnection): Frames | undefined {
  const p = (nc as unknown as { protocol?: Partial<Frames> }).protocol;
  return p !== undefined && typeof p.sendCommand === 'function' && typeof p.outMsgs === 'number' && typeof p.outBytes === 'number' ? (p as Frames) : undefined;
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
    const frames = framesOf(this.nc);
    if (frames === undefined) return this.publishEach(batch);
    if (this.nc.isClosed()) return this.failEach(batch, named('ClosedConnectionError', 'closed connection'));
    if (frames.noMorePublishing) return this.failEach(batch, named('DrainingConnectionError', 'connection draining'));
    const max = frames.info?.max_payload ?? Infinity;
    const prefix = `${this.inbox}.`;
    const lines: string[] = [];
    const payloads: Uint8Array[] = [];
    let size = 0;
    let bytes = 0;
    for (const o of batch) {
      const header = o.expectedLastSubjectSequence === undefined ? undefined : expectationOf(o.expectedLastSubjectSequence);
      const total = (header?.length ?? 0) + o.data.length;
      if (total > max) {
        this.failEach([o], named('InvalidArgumentError', `'payload' max_payload size exceeded`));
        continue;
      }
      const line = header === undefined ? `PUB ${o.subject} ${prefix}${o.token} ${total}\r\n` : `HPUB ${o.subject} ${prefix}${o.token} ${header.length} ${total}\r\n${header}`;
      lines.push(line);
      payloads.push(o.data);
      // a subject is ASCII (names.ts); three bytes a character bound any other
      size += line.length * 3 + o.data.length + 2;
      bytes += total;
    }
    if (lines.length === 0) return;
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (let i = 0; i < lines.length; i++) {
      at += out.write(lines[i], at, 'utf8');
      out.set(payloads[i], at);
      at += payloads[i].length;
      out[at++] = 0x0d;
      out[at++] = 0x0a;
    }
    try {
      frames.sendCommand(out.subarray(0, at));
    } catch (e) {
      return this.failEach(batch, e as Error);
    }
    frames.outMsgs += lines.length;
    frames.outBytes += bytes;
  };

  /** The turn's publishes through nats.js's publish(), one by one. */
  private publishEach(batch: Outgoing[]): void {
    const prefix = `${this.inbox}.`;
    for (const o of batch) {
      try {
        const h = o.expectedLastSubjectSequence === undefined ? undefined : (new Expectation(o.expectedLastSubjectSequence) as unknown as MsgHdrs);
        this.nc.publish(o.subject, o.data, { reply: prefix + o.token, headers: h });
      } catch (e) {
        this.failEach([o], e as Error);
      }
    }
  }

  private failEach(batch: Outgoing[], err: Error): void {
    for (const o of batch) {
      const w = this.waiting.get(o.token);
      this.waiting.delete(o.token);
      w?.reject(err);
    }
  }

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
    const seq = storedSeq(msg.data);
    if (seq !== undefined) return w.resolve({ seq });
    let ack: { stream?: string; seq?: number; error?: { code: number; err_code: number; description: string } };
    try {
      ack = msg.json();
    } catch (e) {
      w.reject(named('JetStreamError', `invalid ack response: ${(e as Error).message}`));
      return;
    }
    if (ack.error) w.reject(named('JetStreamApiError', ack.error.description, ack.error.err_code));
    else if (!ack.stream || typeof ack.seq !== 'number') w.reject(named('JetStreamError', 'invalid ack response'));
    else w.resolve({ seq: ack.seq });
  }

  private failAll(err: Error): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of all) w.reject(err);
  }
}
