/**
 * Graceful stop (DESIGN "The runtime": "stop accepting, drain"; DESIGN "Sharding": a SIGTERM produces no client-visible
 * error): closing the gateway refuses new connections but answers every request already taken, and every request
 * still arriving on an open connection, with Connection: close (docs/gaps.md#gateway).
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { untilTurn } from '../../support/until.ts';
import { areas } from '../../actors/index.ts';
import { type Area, route } from '../../kernel/index.ts';
import { startHarness } from '../../support/http.ts';
import { probeArea } from './probe-area.ts';
import { get, RawConnection, type RawResponse } from './raw-http.ts';
import { openSocket } from './raw-ws.ts';

function gate() {
  let open!: () => void;
  let entered!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const reached = new Promise<void>((r) => (entered = r));
  return { open, entered, opened, reached };
}

describe('gateway close (graceful stop)', () => {
  it('answers a request already running when close() is called, then refuses new connections', async () => {
    const g = gate();
    const slow: Area = {
      name: 'slow',
      kinds: [],
      routes: [
        route({
          method: 'GET',
          path: '/v1/probe/slow',
          auth: 'none',
          module: null,
          idempotent: false,
          summary: 'probe: waits for the test',
          handler: async () => {
            g.entered();
            await g.opened;
            return { object: 'probe_slow', done: true };
          },
        }),
      ],
    };
    const h = await startHarness({ areas: [...areas, slow] });
    try {
      const pending = fetch(`${h.url}/v1/probe/slow`);
      await g.reached; // the handler is running
      let closed = false;
      const closing = h.gatewayClose().then(() => (closed = true));
      await new Promise((r) => setImmediate(r));
      expect(closed).toBe(false); // close waits for the request it took
      // but takes no new connection
      const refused = await new Promise<string>((resolve) => {
        const sock = connect(h.port, '127.0.0.1');
        sock.on('connect', () => (sock.destroy(), resolve('connected')));
        sock.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      });
      expect(refused).toBe('ECONNREFUSED');
      g.open();
      const res = await pending;
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ object: 'probe_slow', done: true });
      await closing;
      expect(closed).toBe(true);
    } finally {
      g.open();
      await h.close();
    }
  });
});

/** One keep-alive client: sends the next request as soon as an answer comes, until told Connection: close. */
async function loopClient(port: number, tally: { answered: number }) {
  const c = await RawConnection.open(port);
  let sent = 0;
  let answered = 0;
  let last: RawResponse | undefined;
  for (;;) {
    c.send(get('/v1/probe/tick'));
    sent++;
    const r = await c.next();
    if (!r) break;
    answered++;
    tally.answered++;
    last = r;
    expect(r.status).toBe(200);
    if (r.headers.connection === 'close') break;
  }
  return { sent, answered, last, ending: await c.ended };
}

describe('gateway close under keep-alive load (DESIGN "Sharding": a SIGTERM produces no client-visible error)', () => {
  it('every request sent on a keep-alive connection after close() began is answered, with Connection: close, then the connection ends', async () => {
    const h = await startHarness({ areas: [...areas, probeArea] });
    try {
      const tally = { answered: 0 };
      const clients = Array.from({ length: 12 }, () => loopClient(h.port, tally));
      await untilTurn(() => tally.answered >= 12 * 20); // mid-load
      const before = tally.answered;
      const closing = h.gatewayClose();
      const results = await Promise.all(clients);
      await closing;
      expect(tally.answered).toBeGreaterThan(before); // requests arrived after close() began and were answered
      for (const r of results) {
        expect(r.answered).toBe(r.sent); // none sent without an answer
        expect(r.last?.headers.connection).toBe('close');
        expect(r.ending).toBe('fin');
      }
    } finally {
      await h.close();
    }
  });

  it('a request arriving on an idle keep-alive connection after close() began is answered, then close() completes', async () => {
    const h = await startHarness({ areas: [...areas, probeArea] });
    try {
      const c = await RawConnection.open(h.port);
      c.send(get('/v1/probe/tick'));
      const first = await c.next();
      expect(first?.headers.connection).toBeUndefined(); // kept alive
      let closed = false;
      const closing = h.gatewayClose().then(() => (closed = true));
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r)); // close() has looked: nothing is in flight
      c.send(get('/v1/probe/tick'));
      const late = await c.next();
      expect(late?.status).toBe(200);
      expect(late?.headers.connection).toBe('close');
      expect(await c.ended).toBe('fin');
      await closing;
      expect(closed).toBe(true);
    } finally {
      await h.close();
    }
  });

  it('an open WebSocket is closed with 1001 and a reason, and close() completes', async () => {
    const h = await startHarness({ areas: [...areas, probeArea] });
    try {
      const ws = await openSocket(h.port, '/v1/probe/stream', { 'service-api-key': h.key });
      ws.send('before');
      expect(JSON.parse((await ws.next())?.text ?? '{}').echo).toBe('before');
      const closing = h.gatewayClose();
      const close = await ws.closed;
      expect(close).toMatchObject({ code: 1001, reason: expect.stringContaining('shutting down') });
      await closing;
    } finally {
      await h.close();
    }
  });
});
