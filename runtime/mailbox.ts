/**
 * A bounded two-lane mailbox (STYLE: "The mailbox is bounded and fair"). System messages
 * (reminders, reactions) are taken before user messages; the user lane refuses beyond capacity.
 *
 * The lanes are intrusive queues linked through the envelopes themselves: queueing a message
 * allocates nothing, which matters when most of 100,000 actors hold one message at a time.
 */

export interface Envelope {
  command: string;
  payload: unknown;
  org: string;
  requestId: string | undefined;
  principal: string | undefined;
  dedupeId: string | undefined;
  /** The caller ignores the reply: no view is made for it. */
  noReply: boolean;
  /** Refuse the command if it would create its record (AskOptions.refuseCreate). */
  refuseCreate: string | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Outcome, set during a turn and delivered after its commit. */
  ok: boolean;
  value: unknown;
  /** The next envelope in a lane, or in a turn's outcomes once taken; owned by the runtime. */
  next: Envelope | undefined;
}

export class Mailbox {
  private systemHead: Envelope | undefined;
  private systemTail: Envelope | undefined;
  private systemSize = 0;
  private userHead: Envelope | undefined;
  private userTail: Envelope | undefined;
  private userSize = 0;

  constructor(
    private readonly userCapacity: number,
    private readonly systemCapacity: number,
  ) {}

  get size(): number {
    return this.systemSize + this.userSize;
  }

  /** False when the lane is full: the caller answers a retryable error, nothing is queued. */
  push(e: Envelope, lane: 'user' | 'system'): boolean {
    e.next = undefined;
    if (lane === 'system') {
      if (this.systemSize >= this.systemCapacity) return false;
      if (this.systemTail) this.systemTail.next = e;
      else this.systemHead = e;
      this.systemTail = e;
      this.systemSize++;
    } else {
      if (this.userSize >= this.userCapacity) return false;
      if (this.userTail) this.userTail.next = e;
      else this.userHead = e;
      this.userTail = e;
      this.userSize++;
    }
    return true;
  }

  take(): Envelope | undefined {
    let e = this.systemHead;
    if (e) {
      this.systemHead = e.next;
      if (!this.systemHead) this.systemTail = undefined;
      this.systemSize--;
    } else {
      e = this.userHead;
      if (!e) return undefined;
      this.userHead = e.next;
      if (!this.userHead) this.userTail = undefined;
      this.userSize--;
    }
    e.next = undefined;
    return e;
  }

  /** Everything still queued (on eviction or shutdown), system lane first. */
  drain(): Envelope[] {
    const out: Envelope[] = [];
    for (let e = this.take(); e; e = this.take()) out.push(e);
    return out;
  }
}
