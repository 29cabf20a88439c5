/**
 * This node's requests to other nodes (NATS request/reply), all answered through one inbox
 * subscription: a request publishes with the reply subject `<inbox>.<token>` and waits in a map
 * by token. nats.js's own request() makes a RequestOne per call, with a timer and, however it
 * ends, an Error with its stack trace: 5 to 23% of a busy node's CPU in the cascade-removal bench
 * on three nodes. Here a request costs a map entry and one promise; deadlines and lapsed targets
 * are swept on the node's tick.
 *
 * A request to a subject nobody serves gets the server's no-responders status at once
 * (NoResponders), so the caller can wait for a new owner instead of the whole timeout.
 *
 * Requests (and, through reply(), answers) are published together once per event-loop turn:
 * nats.js writes what is published in one synchronous run as one buffer, but asks made from
 * separate promise continuations each became a socket write of their own (a fifth of a busy node's
 * CPU in the cascade-removal bench). The turn's flush is handed to `atTurnEnd`, which runs it with
 * the journal's appends on the same connection, so a turn's asks, answers and appends are one write.
 *
 * To a target `batchTo` allows (ClusterNode: a node whose membership announces batches, wire.ts
 * ASK_PROTOCOL), a turn's requests to one subject travel as one message, and a turn's answers to
 * one node's inbox as one message: the client's and the server's work per message (protocol line,
 * parse, dispatch, routing) is then paid per turn and node, not per ask. A batch is a msgpack
 * array of `[token, bytes]`; its reply subject `<inbox>.b<id>` tells the receiver it is one (a
 * single request keeps `<inbox>.<token>`), and answers to several of a node's requests arrive on
 * `<inbox>.g` in the same form. Each ask keeps its own token, deadline and outcome.
 *
 * A node that speaks batches never answers on `<inbox>.b<id>`; only the server does, with its
 * no-responders status. Anything else there comes from a node that does not speak them, which read
 * the batch as one malformed ask and answered it with a fault before serving anything: a node
 * restarted into an older version whose new heartbeat has not reached this node yet. Each ask of
 * that batch is then sent again on its own.
 */
