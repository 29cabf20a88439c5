/**
 * The platform's log (kernel/base/log.ts; docs/architecture.md "Logs"): JSON lines with time,
 * level, area and message, a fault with its stack; plain text on a terminal; and never a secret:
 * fields named for a secret are redacted at any depth, and a platform run through registration,
 * key creation, a refused credential and a fault writes none of the secrets it handled.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createRootLog, logOf, setRootLog } from '../../kernel/base/log.ts';
import { startHarness } from '../../support/http.ts';

/** A stream that keeps what is written; `tty` makes it look like a terminal. */
function capture(tty = false): Writable & { text: () => string; isTTY?: boolean } {
  const chunks: string[] = [];
  const w = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  }) as Writable & { text: () => string; isTTY?: boolean };
  // pino writes to a destination through write(string)
  (w as unknown as { write: (s: string) => boolean }).write = (s: string) => (chunks.push(s), true);
  w.text = () => chunks.join('');
  if (tty) w.isTTY = true;
  return w;
}

afterEach(() => setRootLog(createRootLog()));

describe('log (kernel/base/log.ts)', () => {
  it('writes JSON lines with time, level, area and message; a fault carries its error and stack', () => {
    const out = capture();
    setRootLog(createRootLog(out, 'info'));
    logOf('probe').info('started', { request_id: 'req_1' });
    logOf('probe').error('it broke', new Error('disk gone'));
    logOf('probe').debug('not at info');
    const lines = out.text().trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 30, area: 'probe', msg: 'started', request_id: 'req_1' });
    expect(Date.parse(lines[0].time)).not.toBeNaN();
    expect(lines[1]).toMatchObject({ level: 50, area: 'probe', msg: 'it broke', err: { message: 'disk gone' } });
    expect(lines[1].err.stack).toMatch(/Error: disk gone\n\s+at /);
  });

  it('redacts every field named for a secret, at any depth', () => {
    const out = capture();
    setRootLog(createRootLog(out, 'info'));
    logOf('probe').warn('planted', { key: 'sk_test_PLANTEDKEY1', password: 'PLANTED-PASSWORD-2', nested: { token: 'PLANTED-TOKEN-3', deeper: { client_secret: 'PLANTED-SECRET-4' } }, headers: { 'service-api-key': 'sk_live_PLANTEDKEY5' }, fine: 'kept' });
    const text = out.text();
    for (const s of ['PLANTEDKEY1', 'PLANTED-PASSWORD-2', 'PLANTED-TOKEN-3', 'PLANTED-SECRET-4', 'PLANTEDKEY5']) expect(text).not.toContain(s);
    expect(text).toContain('[redacted]');
    expect(JSON.parse(text).fine).toBe('kept');
  });

  it('on a terminal, writes the same lines as plain text', () => {
    const out = capture(true);
    setRootLog(createRootLog(out, 'info'));
    logOf('probe').info('listening', { port: 8080 });
    expect(out.text()).toMatch(/^\d\d:\d\d:\d\d\.\d{3} info {2}\[probe\] listening port=8080\n$/);
  });

  it('a platform run handling a password, a new key and a refused credential writes none of those secrets', async () => {
    const out = capture();
    setRootLog(createRootLog(out, 'debug'));
    const h = await startHarness();
    try {
      const created = await h.request('POST', '/v1/api_keys', { idempotencyKey: 'log-probe', body: { name: 'probe' } });
      expect(created.status).toBe(200);
      expect((await h.request('GET', '/v1/api_keys', { key: 'sk_test_WRONGKEYPLANTED000000000000000000000000' })).status).toBe(401);
      logOf('probe').error('a fault while holding a request', new Error('planted fault'), { request_id: 'req_probe', body: { password: h.registration.password, key: created.body.key } });
    } finally {
      await h.close();
    }
    const text = out.text();
    expect(text).toContain('planted fault');
    for (const secret of [h.registration.password, h.key, h.session]) expect(text).not.toContain(secret);
    expect(text).not.toContain('WRONGKEYPLANTED');
  });
});
