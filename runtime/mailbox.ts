/**
 * A bounded two-lane mailbox (STYLE: "The mailbox is bounded and fair"). System messages
 * (reminders, reactions) are taken before user messages; the user lane refuses beyond capacity.
 */

export interface Envelope {
  command: string;
  payload: unknown;
  org: string;
  requestId?: string;
  principal?: string;
  dedupeId?: string;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Outcome, set during a turn and delivered after its commit. */
  ok?: boolean;
  value?: unknown;
}

class Lane {
  private items: (Envelope | undefined)[] = [];
  private head = 0;
  get size(): number {
    return this.items.length - this.head;
  }
  push(e: Envelope): void {
    this.items.push(e);
  }
  shift(): Envelope | undefined {
    if (this.head === this.items.length) return undefined;
    const e = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return e;
  }
  drain(): Envelope[] {
    const rest = this.items.slice(this.head) as Envelope[];
    this.items = [];
    this.head = 0;
    return rest;
  }
}

export class Mailbox {
  // Lanes are made on first use: most actors that are activated only to be read never get mail.
  private system: Lane | undefined;
  private user: Lane | undefined;

  constructor(
    private readonly userCapacity: number,
    private readonly systemCapacity: number,
  ) {}

  get size(): number {
    return (this.system?.size ?? 0) + (this.user?.size ?? 0);
  }

  /** False when the lane is full: the caller answers a retryable error, nothing is queued. */
  push(e: Envelope, lane: 'user' | 'system'): boolean {
    const l = lane === 'system' ? (this.system ??= new Lane()) : (this.user ??= new Lane());
    if (l.size >= (lane === 'system' ? this.systemCapacity : this.userCapacity)) return false;
    l.push(e);
    return true;
  }

  take(): Envelope | undefined {
    return this.system?.shift() ?? this.user?.shift();
  }

  /** Everything still queued (on eviction or shutdown), system lane first. */
  drain(): Envelope[] {
    return [...(this.system?.drain() ?? []), ...(this.user?.drain() ?? [])];
  }
}
