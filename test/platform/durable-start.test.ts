/**
 * `npm start` is durable by default (DESIGN "Stores"; README): what it acknowledged is still there
 * after it stops and starts again on the same DATA_DIR; one process serves a directory; a signal to
 * the npm process stops the platform gracefully. Run once, in the local project (the child
 * processes use no store family of the test's).
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { exitOf, startMain, type MainProcess } from '../../support/main-process.ts';
import { tempDir } from '../../support/stores.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const dataDir = () => {
  const d = tempDir('wf-durable-');
  dirs.push(d);
  return d;
};

async function call(p: MainProcess, method: string, path: string, opts: { key?: string; body?: unknown; idem?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.key) headers['service-api-key'] = opts.key;
  if (opts.idem) headers['idempotency-key'] = opts.idem;
  const res = await fetch(`http://127.0.0.1:${p.port}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  return { status: res.status, body: (await res.json()) as any, replay: res.headers.get('service-idempotent-replay') };
}

async function stop(p: MainProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const exited = exitOf(p.child);
  p.child.kill(signal);
  expect(await exited).toBe(0);
}

const REGISTRATION = { organisation_name: 'Acme Ltd', name: 'Ada Obi', email: 'ada@acme.example', password: 'a long unusual passphrase' };
const NGN = (amount: number) => ({ amount, currency: 'NGN' });

describe.runIf(process.env.TEST_STORES === 'local')('npm start is durable by default (DESIGN "Stores")', () => {
  it('stopped and started again on the same DATA_DIR, it keeps the organisation, its keys, its runs and its idempotency records', async () => {
    const dir = dataDir();
    let p = await startMain({ DATA_DIR: dir });
    expect(p.output()).toContain(`local, durable; data: ${dir}`);
    const reg = await call(p, 'POST', '/v1/registrations', { body: REGISTRATION });
    expect(reg.status).toBeLessThan(300);
    const key = reg.body.api_key.key as string;
    const second = await call(p, 'POST', '/v1/api_keys', { key, idem: 'key-2', body: { name: 'second' } });
    expect(second.status).toBeLessThan(300);
    const imported = await call(p, 'POST', '/v1/payroll/imports', {
      key, idem: 'import-1',
      body: {
        format: 'json',
        employer: { headcount: 12, turnover_50m_or_more: false, maker_checker_threshold: NGN(1_000_000_000) },
        rows: [{ payee_ref: 'emp-001', monthly_basic: NGN(25_000_000), monthly_housing: NGN(12_500_000), monthly_transport: NGN(7_500_000), state_of_residence: 'NG-LA', nhf_contributing: true, pension_administrator: 'pfa_example', bank_identifier: '0123456789', starts_on: '2026-01-01' }],
      },
    });
    expect(imported.status).toBeLessThan(300);
    const run = await call(p, 'POST', '/v1/payroll/runs', { key, idem: 'run-1', body: { period: '2026-01', run_type: 'regular' } });
    expect(run.status).toBe(201);
    await stop(p);

    p = await startMain({ DATA_DIR: dir });
    try {
      const keys = await call(p, 'GET', '/v1/api_keys', { key });
      expect(keys.status).toBe(200);
      expect(keys.body.data).toHaveLength(2);
      expect((await call(p, 'GET', '/v1/api_keys', { key: second.body.key })).status).toBe(200);
      const read = await call(p, 'GET', `/v1/payroll/runs/${run.body.id}`, { key });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ id: run.body.id, period: '2026-01', status: run.body.status });
      const list = await call(p, 'GET', '/v1/payroll/runs', { key });
      expect(list.body.data.map((r: { id: string }) => r.id)).toEqual([run.body.id]);
      // the same key and body answers the first response again, from the record kept on disk
      const again = await call(p, 'POST', '/v1/payroll/runs', { key, idem: 'run-1', body: { period: '2026-01', run_type: 'regular' } });
      expect(again.replay).toBe('true');
      expect(again.body.id).toBe(run.body.id);
      // the email stays taken, and its password still signs in
      expect((await call(p, 'POST', '/v1/registrations', { body: REGISTRATION })).status).toBe(409);
      expect((await call(p, 'POST', '/v1/sessions', { body: { email: REGISTRATION.email, password: REGISTRATION.password } })).status).toBeLessThan(300);
    } finally {
      await stop(p);
    }
  });

  it('a second process on the same DATA_DIR is refused with a clear message, and the first keeps serving', async () => {
    const dir = dataDir();
    const p = await startMain({ DATA_DIR: dir });
    try {
      await expect(startMain({ DATA_DIR: dir })).rejects.toThrow(new RegExp(`exited 2 .*in use by another platform process \\(pid ${p.child.pid}\\)`, 's'));
      expect((await call(p, 'GET', '/v1/me')).status).toBe(401);
    } finally {
      await stop(p);
    }
  });

  it('a directory left by a process killed with -9 is taken over by the next start', async () => {
    const dir = dataDir();
    const p = await startMain({ DATA_DIR: dir });
    const reg = await call(p, 'POST', '/v1/registrations', { body: REGISTRATION });
    const exited = exitOf(p.child);
    p.child.kill('SIGKILL');
    await exited;
    const next = await startMain({ DATA_DIR: dir });
    try {
      expect((await call(next, 'GET', '/v1/api_keys', { key: reg.body.api_key.key })).status).toBe(200);
    } finally {
      await stop(next);
    }
  });

  it('STORE=memory says it keeps nothing after exit, and starts empty again', async () => {
    const p = await startMain({ STORE: 'memory' });
    expect(p.output()).toContain('memory, nothing is kept after exit');
    await stop(p);
    await expect(startMain({ STORE: 'disk' })).rejects.toThrow(/exited 2 .*STORE must be local or memory/s);
  });

  it('SIGTERM to the npm start process stops the platform gracefully (npm passes it on)', async () => {
    const p = await startMain({ DATA_DIR: dataDir() }, ['npm', 'start', '--silent']);
    const exited = exitOf(p.child);
    p.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(p.output()).toContain('stopped cleanly');
    await expect(fetch(`http://127.0.0.1:${p.port}/v1/me`)).rejects.toThrow();
  });
});
