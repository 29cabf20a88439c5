/**
 * The supply feed over a real WebSocket (docs/gaps.md#console, #accounts): a person's single-use
 * ticket opens the socket; a subscriber asks with its cursor and is answered as soon as its
 * organisation's workers or work orders change; only its own organisation's records; a subscriber
 * that fell behind the bounded log gets a full snapshot marked resync; in a cluster, commits made
 * on another node reach it through its node's journal feed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { areas as allAreas } from '../../actors/index.ts';
import { allocation, setAvailability as setAvailabilityOf, SUPPLY_SOCKET_PATH, supplyFeed } from '../../actors/allocation/index.ts';
import { SNAPSHOT_WORKERS } from '../../actors/allocation/supply/supply-feed.ts';
import { createPlatform, type Platform, stopPlatform } from '../../kernel/index.ts';
import { ManualClock } from '../../runtime/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { clusterTestStores, storeFamily, testNamespace } from '../../support/stores.ts';
import { connect, upgrade, type TestSocket } from '../../support/ws.ts';
import { dispatchKit } from '../allocation/dispatch-support.ts';
import { heartbeats, reading, setAvailability } from '../allocation/support.ts';

const HOLD_MS = 400;
const BUFFER = 8;
const config = { SUPPLY_FEED_HOLD_MS: String(HOLD_MS), SUPPLY_FEED_BUFFER: String(BUFFER) };

interface Batch {
  object: 'supply_changes';
  resync: boolean;
  reason?: string;
  cursor: string;
  workers: { worker_id: string; availability: string | null; presence: string | null; in_map: boolean; cell: string | null; excluded_because: string | null }[];
  work_orders: { id: string; status: string; location: { radius_metres: number }; cascade: Record<string, number>; supply_gap: { reason: string } | null; offers: { worker_id: string; status: string }[] }[];
  truncated?: boolean;
  next_rest?: number;
  rest?: number;
}

let h: Harness;
const sockets: TestSocket[] = [];

async function ticket(session: string): Promise<string> {
  const r = await h.request('POST', '/v1/account/socket_tickets', { key: null, session });
  expect(r.status, r.text).toBe(200);
  expect(r.body).toMatchObject({ object: 'socket_ticket', token: expect.stringMatching(/^wst_/) });
  return r.body.token;
}

async function subscribe(session = h.session): Promise<TestSocket> {
  const s = await connect(`${h.url}${SUPPLY_SOCKET_PATH}?ticket=${await ticket(session)}`);
  sockets.push(s);
  return s;
}

async function ask(s: TestSocket, after: string | null, extra: Record<string, unknown> = {}): Promise<Batch> {
  s.send(JSON.stringify({ after, ...extra }));
  const f = JSON.parse((await s.next()).text);
  if (f.object !== 'supply_changes') throw new Error(`not a batch: ${JSON.stringify(f)}`);
  return f;
}

/** Asks until a batch names the worker with `check` true (batches may carry other records first). */
async function until(s: TestSocket, cursor: string, match: (b: Batch) => boolean, rounds = 20): Promise<Batch> {
  for (let i = 0; i < rounds; i++) {
    const b = await ask(s, cursor);
    if (match(b)) return b;
    cursor = b.cursor;
  }
  throw new Error('the change never arrived');
}

/** The worker sets their availability with their device credential (spec 4.7), issued with the organisation's key. */
const put = (worker: string, availability: string, key?: string) => setAvailability(h, worker, availability, key);

beforeAll(async () => {
  h = await startHarness({ config });
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await h?.close();
});

