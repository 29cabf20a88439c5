/**
 * Feed lag of every reader of the journal feed (docs/gaps.md#metrics; runtime/feed-lag.ts): GET
 * /metrics on the metrics port shows `platform_feed_lag_entries` for reactions, the delivery feed,
 * allocation's shared readers and, over durable stores, every per-node read model (the gates
 * among them), each 0 once the platform has settled; a reader behind is shown the entries past
 * its position, counted up to the cap, one read per distinct position.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveMetrics, type MetricsServer } from '../../gateway/index.ts';
import { FEED_LAG_CAP, FeedLag, FigureBoard, ManualClock } from '../../runtime/index.ts';
import { createMemoryStores } from '../../stores/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { storeFamily } from '../../support/stores.ts';

let h: Harness;
let server: MetricsServer;
beforeAll(async () => {
  h = await startHarness();
  server = await serveMetrics(h.gateway.metrics, { host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await server?.close();
  await h?.close();
});

/** The feed lag samples of a scrape through the metrics socket, by reader. */
async function lags(): Promise<Map<string, number>> {
  const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).toMatch(/^# TYPE platform_feed_lag_entries gauge$/m);
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^platform_feed_lag_entries\{reader="([^"]+)"\} (\d+)$/gm)) {
    expect(out.has(m[1])).toBe(false); // one sample per reader
    out.set(m[1], Number(m[2]));
  }
  return out;
}

describe('feed lag of every reader (docs/gaps.md#metrics)', () => {
  it('GET /metrics shows the lag of reactions, the delivery feed, allocation\'s readers and, over durable stores, every per-node read model, 0 once settled', async () => {
    await h.request('POST', '/v1/api_keys', { body: { name: 'lag' }, idempotencyKey: 'lag-1' });
    await h.platform.system.settle();
    const seen = await lags();
    const shared = ['runtime:reactions', 'delivery:feed', 'allocation-cascade-removal', 'allocation-device-notices'];
    const perNode = ['identity-gate', 'engagements-standing', 'credentials-eligibility', 'accounts-revoked-keys', 'allocation-device-revocations', 'sandbox-records'];
    // per-node readers read the journal where it is durable; over the memory stores commits alone feed them
    const expected = storeFamily() === 'memory' ? shared : [...shared, ...perNode];
    for (const reader of expected) expect([reader, seen.get(reader)]).toEqual([reader, 0]);
    if (storeFamily() === 'memory') for (const reader of perNode) expect(seen.has(reader)).toBe(false);
  });

  it('a reader behind is shown the journal entries past its position, up to the cap', async () => {
    const remove = h.platform.system.feeds.add('test-behind', () => 0);
    try {
      const feed = (await h.platform.stores.journal.readFeed(0, FEED_LAG_CAP)).length;
      expect(feed).toBeGreaterThan(0);
      expect((await lags()).get('test-behind')).toBe(feed);
    } finally {
      remove();
    }
    expect((await lags()).has('test-behind')).toBe(false);
  });
});

describe('FeedLag (runtime/feed-lag.ts)', () => {
  it('counts each reader\'s entries past its position up to FEED_LAG_CAP, reading once per distinct position, and leaves out a reader not reading here', async () => {
    const clock = new ManualClock();
    const stores = createMemoryStores({ now: () => clock.now() });
    const total = FEED_LAG_CAP + 5;
    for (let i = 1; i <= total; i++) await stores.journal.append(`probe.r${i}`, 0, [{ version: 1, id: `evt_${i}`, type: 'probe.made', data: {}, at: clock.now(), org: 'org_lag' }]);
    let reads = 0;
    const readFeed = stores.journal.readFeed.bind(stores.journal);
    stores.journal.readFeed = (after, limit) => {
      reads++;
      return readFeed(after, limit);
    };
    const board = new FigureBoard();
    const lag = new FeedLag(stores.journal, board);
    lag.add('from-start', () => 0);
    lag.add('also-from-start', () => 0);
    lag.add('near-end', () => total - 3);
    lag.add('at-end', () => total);
    lag.add('elsewhere', () => undefined);
    const figures = await board.read();
    const by = new Map(figures.map((f) => [f.labels!.reader, f.value]));
    expect(Object.fromEntries(by)).toEqual({ 'from-start': FEED_LAG_CAP, 'also-from-start': FEED_LAG_CAP, 'near-end': 3, 'at-end': 0 });
    expect(figures.every((f) => f.name === 'platform_feed_lag_entries' && f.type === 'gauge')).toBe(true);
    expect(reads).toBe(3);
    await stores.close();
  });
});
