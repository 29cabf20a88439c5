/**
 * Graceful stop (DESIGN "The runtime": "stop accepting, drain"; DESIGN "Sharding": a SIGTERM produces no client-visible
 * error): closing the gateway refuses new connections but answers every request already taken.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { areas } from '../../actors/index.ts';
import { type Area, route } from '../../kernel/index.ts';
import { startHarness } from '../support/http.ts';

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