describe('supply feed socket (docs/gaps.md#console)', { timeout: 60_000 }, () => {
  it('docs/gaps.md#accounts: a socket ticket minted with a session opens one upgrade; used again, used as a bearer credential, sent beside a credential header, or with no ticket and no header the upgrade is refused 401', async () => {
    const t = await ticket(h.session);
    const bearer = await h.request('GET', '/v1/api_keys', { key: t, bearer: true });
    expect(bearer.status).toBe(401);
    const first = await upgrade(`${h.url}${SUPPLY_SOCKET_PATH}?ticket=${t}`);
    expect(first.ok).toBe(true);
    if (first.ok) sockets.push(first.socket);
    const again = await upgrade(`${h.url}${SUPPLY_SOCKET_PATH}?ticket=${t}`);
    expect(again.ok).toBe(false);
    if (!again.ok) {
      expect(again.status).toBe(401);
      expect(JSON.parse(again.body).error.message).toMatch(/already used|unknown, used or expired/);
    }
    const none = await upgrade(`${h.url}${SUPPLY_SOCKET_PATH}`);
    expect(!none.ok && none.status).toBe(401);
    // a ticket and a credential header together: one credential, please
    const both = await upgrade(`${h.url}${SUPPLY_SOCKET_PATH}?ticket=${await ticket(h.session)}`, { 'service-api-key': h.key });
    expect(!both.ok && both.status).toBe(401);
    // an API key cannot mint one: the endpoint needs a signed-in session
    expect((await h.request('POST', '/v1/account/socket_tickets')).status).toBe(401);
  });

  it('docs/gaps.md#accounts: a ticket stops opening the socket after 30 seconds', async () => {
    const t = await ticket(h.session);
    await h.clock.advance(31_000);
    const late = await upgrade(`${h.url}${SUPPLY_SOCKET_PATH}?ticket=${t}`);
    expect(!late.ok && late.status).toBe(401);
  });

  it('spec 2.8: a subscriber gets a snapshot, then a worker\'s availability change is pushed to its waiting request without another read', async () => {
    const worker = `feed_w_${process.pid}_1`;
    expect((await put(worker, 'available')).status).toBe(200);
    const s = await subscribe();
    const snap = await ask(s, null);
    expect(snap).toMatchObject({ resync: true, reason: 'subscribed' });
    expect(snap.workers.find((w) => w.worker_id === worker)).toMatchObject({ availability: 'available' });

    s.send(JSON.stringify({ after: snap.cursor })); // held: nothing changed yet
    await new Promise((r) => setTimeout(r, 50));
    expect((await put(worker, 'unavailable')).status).toBe(200);
    const pushed = JSON.parse((await s.next()).text) as Batch;
    expect(pushed.resync).toBe(false);
    expect(pushed.workers).toEqual([expect.objectContaining({ worker_id: worker, availability: 'unavailable', in_map: false, excluded_because: 'not_available' })]);
    // once what followed from it (the presence it recorded) is sent, a request is held and answers empty after the hold
    let cursor = pushed.cursor;
    let idle: Batch | undefined;
    for (let i = 0; i < 5 && !idle; i++) {
      const b = await ask(s, cursor);
      if (b.workers.length === 0 && b.work_orders.length === 0) idle = b;
      else cursor = b.cursor;
    }
    expect(idle).toMatchObject({ resync: false, cursor });
  });

  it('spec 2.8: a heartbeat that moves a worker into another H3 cell is pushed with the new cell and presence', async () => {
    const worker = `feed_w_${process.pid}_2`;
    expect((await put(worker, 'available')).status).toBe(200);
    await h.clock.advance(1000);
    const s = await subscribe();
    let b = await ask(s, null);
    expect((await heartbeats(h, { worker_id: worker, readings: [reading(h.clock.now() - 200, { position: { latitude: 6.5244, longitude: 3.3792, accuracy_metres: 5 } })] })).status).toBe(200);
    b = await until(s, b.cursor, (x) => x.workers.some((w) => w.worker_id === worker && w.cell !== null));
    const first = b.workers.find((w) => w.worker_id === worker)!;
    expect(first).toMatchObject({ presence: 'reporting', in_map: true });
    await h.clock.advance(60_000); // 1.9 km east in a minute: plausible movement
    const moved = await heartbeats(h, { worker_id: worker, readings: [reading(h.clock.now() - 200, { position: { latitude: 6.5244, longitude: 3.3962, accuracy_metres: 5 } })] });
    expect(moved.body.accepted_count, moved.text).toBe(1);
    b = await until(s, b.cursor, (x) => x.workers.some((w) => w.worker_id === worker && w.cell !== null && w.cell !== first.cell));
    expect(b.workers.find((w) => w.worker_id === worker)!.cell).toMatch(/^89/);
  });

  it('spec 3 Work orders: an opened work order is pushed with its geofence, cascade and offers; a decline moves the cascade; the last decline makes it a supply gap', async () => {
    const kit = dispatchKit(h);
    const p = kit.centre();
    const a = await kit.worker(p, 200);
    const s = await subscribe();
    let b = await ask(s, null);
    const wo = await kit.open(p, { location: { ...p, radius_metres: 700 }, search_radius_metres: 3000 });
    b = await until(s, b.cursor, (x) => x.work_orders.some((o) => o.id === wo.id));
    const opened = b.work_orders.find((o) => o.id === wo.id)!;
    expect(opened).toMatchObject({ status: 'open', location: { radius_metres: 700 }, cascade: { offered: 1, pending: 1 } });
    expect(opened.offers).toEqual([expect.objectContaining({ worker_id: a.worker, status: 'pending' })]);
    const [offer] = await kit.offers(wo.id);
    expect((await kit.post(`/v1/allocation/offers/${offer!.id}/decline`, { reason: 'too far' })).status).toBe(200);
    b = await until(s, b.cursor, (x) => x.work_orders.some((o) => o.id === wo.id && o.status !== 'open'));
    expect(b.work_orders.find((o) => o.id === wo.id)).toMatchObject({ status: 'unfilled', supply_gap: { reason: 'every_offer_declined_or_expired' }, cascade: { declined: 1 } });
    // a new subscriber sees it among the supply gaps of its snapshot
    const late = await ask(await subscribe(), null);
    expect(late.work_orders.find((o) => o.id === wo.id)).toMatchObject({ status: 'unfilled' });
  });

  it('spec 1 rule 2: a subscriber of another organisation is sent none of this organisation\'s workers or work orders', async () => {
    const other = await h.register();
    const worker = `feed_w_${process.pid}_3`;
    expect((await put(worker, 'available')).status).toBe(200);
    const theirs = await subscribe(other.session);
    const snap = await ask(theirs, null);
    expect(snap.workers.map((w) => w.worker_id)).not.toContain(worker);
    expect(snap.work_orders).toEqual([]);
    expect((await put(worker, 'unavailable')).status).toBe(200);
    await h.platform.system.settle();
    await supplyFeed(h.platform).caughtUp();
    // nothing was logged for them: the request is held and answers empty, at the same cursor
    expect(await ask(theirs, snap.cursor)).toMatchObject({ resync: false, workers: [], work_orders: [], cursor: snap.cursor });
    // their own worker of the same worker_id is a different record, and it is theirs that is sent
    expect((await put(worker, 'available', other.key)).status).toBe(200);
    const mine = await until(theirs, snap.cursor, (x) => x.workers.length > 0);
    expect(mine.workers).toEqual([expect.objectContaining({ worker_id: worker, availability: 'available' })]);
  });

  it('docs/gaps.md#console: a subscriber that fell more than the buffer behind is answered a full snapshot marked resync, never an unbounded queue', async () => {
    const s = await subscribe();
    const snap = await ask(s, null);
    const ids = Array.from({ length: BUFFER + 4 }, (_, i) => `feed_slow_${process.pid}_${i}`);
    for (const id of ids) expect((await put(id, 'available')).status).toBe(200);
    const caught = await ask(s, snap.cursor);
    expect(caught).toMatchObject({ resync: true, reason: 'fell_behind' });
    expect(caught.workers.map((w) => w.worker_id)).toEqual(expect.arrayContaining(ids));
    // a cursor the node never gave (another node's, or from before a restart) resyncs as well
    expect(await ask(s, 'not-a-cursor.3')).toMatchObject({ resync: true, reason: 'cursor_unknown' });
  });

  it('docs/gaps.md#console: a snapshot holds at most 2000 workers, says so with truncated, and arrives whole as one frame of some 400 KB; the rest follow on asking with rest', async () => {
    const other = await h.register();
    const caller = { org: other.org, livemode: false, principal: 'test' };
    const ids = Array.from({ length: SNAPSHOT_WORKERS + 20 }, (_, i) => `bulk_worker_${process.pid}_${i}`);
    for (let i = 0; i < ids.length; i += 100) await Promise.all(ids.slice(i, i + 100).map((id) => setAvailabilityOf(h.platform, caller, id, 'available')));
    const s = await subscribe(other.session);
    s.send(JSON.stringify({ after: null }));
    const frame = await s.next();
    expect(frame.data.length).toBeGreaterThan(256 * 1024); // past the transport's 64 KB backpressure mark: the subscriber asked for it, so nothing is queued behind it
    const snap = JSON.parse(frame.text) as Batch;
    expect(snap).toMatchObject({ resync: true, truncated: true });
    expect(snap.workers).toHaveLength(SNAPSHOT_WORKERS);
    expect(new Set(snap.workers.map((w) => w.worker_id)).size).toBe(SNAPSHOT_WORKERS);
    // the rest of the snapshot, from next_rest on, with the cursor unchanged: every worker is read
    expect(snap.next_rest).toBe(SNAPSHOT_WORKERS);
    const rest = await ask(s, snap.cursor, { rest: snap.next_rest });
    expect(rest).toMatchObject({ resync: false, rest: SNAPSHOT_WORKERS, cursor: snap.cursor, truncated: false, work_orders: [] });
    expect(rest.next_rest).toBeUndefined();
    expect(new Set([...snap.workers, ...rest.workers].map((w) => w.worker_id))).toEqual(new Set(ids));
    expect(JSON.parse((await (s.send(JSON.stringify({ after: snap.cursor, rest: -1 })), s.next())).text).error).toMatchObject({ code: 'invalid_request' });
  });

  it('docs/gaps.md#console: a frame that is not a request answers an invalid_request error frame and the socket stays open', async () => {
    const s = await subscribe();
    s.send('{"after": 12}');
    expect(JSON.parse((await s.next()).text).error).toMatchObject({ code: 'invalid_request' });
    s.send('not json');
    expect(JSON.parse((await s.next()).text).error).toMatchObject({ code: 'invalid_request' });
    expect((await ask(s, null)).resync).toBe(true);
  });

  it('spec 2.8: the feed follows the node\'s supply map (the same cell as GET /v1/allocation/supply/{worker_id})', async () => {
    const worker = `feed_w_${process.pid}_4`;
    expect((await put(worker, 'available')).status).toBe(200);
    await h.clock.advance(1000);
    expect((await heartbeats(h, { worker_id: worker, readings: [reading(h.clock.now() - 200, { position: { latitude: 6.6, longitude: 3.35, accuracy_metres: 5 } })] })).status).toBe(200);
    const snap = await ask(await subscribe(), null);
    const state = (await h.request('GET', `/v1/allocation/supply/${worker}`)).body;
    expect(snap.workers.find((w) => w.worker_id === worker)).toMatchObject({ cell: state.cell, in_map: state.in_map });
    expect(supplyFeed(h.platform)).toBeDefined();
    expect(allocation(h.platform).supply.position(h.org, worker)?.cell).toBe(state.cell);
  });
});