import { createInbox, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';

const batchCodec = new Packr({ useRecords: false });
/** Room kept in a batch message for its framing, below the server's max_payload. */
const BATCH_MARGIN = 1024;

/** Bytes of one request or answer of a batch, with its token. */
export type Batched = [token: number, data: Uint8Array];
export const decodeBatch = (b: Uint8Array): Batched[] => batchCodec.unpack(b) as Batched[];
const encodeBatch = (items: Batched[]): Uint8Array => batchCodec.pack(items);

/** Where the answer to a request of a batch goes: the asker's inbox and the ask's token. */
export interface BatchedReply {
  inbox: string;
  token: number;
}

/** The batch a request message carries, from its reply subject; undefined for a single request. */
export function batchOf(reply: string): { inbox: string } | undefined {
  const dot = reply.lastIndexOf('.');
  return reply.charCodeAt(dot + 1) === 98 /* b */ ? { inbox: reply.slice(0, dot) } : undefined;
}

/** Nobody subscribes to the subject (the server's 503 status). */
export class NoResponders extends Error {}
/** No answer before the deadline. */
export class RequestTimedOut extends Error {}
/** The target left (its membership lapsed) before answering. */
export class TargetLapsed extends Error {}
/** This node stopped before the answer came; `sent` when the request may have reached its target. */
export class RequestsStopped extends Error {
  constructor(
    message: string,
    readonly sent: boolean,
  ) {
    super(message);
  }
}

interface Pending {
  resolve(data: Uint8Array): void;
  reject(err: Error): void;
  target: string;
  deadline: number;
}

export class Requests {
  private readonly inbox = createInbox();
  private readonly pending = new Map<number, Pending>();
  private sub: Subscription | undefined;
  private next = 0;
  /** Publishes waiting for the end of this event-loop turn: a request, an answer to a message, or an answer to a request of a batch. */
  private outbox: Array<{ subject: string; target: string; data: Uint8Array; token: number } | { msg: Msg; data: Uint8Array } | { to: BatchedReply; data: Uint8Array }> = [];
  /** Each batch sent, until none of its asks waits (a batch nobody serves fails them all; one read as a single ask is sent again ask by ask). */
  private readonly batches = new Map<number, { subject: string; items: Batched[] }>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly now: () => number,
    private readonly log: (msg: string, err?: unknown) => void = () => {},
    /** Runs the turn's flush at the end of the turn (the stores' own outbox); an immediate of its own by default. */
    private readonly atTurnEnd: (send: () => void) => void = (send) => void setImmediate(send),
    /** The targets that read a batch: to them a turn's requests to one subject travel as one message (see the header). */
    private readonly batchTo: (target: string) => boolean = () => false,
  ) {}

  start(): void {
    this.sub = this.nc.subscribe(`${this.inbox}.*`, {
      callback: (err, msg) => {
        if (!err) this.settle(msg);
      },
    });
  }

  /** Requests in flight (tests). */
  get size(): number {
    return this.pending.size;
  }

  /** Sends `data` to `subject` (served by `target`) and resolves with the answer's bytes. */
  send(subject: string, target: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    if (!this.sub) return Promise.reject(new RequestsStopped('requests are not started', false));
    return new Promise((resolve, reject) => {
      const token = this.next++;
      this.pending.set(token, { resolve, reject, target, deadline: this.now() + timeoutMs });
      this.queue({ subject, target, data, token });
    });
  }

  /** Answers a request this node received, with the same once-per-turn batching. */
  reply(msg: Msg, data: Uint8Array): void {
    this.queue({ msg, data });
  }

  /** Answers one request of a batch this node received (batchOf, decodeBatch). */
  replyTo(to: BatchedReply, data: Uint8Array): void {
    this.queue({ to, data });
  }

  private queue(item: (typeof this.outbox)[number]): void {
    this.outbox.push(item);
    if (this.outbox.length === 1) this.atTurnEnd(this.flush);
  }

  private readonly flush = (): void => {
    const batch = this.outbox;
    this.outbox = [];
    const requests = new Map<string, Batched[]>();
    const answers = new Map<string, Batched[]>();
    for (const item of batch) {
      if ('msg' in item) this.answer(item.msg, item.data);
      else if ('to' in item) push(answers, item.to.inbox, [item.to.token, item.data]);
      else if (this.batchTo(item.target)) push(requests, item.subject, [item.token, item.data]);
      else this.publishRequests(item.subject, [[item.token, item.data]]);
    }
    for (const [subject, items] of requests) for (const chunk of this.chunks(items)) this.publishRequests(subject, chunk);
    for (const [inbox, items] of answers) for (const chunk of this.chunks(items)) this.publishAnswers(inbox, chunk);
  };

  private answer(msg: Msg, data: Uint8Array): void {
    try {
      msg.respond(data);
    } catch (e) {
      // an answer that could not be sent is the asker's timeout (its node's requests give up on their own)
      this.log('answering a remote ask failed', e);
    }
  }

  /** One request as it always travelled, or several as one batch message. */
  private publishRequests(subject: string, items: Batched[]): void {
    try {
      if (items.length === 1) {
        this.nc.publish(subject, items[0][1], { reply: `${this.inbox}.${items[0][0]}` });
        return;
      }
      const id = this.next++;
      this.batches.set(id, { subject, items });
      this.nc.publish(subject, encodeBatch(items), { reply: `${this.inbox}.b${id}` });
    } catch (e) {
      // not published: these requests fail now
      for (const [token] of items) {
        const p = this.pending.get(token);
        this.pending.delete(token);
        p?.reject(e as Error);
      }
    }
  }

  private publishAnswers(inbox: string, items: Batched[]): void {
    try {
      if (items.length === 1) this.nc.publish(`${inbox}.${items[0][0]}`, items[0][1]);
      else this.nc.publish(`${inbox}.g`, encodeBatch(items));
    } catch (e) {
      this.log('answering a remote ask failed', e);
    }
  }

  /** Items split so that each message stays within the server's max_payload. */
  private *chunks(items: Batched[]): Generator<Batched[]> {
    const limit = (this.nc.info?.max_payload ?? 1 << 20) - BATCH_MARGIN;
    let chunk: Batched[] = [];
    let size = 0;
    for (const item of items) {
      if (chunk.length > 0 && size + item[1].length > limit) {
        yield chunk;
        chunk = [];
        size = 0;
      }
      chunk.push(item);
      size += item[1].length + 16;
    }
    if (chunk.length > 0) yield chunk;
  }

  /** Fails the requests past their deadline, and those whose target `lapsed` says is gone. */
  sweep(lapsed: (target: string) => boolean): void {
    for (const [id, b] of this.batches) if (!b.items.some(([t]) => this.pending.has(t))) this.batches.delete(id);
    if (this.pending.size === 0) return;
    const now = this.now();
    const gone = new Map<string, boolean>();
    for (const [token, p] of this.pending) {
      let out = gone.get(p.target);
      if (out === undefined) gone.set(p.target, (out = lapsed(p.target)));
      if (!out && now < p.deadline) continue;
      this.pending.delete(token);
      p.reject(out ? new TargetLapsed(`${p.target} lapsed before answering`) : new RequestTimedOut(`no answer from ${p.target} in time`));
    }
  }

  /** Stops answering; every request still waiting fails. */
  stop(): void {
    this.sub?.unsubscribe();
    this.sub = undefined;
    // published, or still to be by the flush already scheduled: the target may act on them
    for (const p of this.pending.values()) p.reject(new RequestsStopped('this node stopped before the answer came', true));
    this.pending.clear();
    this.batches.clear();
  }

  private settle(msg: Msg): void {
    const tail = msg.subject.slice(this.inbox.length + 1);
    if (tail === 'g') {
      for (const [token, data] of decodeBatch(msg.data)) this.answered(token, data, undefined);
      return;
    }
    if (tail.charCodeAt(0) === 98 /* b */) {
      const id = Number(tail.slice(1));
      const sent = this.batches.get(id);
      this.batches.delete(id);
      if (!sent) return;
      // the server's status for the whole batch: nobody serves its subject
      if (msg.data.length === 0 && msg.headers?.code !== undefined) for (const [token] of sent.items) this.answered(token, msg.data, msg);
      // read as one ask by a node that does not speak batches (see the header): nothing was served
      else for (const item of sent.items) if (this.pending.has(item[0])) this.publishRequests(sent.subject, [item]);
      return;
    }
    this.answered(Number(tail), msg.data, msg);
  }

  private answered(token: number, data: Uint8Array, msg: Msg | undefined): void {
    const p = this.pending.get(token);
    if (!p) return; // answered after its deadline
    this.pending.delete(token);
    if (data.length === 0 && msg?.headers?.code === 503) p.reject(new NoResponders(`nobody serves ${p.target}`));
    else p.resolve(data);
  }
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}
