/**
 * The devices subscribed on this node to their worker's notices (docs/gaps.md#allocation "Offers to
 * the device"). A subscription holds the sequence its device has been sent up to (its cursor), and
 * sends notices strictly in the worker's sequence: the next one at once; one already sent never
 * again; one beyond a gap only after the gap is read from the inbox (catch-up), so a notice lost on
 * the node bus, or one the connection could not take, is sent late rather than never. A gap older
 * than the inbox's backlog is told to the device as a `notices_truncated` frame: the lists
 * (GET /v1/allocation/offers, /assignments) say what it missed. A subscription ends when its
 * connection closes, or when its device credential is revoked (its next notice is not sent).
 */
import { Packr } from 'msgpackr';
import { logOf, type Platform, type SocketConnection } from '../../../kernel/index.ts';
import { DEVICE_REVOCATIONS } from './device-revocations.ts';
import type { InboxState } from './device-inbox.ts';
import type { Notice } from './notices.ts';

type InboxRead = (org: string, worker: string) => Promise<Pick<InboxState, 'sequence' | 'notices'>>;

const packr = new Packr({ useRecords: false });
const log = logOf('allocation');

export class Subscription {
  /** The last sequence sent. */
  cursor: number;
  /** Set while the backlog is being read: notices arriving meanwhile wait here. */
  private catching: Promise<void> | undefined;
  private again = false;

  constructor(
    readonly org: string,
    readonly worker: string,
    readonly credential: string,
    private readonly connection: SocketConnection,
    private readonly binary: boolean,
    after: number,
    private readonly read: InboxRead,
  ) {
    this.cursor = after;
  }

  get open(): boolean {
    return this.connection.open;
  }

  /** A frame in the encoding the device subscribed with (msgpack for a binary subscribe frame). */
  send(frame: object): boolean {
    return this.connection.push(this.binary ? packr.pack(frame) : JSON.stringify(frame));
  }

  /** A live notice: sent if it is the next, read with the gap before it if it is beyond. */
  offer(n: Notice): void {
    if (n.sequence <= this.cursor) return;
    if (n.sequence === this.cursor + 1 && !this.catching) {
      if (this.send(n)) this.cursor = n.sequence;
      return;
    }
    void this.catchUp();
  }

  /** Sends every notice after the cursor from the inbox, in order; once more if more arrived meanwhile. */
  catchUp(): Promise<void> {
    if (this.catching) {
      this.again = true;
      return this.catching;
    }
    this.catching = (async () => {
      do {
        this.again = false;
        let inbox;
        try {
          inbox = await this.read(this.org, this.worker);
        } catch (e) {
          log.error(`device notices: the inbox of a worker could not be read for catch-up`, e);
          return;
        }
        const oldest = inbox.notices[0]?.sequence ?? inbox.sequence + 1;
        if (this.cursor + 1 < oldest && this.cursor < inbox.sequence) {
          if (!this.send({ type: 'notices_truncated', after_sequence: this.cursor, oldest_sequence: oldest, sequence: inbox.sequence })) return;
          this.cursor = oldest - 1;
        }
        for (const n of inbox.notices) {
          if (n.sequence <= this.cursor) continue;
          if (!this.send(n)) return;
          this.cursor = n.sequence;
        }
      } while (this.again && this.open);
    })().finally(() => {
      this.catching = undefined;
    });
    return this.catching;
  }
}

export class Subscriptions {
  /** Subscriptions by organisation and worker. */
  private readonly byWorker = new Map<string, Set<Subscription>>();

  constructor(
    private readonly platform: Platform,
    private readonly read: InboxRead,
  ) {}

  get size(): number {
    let n = 0;
    for (const s of this.byWorker.values()) n += s.size;
    return n;
  }

  /**
   * Subscribes a connection to the worker's notices after `after` (one subscription per connection:
   * a second subscribe replaces the first), sends the backlog after it, and resolves with the
   * subscription once it has.
   */
  async subscribe(org: string, worker: string, credential: string, connection: SocketConnection, binary: boolean, after: number, held: { current?: Subscription }): Promise<Subscription> {
    if (held.current) this.remove(held.current);
    const sub = new Subscription(org, worker, credential, connection, binary, after, this.read);
    held.current = sub;
    const key = keyOf(org, worker);
    let set = this.byWorker.get(key);
    if (!set) this.byWorker.set(key, (set = new Set()));
    set.add(sub);
    connection.onClose(() => this.remove(sub));
    await sub.catchUp();
    return sub;
  }

  /** A notice of the worker: to each subscription of theirs on this node, in sequence. */
  deliver(org: string, worker: string, notice: Notice): void {
    const set = this.byWorker.get(keyOf(org, worker));
    if (!set) return;
    const revocations = this.platform.services.get(DEVICE_REVOCATIONS);
    for (const sub of set) {
      if (!sub.open || revocations?.isRevoked(sub.credential)) {
        if (sub.open) sub.send({ type: 'unsubscribed', reason: 'device_credential_revoked' });
        this.remove(sub);
        continue;
      }
      sub.offer(notice);
    }
  }

  remove(sub: Subscription): void {
    const key = keyOf(sub.org, sub.worker);
    const set = this.byWorker.get(key);
    if (!set?.delete(sub)) return;
    if (set.size === 0) this.byWorker.delete(key);
  }

  closeAll(): void {
    this.byWorker.clear();
  }
}

const keyOf = (org: string, worker: string) => `${org}\u0000${worker}`;