describe.runIf(storeFamily() === 'cluster')('supply feed across nodes (cluster)', { timeout: 60_000 }, () => {
  let node: Harness;
  let other: Platform;
  const clock = new ManualClock();

  beforeAll(async () => {
    const namespace = testNamespace('feed');
    node = await startHarness({ clock, config, stores: await clusterTestStores(clock, { namespace }) });
    other = await createPlatform({ areas: allAreas, stores: await clusterTestStores(clock, { namespace }), clock, config });
  });
  afterAll(async () => {
    await node?.close();
    if (other) await stopPlatform(other);
  });

  it('DESIGN "Read models every node keeps": a worker\'s availability committed on another node is pushed to this node\'s subscriber', async () => {
    const t = await node.request('POST', '/v1/account/socket_tickets', { key: null, session: node.session });
    const s = await connect(`${node.url}${SUPPLY_SOCKET_PATH}?ticket=${t.body.token}`);
    sockets.push(s);
    const snap = await ask(s, null);
    const worker = `feed_node_${process.pid}`;
    await setAvailabilityOf(other, { org: node.org, livemode: false, principal: 'test' }, worker, 'available');
    const b = await until(s, snap.cursor, (x) => x.workers.some((w) => w.worker_id === worker));
    expect(b.workers.find((w) => w.worker_id === worker)).toMatchObject({ availability: 'available' });
  });
});
