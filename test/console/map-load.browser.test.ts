/**
 * The supply map under `npm run load` with 2,000 devices (issue "Must show"; docs/gaps.md#console):
 * a platform started as `npm start` starts it, a person signed in to the console, and the load
 * tool's devices turning available and sending readings over their WebSockets. The page's supply
 * socket is never refused (it asks at most every 250 ms, within the feed's 20 frames a second), and
 * the workers are drawn as they come. Wall time by nature: it loads a live server.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoad } from '../../load/cli.ts';
import { parseArgs } from '../../load/options.ts';
import { startPlatform, type StartedPlatform } from '../load/started-platform.ts';
import { haveChromium, launch, mustHaveChromium, OUTPUT } from './browser.ts';

const run = haveChromium || mustHaveChromium;
const DEVICES = 2000;
const BUDGET = 20;

let platform: StartedPlatform;
let port = 0;
let dir = '';
let browser: Browser;
let page: Page;
const refused: string[] = [];

describe.skipIf(!run)('supply map under a 2,000-device load', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    platform = await startPlatform('console-load-');
    ({ port, dir } = platform);
    browser = await launch();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it(`${DEVICES} devices: the page's supply socket is never refused and never asks beyond the budget; the workers are drawn`, async () => {
    const person = { organisation_name: 'Map Load Ltd', name: 'Dispatcher Ade', email: `map.load.${process.pid}@example.ng`, password: 'violet-harmattan-7-kettle' };
    const reg = await fetch(`http://127.0.0.1:${port}/v1/registrations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(person) });
    expect(reg.status).toBe(200);
    const key = ((await reg.json()) as { api_key: { key: string } }).api_key.key;

    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // The page's own clock times each ask as it is sent: the test process hears of frames late
    // and in bunches on a loaded machine, which would crowd asks into one second that the page spread out.
    await page.addInitScript(() => {
      const sends: number[] = ((window as unknown as { supplySends: number[] }).supplySends = []);
      const send = WebSocket.prototype.send;
      WebSocket.prototype.send = function (this: WebSocket, data: Parameters<WebSocket['send']>[0]) {
        if (this.url.includes('/supply/stream')) sends.push(performance.now());
        return send.call(this, data);
      };
    });
    page.on('websocket', (ws) => {
      if (!ws.url().includes('/supply/stream')) return;
      ws.on('framereceived', (f) => String(f.payload).startsWith('{"error"') && refused.push(String(f.payload)));
    });
    await page.goto(`http://127.0.0.1:${port}/console`);
    await page.fill('input[name=email]', person.email);
    await page.fill('input[name=password]', person.password);
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('[data-testid=live-status][data-state=live]', { timeout: 30_000 });

    const o = parseArgs(['--target', `http://127.0.0.1:${port}`, '--devices', String(DEVICES), '--sockets', '100', '--interval', '2s', '--duration', '8s', '--bad-share', '0', '--read-rate', '0', '--quiet', '--report', join(dir, 'map-load.html')], { LOAD_API_KEY: key });
    const out = await runLoad(o, () => {});
    expect(out.counters['readings accepted (receipts)']).toBeGreaterThan(DEVICES);

    await expect.poll(async () => Number(await page.getAttribute('#map', 'data-workers-drawn')), { timeout: 60_000, interval: 1000 }).toBe(DEVICES);
    await page.screenshot({ path: join(OUTPUT, 'map-2000-devices.png') });
    expect(refused).toEqual([]);
    expect(await page.getAttribute('#map', 'data-feed-refusals')).toBeNull();
    const sent = await page.evaluate(() => (window as unknown as { supplySends: number[] }).supplySends);
    let worst = 0;
    for (let i = 0, j = 0; i < sent.length; i++) {
      while (sent[i]! - sent[j]! >= 1000) j++;
      worst = Math.max(worst, i - j + 1);
    }
    expect(sent.length).toBeGreaterThan(5);
    expect(worst).toBeLessThanOrEqual(BUDGET / 4 + 1);
  });
});
