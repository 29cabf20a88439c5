/**
 * The runnable journeys (examples/, README walkthrough): each script runs against a freshly started
 * `npm start` (the durable local default, a data directory of its own) as a user runs it,
 * `BASE_URL=... node --import tsx examples/<name>.ts`, and must exit 0, which it does only when
 * its journey completed. The default rate policy pack applies, as for a user.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, ROOT, startMain, type MainProcess } from '../../support/main-process.ts';

let main: MainProcess;

function runExample(name: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `examples/${name}.ts`], {
      cwd: ROOT,
      env: { ...process.env, BASE_URL: `http://127.0.0.1:${main.port}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    // a journey has a minute on the sandbox's documented settings; the bound here leaves room for a slow CI machine
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe.runIf(process.env.TEST_STORES === 'local')('examples against npm start (README walkthrough)', () => {
  beforeAll(async () => {
    main = await startMain({ RATE_POLICY_FILE: '' });
  }, 60_000);
  afterAll(async () => {
    main?.child.kill('SIGTERM');
    if (main) await exitOf(main.child);
  });

  it('examples/payroll-month.ts - registration to settled payouts, accepted remittance and vaulted receipts, exit 0', async () => {
    const r = await runExample('payroll-month');
    expect(r.output).not.toMatch(/^\s*$/);
    expect(r.code, r.output).toBe(0);
  }, 180_000);

  it('examples/field-worker-day.ts - consent to proof of service and a revocation that withdraws an offer, exit 0', async () => {
    const r = await runExample('field-worker-day');
    expect(r.code, r.output).toBe(0);
  }, 180_000);
});
