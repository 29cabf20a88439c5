/**
 * `npm start` starts the platform and stops cleanly (DESIGN "The runtime"; README): on SIGTERM and
 * SIGINT it stops accepting, drains, flushes snapshots and exits 0. Run once, in the local project
 * (the default of `npm start`): the child processes use no store family of the test's.
 */
import { describe, expect, it } from 'vitest';
import { exitOf, startMain as start } from '../../support/main-process.ts';
import { get, RawConnection, type RawResponse } from '../gateway/raw-http.ts';

describe.runIf(process.env.TEST_STORES === 'local')('npm start (README; DESIGN "The runtime")', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`serves on its durable local default and exits 0 on ${signal} after stopping cleanly`, async () => {
      const { port, child, output } = await start();
      const res = await fetch(`http://127.0.0.1:${port}/v1/me`);
      expect(res.status).toBe(401);
      expect(res.headers.get('service-request-id')).toMatch(/^req_/);
      const exited = exitOf(child);
      child.kill(signal);
      expect(await exited).toBe(0);
      expect(output()).toContain('stopped cleanly');
      await expect(fetch(`http://127.0.0.1:${port}/v1/me`)).rejects.toThrow();
    });
  }

  it('on SIGTERM, 12 keep-alive clients mid-load get an answer to every request they send until told Connection: close, and the process exits 0', async () => {
    const { port, child } = await start();
    const clients = await Promise.all(Array.from({ length: 12 }, () => RawConnection.open(port)));
    let signalled = false;
    const loops = clients.map(async (c) => {
      let sent = 0;
      let answered = 0;
      let afterSignal = 0;
      for (let last: RawResponse | undefined; last?.headers.connection !== 'close'; ) {
        if (sent > 100_000) throw new Error('never told Connection: close');
        c.send(get('/v1/me'));
        sent++;
        last = await c.next();
        if (!last) break;
        answered++;
        if (signalled) afterSignal++;
      }
      return { sent, answered, afterSignal, ended: await c.ended };
    });
    await new Promise((r) => setTimeout(r, 200)); // the clients are mid-load when the signal comes
    const exited = exitOf(child);
    signalled = true;
    child.kill('SIGTERM');
    const results = await Promise.all(loops);
    for (const r of results) {
      expect(r.answered).toBe(r.sent); // no request went unanswered
      expect(r.ended).toBe('fin');
    }
    expect(results.reduce((n, r) => n + r.sent, 0)).toBeGreaterThan(12);
    expect(await exited).toBe(0);
  });

  it('refuses to start with a SHUTDOWN_GRACE_MS that is not a whole number of milliseconds', async () => {
    await expect(start({ SHUTDOWN_GRACE_MS: '1.5s' })).rejects.toThrow(/exited 2 .*SHUTDOWN_GRACE_MS/s);
  });
});
