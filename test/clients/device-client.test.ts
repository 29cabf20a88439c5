/**
 * The device library (clients/device) against a platform on a real socket (spec 4.7;
 * docs/gaps.md#allocation "Device credentials", "Offers to the device"): readings kept while
 * offline and sent in order once back, an offer made while the socket was down received on
 * reconnection, and a revoked credential stopping the library with a clear error.
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Device, DeviceStoppedError, type Notice, type WebSocketFactory, type WebSocketLike } from '../../clients/device/src/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { until } from '../../support/until.ts';
import { dispatchKit } from '../allocation/dispatch-support.ts';
import { deviceKey, reading, storedReadings, workerId } from '../allocation/support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

/** A phone's network that can be cut: while offline every socket fails to open, and cutting drops the open one. */
function network() {
  let online = true;
  const open = new Set<WebSocket>();
  const sent: unknown[] = [];
  const factory: WebSocketFactory = (url, headers) => {
    const ws = new WebSocket(online ? url : 'ws://127.0.0.1:1/offline', { headers, perMessageDeflate: false });
    open.add(ws);
    ws.on('close', () => open.delete(ws));
    const send = ws.send.bind(ws);
    (ws as unknown as { send: (d: Uint8Array) => void }).send = (d: Uint8Array) => {
      sent.push(d);
      send(d);
    };
    return ws as unknown as WebSocketLike;
  };
  return {
    factory,
    sent,
    cut() {
      online = false;
      for (const ws of open) ws.terminate();
    },
    restore() {
      online = true;
    },
  };
}

const device = (credential: string, worker: string, net: ReturnType<typeof network>, lastSequence = 0) =>
  new Device({ baseUrl: h.url, credential, workerId: worker, webSocket: net.factory, reconnect: { baseMs: 5, maxMs: 50 }, lastSequence });

it('device - readings taken offline for 60 s are all accepted once, in order, when the phone is back (spec 4.7 heartbeats; 2.8 reconciled by recorded_at)', async () => {
  const worker = workerId('-offline');
  const credential = await deviceKey(h, worker);
  const net = network();
  net.cut();
  const d = device(credential, worker, net);
  expect(await d.setAvailability('available')).toMatchObject({ availability: 'available' });
  let accepted = 0;
  let rejected = 0;
  const refused: unknown[] = [];
  d.on('refused', (e) => refused.push(e));
  d.on('receipt', (r) => {
    accepted += r.accepted_count as number;
    rejected += r.rejected_count as number;
  });
  d.start();
  const start = h.clock.now();
  for (let s = 1; s <= 60; s++) {
    await h.clock.advance(1000);
    d.record(reading(h.clock.now(), { position: { latitude: 6.5244 + s * 0.00005, longitude: 3.3792, accuracy_metres: 8 } }));
  }
  expect(d.connected).toBe(false);
  expect(d.backlog.readings).toBe(60);
  net.restore();
  await until(() => d.backlog.readings === 0, 20_000);
  d.stop();
  expect(refused).toEqual([]);
  expect([accepted, rejected]).toEqual([60, 0]);
  const stored = await storedReadings(h, worker);
  expect(stored).toHaveLength(60);
  expect(stored.map((r) => r.recordedAt)).toEqual(Array.from({ length: 60 }, (_, i) => start + (i + 1) * 1000));
});

it('device - a dropped socket reconnects and receives the offer made while it was down, and accepts it knowing only the notice (docs/gaps.md#allocation)', async () => {
  const kit = dispatchKit(h);
  const p = kit.centre();
  const made = await kit.worker(p, 100);
  const credential = await deviceKey(h, made.worker);
  const net = network();
  const d = device(credential, made.worker, net);
  const notices: Notice[] = [];
  d.on('notice', (n) => notices.push(n));
  d.start();
  await until(() => d.connected, 10_000);
  net.cut();
  await until(() => !d.connected, 10_000);
  const wo = await kit.open(p);
  const [offer] = await kit.offers(wo.id);
  expect(offer.worker_id).toBe(made.worker);
  net.restore();
  await until(() => notices.some((n) => n.type === 'offer.made'), 10_000);
  const notice = notices.find((n) => n.type === 'offer.made')!;
  expect(notice.offer).toMatchObject({ id: offer.id, status: 'pending', expires_at: expect.any(String) });
  expect(d.lastSequence).toBe(notice.sequence);
  const after = await d.accept(notice.offer!.id);
  expect(after).toMatchObject({ id: offer.id, status: 'accepted' });
  d.stop();
});

it('device - a revoked credential stops the library with a clear error, on the open socket and on the next start (spec 4.7 "revocable")', async () => {
  const worker = workerId('-revoked');
  const credential = await deviceKey(h, worker);
  const net = network();
  const d = device(credential, worker, net);
  let stopped: DeviceStoppedError | undefined;
  d.on('stopped', (e) => (stopped = e));
  d.start();
  await until(() => d.connected, 10_000);
  const listed = await h.request('GET', `/v1/allocation/device_credentials?worker_id=${worker}`);
  const id = listed.body.data[0].id as string;
  expect((await h.request('POST', `/v1/allocation/device_credentials/${id}/revoke`, { idempotencyKey: `revoke-${id}` })).status).toBe(200);
  d.record(reading(h.clock.now()));
  await until(() => stopped !== undefined, 10_000);
  expect(stopped).toBeInstanceOf(DeviceStoppedError);
  expect(stopped!.code).toBe('unauthenticated');
  expect(stopped!.message).toMatch(/revoked|refused/);

  const again = device(credential, worker, network());
  let second: DeviceStoppedError | undefined;
  again.on('stopped', (e) => (second = e));
  again.start();
  await until(() => second !== undefined, 10_000);
  expect(second).toMatchObject({ code: 'unauthenticated' });
  expect(() => again.record(reading(h.clock.now()))).toThrow(DeviceStoppedError);
});
