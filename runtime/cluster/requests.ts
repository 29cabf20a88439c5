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
 */
import { createInbox, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';

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
  /** Publishes waiting for the end of this event-loop turn: subject, data, reply subject (or a message to answer). */
  private outbox: Array<{ subject: string; data: Uint8Array; reply: string } | { msg: Msg; data: Uint8Array }> = [];

  constructor(
    private readonly nc: NatsConnection,
    private readonly now: () => number,
    private readonly log: (msg: string, err?: unknown) => void = () => {},
    /** Runs the turn's flush at the end of the turn (the stores' own outbox); an immediate of its own by default. */
    private readonly atTurnEnd: (send: () => void) => void = (send) => void setImmediate(send),
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
      this.queue({ subject, data, reply: `${this.inbox}.${token}` });
    });
  }

  /** Answers a request this node received, with the same once-per-turn batching. */
  reply(msg: Msg, data: Uint8Array): void {
    this.queue({ msg, data });
  }

  private queue(item: (typeof this.outbox)[number]): void {
    this.outbox.push(item);
    if (this.outbox.length === 1) this.atTurnEnd(this.flush);
  }

  private readonly flush = (): void => {
    const batch = this.outbox;
    this.outbox = [];
    for (const item of batch) {
      try {
        if ('msg' in item) item.msg.respond(item.data);
        else this.nc.publish(item.subject, item.data, { reply: item.reply });
      } catch (e) {
        // A request that could not be published fails now; an answer that could not be sent is the
        // asker's timeout (its node's requests give up on their own).
        if ('msg' in item) {
          this.log('answering a remote ask failed', e);
          continue;
        }
        const token = Number(item.reply.slice(this.inbox.length + 1));
        const p = this.pending.get(token);
        this.pending.delete(token);
        p?.reject(e as Error);
      }
    }
  };

  /** Fails the requests past their deadline, and those whose target `lapsed` says is gone. */
  sweep(lapsed: (target: string) => boolean): void {
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
  }

  private settle(msg: Msg): void {
    const token = Number(msg.subject.slice(this.inbox.length + 1));
    const p = this.pending.get(token);
    if (!p) return; // answered after its deadline
    this.pending.delete(token);
    if (msg.data.length === 0 && msg.headers?.code === 503) p.reject(new NoResponders(`nobody serves ${p.target}`));
    else p.resolve(msg.data);
  }
}
