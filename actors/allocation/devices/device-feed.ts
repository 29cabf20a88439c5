/**
 * Offers to the phone, live (docs/gaps.md#allocation "Offers to the device"). Two hops, each
 * at least once, neither polling:
 *
 * 1. A committed work-order or assignment event of a worker becomes a notice in the worker's inbox
 *    (device-inbox.ts), which numbers it. The node that committed it records it at once (a commit
 *    listener, retrying a store that did not answer); one reader of the journal feed for the
 *    cluster (its cursor in the store) records every such event its own node did not, so a node
 *    that stopped between its commit and the record loses no notice. The event's id dedupes the two.
 * 2. A notice the inbox recorded reaches the worker's devices subscribed on this node at once, and,
 *    in a cluster, every other node over the node bus (kernel/node-bus.ts, soft state): a device
 *    on node A hears of an offer a work order on node B made. Delivery to a device follows the
 *    worker's sequence (subscriptions.ts): a notice lost on the bus shows as a gap and is read from
 *    the inbox, never skipped.
 */
import { Packr, Unpackr } from 'msgpackr';
import { randomBytes } from 'node:crypto';
import { BoundedMap, type Committed, type FeedReader } from '../../../runtime/index.ts';
import { isRefusal, logOf, nodeBus, type NodeBus, type Platform, platformFeed, serviceKey } from '../../../kernel/index.ts';
import type { FeedEntry, StoredEvent } from '../../../stores/index.ts';
import { Assignment, type AssignmentState } from '../assignments/assignment.ts';
import { WorkOrder, type WorkOrderState } from '../work-orders/work-order.ts';
import { DeviceInbox, inboxIdOf, type InboxState, type RecordCommand } from './device-inbox.ts';
import { assignmentNotice, type Derived, type Notice, workOrderNotice } from './notices.ts';
import { Subscriptions } from './subscriptions.ts';

export const DEVICE_FEED = serviceKey<DeviceFeed>('allocation.device_feed');

const TOPIC = 'allocation.device_notices';
/** Event ids remembered as recorded here: more than the feed's reader is ever behind by. */
const RECORDING_KEPT = 100_000;
const RECORD_ATTEMPTS = 5;
const RECORD_RETRY_MS = 200;
const NOTICE = 'inbox.notice_recorded';
const log = logOf('allocation');

interface BusMessage {
  /** The sending node (a node delivers its own notices itself). */
  n: string;
  o: string;
  w: string;
  s: Notice;
}

export class DeviceFeed {
  readonly subscriptions: Subscriptions;
  private readonly node = randomBytes(8).toString('hex');
  private readonly packr = new Packr({ useRecords: false });
  private readonly unpackr = new Unpackr({ useRecords: false });
  private bus: NodeBus | undefined;
  private stops: (() => void)[] = [];
  private reader: FeedReader | undefined;
  /** Events whose notice this node is recording: true once recorded (the feed's reader then passes over them). */
  private readonly recording = new BoundedMap<string, Promise<boolean>>(RECORDING_KEPT);

  constructor(private readonly platform: Platform) {
    this.subscriptions = new Subscriptions(platform, (org, worker) => this.inbox(org, worker));
  }

  start(): void {
    const { system } = this.platform;
    this.stops.push(system.onCommit((c) => this.onCommit(c)));
    this.bus = nodeBus(this.platform);
    if (this.bus) {
      this.stops.push(this.bus.subscribe(TOPIC, (d) => this.onBus(d), (e) => log.error('device notices: bus subscription failed', e)));
    }
    this.reader = platformFeed(this.platform, 'allocation-device-notices', (entries) => this.fromFeed(entries), { batch: 500 });
    this.reader.start();
  }

  async stop(): Promise<void> {
    for (const s of this.stops) s();
    this.stops = [];
    this.subscriptions.closeAll();
    await this.reader?.stop();
  }

  /** The worker's inbox as it stands (its backlog); an inbox never written to has nothing. */
  async inbox(org: string, worker: string): Promise<Pick<InboxState, 'sequence' | 'notices'>> {
    try {
      return await this.platform.system.state(DeviceInbox, inboxIdOf(org, worker), org);
    } catch (e) {
      if ((e as { code?: string }).code === 'not_found') return { sequence: 0, notices: [] };
      throw e;
    }
  }

