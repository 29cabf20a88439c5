/**
 * A value outside an enumeration is refused naming the values allowed (spec 2.1 ValidationReport:
 * each entry says what was wrong with its field; spec 7 validation_failed), so a client learns the
 * fix from the answer instead of a schema library's "Expected union value".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { areas } from '../../actors/index.ts';
import { RUN_TYPES } from '../../actors/payroll/runs/run.ts';
import { startHarness, type Harness } from '../../support/http.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ areas });
});
afterAll(async () => {
  await h.close();
});

describe('an enumerated field refuses an unknown value naming every allowed one (spec 2.1, 7)', () => {
  it('POST /v1/payroll/runs with run_type "sometimes" is 400 validation_failed whose entry lists each run type', async () => {
    const r = await h.request('POST', '/v1/payroll/runs', { body: { period: '2026-01', run_type: 'sometimes' }, idempotencyKey: 'enum-1' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    const entry = r.body.error.validation.entries.find((e: { field: string }) => e.field === '/run_type');
    expect(entry).toMatchObject({ code: 'invalid_value', severity: 'error' });
    for (const t of RUN_TYPES) expect(entry.detail).toContain(JSON.stringify(t));
    expect(entry.detail).toContain('"sometimes"');
    expect(entry.detail).not.toContain('Expected union value');
  });

  it('a long refused value is quoted cut short, never whole', async () => {
    const long = 'x'.repeat(5_000);
    const r = await h.request('POST', '/v1/payroll/runs', { body: { period: '2026-01', run_type: long }, idempotencyKey: 'enum-2' });
    const entry = r.body.error.validation.entries.find((e: { field: string }) => e.field === '/run_type');
    expect(entry.detail.length).toBeLessThan(400);
    expect(entry.detail).not.toContain(long);
  });
});
