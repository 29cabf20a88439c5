/** Helpers for the operator tests: the real CLI process, whole lists, and a populated organisation. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import type { Harness, Registered } from '../../support/http.ts';
import { calculatedRun, importPayees, key, type PayeeRow } from '../payroll/support.ts';

const run = promisify(execFile);
export const ROOT = join(import.meta.dirname, '..', '..');
/** tsx by its file, so the CLI starts from any working directory. */
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** `npm run operator -- ...` as a process of its own; rejects with its exit code, stdout and stderr when it fails. */
export const cli = (args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) =>
  run(process.execPath, ['--import', TSX, join(ROOT, 'operator', 'cli.ts'), ...args], { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env } });

/** Every record of a list endpoint, page by page (newest first unless the list says otherwise). */
export async function listAll(h: Harness, path: string, k: string): Promise<any[]> {
  const out: any[] = [];
  for (let after: string | undefined; ; ) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await h.request('GET', `${path}${sep}limit=100${after ? `&starting_after=${after}` : ''}`, { key: k });
    expect(r.status, r.text).toBe(200);
    out.push(...r.body.data);
    if (!r.body.has_more) return out;
    after = r.body.data[r.body.data.length - 1].id;
  }
}

export const payee = (n: number): PayeeRow => ({
  payee_ref: `emp-${n}`,
  monthly_basic: 10_000_000 + n * 1_234,
  monthly_housing: 5_000_000,
  monthly_transport: 3_000_000,
  monthly_other_allowances: 2_000_000,
  state_of_residence: ['NG-LA', 'NG-FC', 'NG-OG'][n % 3],
  nhf_contributing: n % 2 === 0,
  pension_administrator: 'pfa_a',
});

export interface Populated {
  o: Registered;
  /** A second API key of the organisation, made through the API. */
  second: { id: string; key: string };
  importId: string;
  profiles: string[];
  runId: string;
}

/** An organisation with a second key, three payees imported and a calculated payroll run. */
export async function populate(h: Harness): Promise<Populated> {
  const o = await h.register();
  const k = await h.request('POST', '/v1/api_keys', { key: o.key, idempotencyKey: key(), body: { name: 'second' } });
  expect(k.status, k.text).toBeLessThan(300);
  const imported = await importPayees(h, o.key, [payee(1), payee(2), payee(3)], { headcount: 12, turnover_50m_or_more: false, maker_checker_threshold: 0 });
  const run = await calculatedRun(h, o.key, '2026-01');
  return { o, second: { id: k.body.id, key: k.body.key }, importId: imported.id, profiles: imported.rows.map((r) => r.pay_profile_id), runId: run.id };
}

/** Reads a populated organisation back through the API: every record by id, and its lists whole. */
export async function expectPopulated(h: Harness, p: Populated, keys: string[]): Promise<void> {
  for (const k of keys) {
    const run = await h.request('GET', `/v1/payroll/runs/${p.runId}`, { key: k });
    expect(run.status, run.text).toBe(200);
    expect(run.body).toMatchObject({ id: p.runId, status: 'simulated', period: '2026-01' });
  }
  const imp = await h.request('GET', `/v1/payroll/imports/${p.importId}`, { key: p.o.key });
  expect(imp.status, imp.text).toBe(200);
  expect(imp.body.status).toBe('completed');
  for (const id of p.profiles) expect((await h.request('GET', `/v1/pay_profiles/${id}`, { key: p.o.key })).status).toBe(200);
  expect((await listAll(h, '/v1/payroll/runs', p.o.key)).map((r) => r.id)).toEqual([p.runId]);
  expect((await listAll(h, `/v1/payroll/runs/${p.runId}/payslips`, p.o.key)).length).toBe(3);
  expect((await listAll(h, '/v1/api_keys', p.o.key)).map((k) => k.id)).toEqual(expect.arrayContaining([p.o.keyId, p.second.id]));
}
