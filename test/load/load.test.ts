/**
 * `npm run load` (docs/gaps.md#console): the target rule, the flags, and a short run against a
 * platform started as `npm start` starts it, whose own counter of accepted readings and count of
 * work orders filled must agree with the tool's. The run is on wall time by nature: it loads a
 * live server.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoad } from '../../load/cli.ts';
import { Dispatch } from '../../load/dispatch.ts';
import { seriesColor } from '../../load/html.ts';
import { Metrics } from '../../load/metrics.ts';
import { checkTargets, isPrivateAddress, parseArgs, parseDuration } from '../../load/options.ts';
import { haveChromium, launch } from '../console/browser.ts';
import { startPlatform, type StartedPlatform } from './started-platform.ts';

describe('the target rule', () => {
  it('report charts give every series its own colour, however many (twenty operations, twenty colours)', () => {
    expect(new Set(Array.from({ length: 20 }, (_, i) => seriesColor(i))).size).toBe(20);
  });

  it('a loopback or private test address is accepted: 127/8, 10/8, 172.16/12, 192.168/16, ::1, fc00::/7', () => {
    for (const ip of ['127.0.0.1', '127.4.5.6', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.10', '::1', 'fd12:3456::1', '::ffff:10.0.0.1']) expect(isPrivateAddress(ip), ip).toBe(true);
    for (const ip of ['8.8.8.8', '172.32.0.1', '172.15.0.1', '192.169.0.1', '169.254.169.254', '2001:db8::1', '100.64.0.1']) expect(isPrivateAddress(ip), ip).toBe(false);
  });

  it('a target that is not on a loopback or private address is refused unless --i-own-this-target says the operator owns it', async () => {
    const publicHost = async () => ['93.184.216.34'];
    await expect(checkTargets([new URL('http://8.8.8.8:8080')], false, publicHost)).rejects.toThrow(/refusing target.*--i-own-this-target/);
    await expect(checkTargets([new URL('http://platform.example:8080')], false, publicHost)).rejects.toThrow(/93\.184\.216\.34/);
    await expect(checkTargets([new URL('http://127.0.0.1:1'), new URL('http://8.8.8.8:1')], false, publicHost)).rejects.toThrow(/8\.8\.8\.8/);
    await expect(checkTargets([new URL('http://platform.example:8080')], true, publicHost)).resolves.toBeUndefined();
    await expect(checkTargets([new URL('http://box.local:8080'), new URL('http://[::1]:8080')], false, async () => ['192.168.0.7'])).resolves.toBeUndefined();
  });
});

describe('flags', () => {
  it('rates, counts and durations are set by flags; one or many targets; a wrong flag is refused with the usage', () => {
    expect(parseDuration('60s')).toBe(60_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('2m')).toBe(120_000);
    expect(() => parseDuration('soon')).toThrow(/duration/);
    const o = parseArgs(['--target', 'http://127.0.0.1:8080,10.0.0.2:8080', '--target=http://10.0.0.3:8080', '--devices', '20000', '--duration', '60s', '--interval', '5s', '--bad-share', '0.1', '--dispatchers', '2', '--eligible-share', '0.25', '--work-order-rate', '3']);
    expect(o.targets.map((t) => t.origin)).toEqual(['http://127.0.0.1:8080', 'http://10.0.0.2:8080', 'http://10.0.0.3:8080']);
    expect(o).toMatchObject({ devices: 20000, sockets: 2000, durationMs: 60_000, intervalMs: 5000, badShare: 0.1, dispatchers: 2, eligibleShare: 0.25, workOrderRate: 3, ownTarget: false });
    expect(parseArgs(['--target', 'http://127.0.0.1:1'])).toMatchObject({ dispatchers: 0, eligibleShare: 0.1, workOrderRate: 1 });
    expect(() => parseArgs(['--target', 'http://127.0.0.1:1', '--eligible-share', '1.5'])).toThrow(/--eligible-share/);
    expect(parseArgs(['--target', 'http://127.0.0.1:1', '--devices', '10']).sockets).toBe(10);
    expect(() => parseArgs([])).toThrow(/--target is required/);
    expect(() => parseArgs(['--target', 'http://127.0.0.1:1', '--frobnicate'])).toThrow(/unknown flag/);
    expect(() => parseArgs(['--target', 'http://127.0.0.1:1', '--devices', '-3'])).toThrow(/--devices/);
  });
});

describe('dispatchers', () => {
  it('a deployment without work orders: the dispatchers stand down with "work orders are not served by this deployment" and make no worker eligible', async () => {
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      req.resume().on('end', () => res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'not_found', message: 'No route.' } })));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const target = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const d = new Dispatch([target], 'sk_test_x', 'run', new Metrics(), () => 0.5, { dispatchers: 2, eligibleShare: 1, workOrderRate: 5 });
      expect(await d.setup(['w1', 'w2'], () => {})).toBe(false);
      expect(d.outcome).toMatchObject({ served: false, eligible: 0 });
      expect(d.outcome.note).toBe('work orders are not served by this deployment (GET /v1/allocation/work_orders answered 404)');
      expect(asked).toEqual(['GET /v1/allocation/work_orders?limit=1']);
      expect((await d.finish(0.01)).agreement).toBeUndefined();
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('a run against a started platform', () => {
  let platform: StartedPlatform;
  let port = 0;
  let dir = '';

  beforeAll(async () => {
    platform = await startPlatform('load-test-');
    ({ port, dir } = platform);
  }, 60_000);

  afterAll(() => platform?.stop());

  it('a device on a socket of its own is a phone on the device library (clients/device): every good reading accepted once, every bad one refused, the platform agreeing with the tool', async () => {
    const o = parseArgs(['--target', `http://127.0.0.1:${port}`, '--devices', '16', '--interval', '400ms', '--duration', '2s', '--bad-share', '0.2', '--read-rate', '0', '--quiet', '--report', join(dir, 'phones.html')]);
    expect(o.sockets).toBe(16);
    const out = await runLoad(o, () => {});
    expect(out.unanswered).toBe(0);
    const c = out.counters;
    const good = c['good readings sent'];
    const bad = Object.entries(c).filter(([k]) => k.startsWith('bad sent: ')).reduce((a, [, n]) => a + n, 0);
    expect(good).toBeGreaterThan(40);
    expect(c['readings sent']).toBe(good + bad);
    expect(c['readings accepted (receipts)']).toBe(good);
    expect(Object.entries(c).filter(([k]) => k.startsWith('rejected: ')).reduce((a, [, n]) => a + n, 0)).toBe(bad);
    expect(out.platform.accepted).toBe(good);
    expect(out.agreement?.within).toBe(true);
    const frames = out.summary.find((s) => s.name === 'heartbeat frame')!;
    expect(frames.errors).toBe(0);
    expect(out.summary.find((s) => s.name === 'ws connect')!.count).toBe(16);
  });

  it('two runs in a row against one organisation (LOAD_API_KEY) both pass their own checks: the platform\'s counters are read as differences from a snapshot before each run', async () => {
    const reg = await fetch(`http://127.0.0.1:${port}/v1/registrations`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organisation_name: 'Twice Ltd', name: 'Load Tester', email: `twice.${process.pid}@load-test.example`, password: 'violet-harmattan-7-kettle' }),
    });
    const key = ((await reg.json()) as { api_key: { key: string } }).api_key.key;
    for (const run of [1, 2]) {
      const o = parseArgs(['--target', `http://127.0.0.1:${port}`, '--devices', '8', '--interval', '400ms', '--duration', '1s', '--bad-share', '0', '--read-rate', '0', '--quiet', '--report', join(dir, `twice-${run}.html`)], { LOAD_API_KEY: key });
      const out = await runLoad(o, () => {});
      expect(out.agreement, `run ${run}`).toMatchObject({ within: true });
      expect(out.platform.accepted, `run ${run}`).toBe(out.counters['readings accepted (receipts)']);
      // setup steps are marked and carry no rate; the heartbeat frames are the load's
      expect(out.summary.find((r) => r.name === 'ws connect')?.setup).toBe(true);
      expect(out.summary.find((r) => r.name === 'heartbeat frame')?.setup).toBe(false);
    }
  });

  it('devices over WebSockets, API readers and dispatchers run for the duration; the platform\'s readings-accepted counter and its count of work orders filled agree with the tool\'s within 1%; every bad reading is refused; the HTML report is written', async () => {
    const report = join(dir, 'report.html');
    const o = parseArgs(['--target', `http://127.0.0.1:${port}`, '--devices', '60', '--sockets', '12', '--interval', '500ms', '--duration', '3s', '--bad-share', '0.2', '--read-rate', '20', '--dispatchers', '2', '--eligible-share', '0.5', '--work-order-rate', '4', '--quiet', '--report', report]);
    const out = await runLoad(o, () => {});
    expect(out.unanswered).toBe(0);
    expect(out.platform.served).toBe(true);
    expect(out.agreement?.within, JSON.stringify(out.platform)).toBe(true);
    const c = out.counters;
    const good = c['good readings sent'];
    const bad = Object.entries(c).filter(([k]) => k.startsWith('bad sent: ')).reduce((a, [, n]) => a + n, 0);
    expect(good).toBeGreaterThan(200);
    expect(bad).toBeGreaterThan(10);
    expect(c['readings sent']).toBe(good + bad);
    // the tool's expectation, the receipts and the platform's own count are one figure
    expect(c['readings accepted (receipts)']).toBe(good);
    expect(out.platform.accepted).toBe(good);
    const rejected = Object.entries(c).filter(([k]) => k.startsWith('rejected: ')).reduce((a, [, n]) => a + n, 0);
    expect(rejected).toBe(bad);
    if (c['bad sent: inaccurate']) expect(c['rejected: accuracy_below_threshold']).toBe(c['bad sent: inaccurate']);
    if (c['bad sent: future']) expect(c['rejected: recorded_in_the_future']).toBe(c['bad sent: future']);
    const ops = out.summary.map((s) => s.name);
    expect(ops).toEqual(expect.arrayContaining(['heartbeat frame', 'GET supply (nearest 25)', 'GET integrity_flags', 'GET availability/{worker}', 'PUT availability', 'ws connect']));
    const frames = out.summary.find((s) => s.name === 'heartbeat frame')!;
    expect(frames.errors).toBe(0);
    expect(frames.p99).toBeGreaterThanOrEqual(frames.p50);

    // dispatchers: half the workers made eligible through the identity and engagements APIs; work orders opened around them, offers accepted
    const d = out.dispatch!;
    expect(d.served, d.note).toBe(true);
    expect(d.eligible).toBe(30);
    expect(d.eligibleFailed).toBe(0);
    expect(d.opened).toBeGreaterThanOrEqual(5);
    expect(d.filled).toBeGreaterThan(0);
    expect(d.offersAccepted).toBeGreaterThanOrEqual(d.filled);
    expect(d.filled + d.unfilled + d.openAtEnd).toBe(d.opened);
    expect(d.platformFilled).toBe(d.filled);
    expect(d.agreement).toEqual({ difference: 0, within: true });
    expect(ops).toEqual(expect.arrayContaining(['POST work_orders', 'GET work_order offers', 'POST offers/{id}/accept', 'setup: POST verifications', 'setup: POST activate']));
    const opened = out.summary.find((s) => s.name === 'POST work_orders')!;
    expect(opened.errors).toBe(0);
    expect(opened.p99).toBeGreaterThanOrEqual(opened.p50);

    const html = readFileSync(report, 'utf8');
    expect(html).toContain('uPlot');
    expect(html).toContain('heartbeat frame');
    expect(html).toMatch(/within 1%/);
    expect(html).toContain(`Work orders filled: the platform counted ${d.platformFilled}`);
    if (haveChromium) {
      const browser = await launch();
      try {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`file://${report}`);
        expect(await page.locator('.uplot canvas').count()).toBe(4);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    }
  }, 90_000);
});