  private onCommit(c: Committed): void {
    if (c.kind === DeviceInbox.kind) {
      for (const e of c.events) if (e.type === NOTICE) this.recorded(c.org, (e.data as { notice: Notice }).notice);
      return;
    }
    const derive = noticeOf(c.kind, c.state);
    if (!derive) return;
    for (const e of c.events) {
      const d = derive(e);
      if (!d) continue;
      // the feed's reader waits for this and passes over the event once it is recorded; its cursor
      // moves past the event only then, so a stop in between is read again from the cursor
      const recorded = this.recordRetrying(d);
      this.recording.set(e.id, recorded);
      this.platform.system.track(recorded);
    }
  }

  /** Records a notice this node derived, retrying a store or node that did not answer; false when it gave up. */
  private async recordRetrying(d: Derived): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.record(d);
        return true;
      } catch (e) {
        if (attempt >= RECORD_ATTEMPTS || this.platform.system.stopping || isRefusal(e)) {
          log.error(`device notice of ${d.event_id} not recorded here (the feed's reader records it)`, e);
          return false;
        }
        await new Promise((r) => setTimeout(r, RECORD_RETRY_MS * attempt));
      }
    }
  }

  /** The backstop: every work-order and assignment event of the feed, recorded again (deduped). */
  private async fromFeed(entries: FeedEntry[]): Promise<void> {
    const pending: Promise<void>[] = [];
    for (const { stream, event } of entries) {
      const dot = stream.indexOf('.');
      const kind = stream.slice(0, dot);
      if (kind !== WorkOrder.kind && kind !== Assignment.kind) continue;
      if (!isNoticed(kind, event)) continue;
      const here = this.recording.get(event.id);
      pending.push(
        (async () => {
          if (here && (await here)) return; // recorded by this node's own commit listener
          const d = noticeOf(kind, await this.platform.system.state(kind, stream.slice(dot + 1), event.org))?.(event);
          if (d) await this.record(d);
        })(),
      );
    }
    await Promise.all(pending);
  }

  private async record(d: Derived): Promise<void> {
    const cmd: RecordCommand = { worker_id: d.worker_id, event_id: d.event_id, body: d.body };
    await this.platform.system.ask(DeviceInbox, inboxIdOf(d.org, d.worker_id), 'record', cmd, { org: d.org, principal: 'system', lane: 'system', noReply: true, dedupeId: `notice:${d.event_id}` });
  }

  /** A notice the inbox recorded on this node: to this node's devices, and to the other nodes'. */
  private recorded(org: string, notice: Notice): void {
    this.subscriptions.deliver(org, notice.worker_id, notice);
    if (!this.bus || this.bus.closed) return;
    try {
      this.bus.publish(TOPIC, this.packr.pack({ n: this.node, o: org, w: notice.worker_id, s: notice } satisfies BusMessage));
    } catch (e) {
      log.error('device notices: publish failed (a device reads the gap from the inbox)', e);
    }
  }

  private onBus(data: Uint8Array): void {
    let m: BusMessage;
    try {
      m = this.unpackr.unpack(data) as BusMessage;
    } catch (e) {
      return log.error('device notices: an undecodable message was dropped', e);
    }
    if (m.n !== this.node && typeof m.o === 'string' && typeof m.w === 'string' && m.s) this.subscriptions.deliver(m.o, m.w, m.s);
  }
}

const WORK_ORDER_NOTICED = new Set(['offer.made', 'offer.accepted', 'offer.declined', 'offer.expired', 'offer.withdrawn']);
const isNoticed = (kind: string, e: StoredEvent): boolean => (kind === WorkOrder.kind ? WORK_ORDER_NOTICED.has(e.type) : e.type.startsWith('assignment.'));

function noticeOf(kind: string, state: unknown): ((e: StoredEvent) => Derived | undefined) | undefined {
  if (kind === WorkOrder.kind) return (e) => (WORK_ORDER_NOTICED.has(e.type) ? workOrderNotice(state as WorkOrderState, e) : undefined);
  if (kind === Assignment.kind) return (e) => assignmentNotice(state as AssignmentState, e);
  return undefined;
}

export const deviceFeedOf = (platform: Platform): DeviceFeed => platform.services.require(DEVICE_FEED);
