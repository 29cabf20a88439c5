/**
 * Devices bench (clients/device; load/phones.ts): the load tool's devices running the device
 * library, as phones do, beside the same devices on the tool's private socket code (`--simulator`),
 * in frames answered per second, target at least 0.9x. `npm start` (local stores, the open rate
 * policy, so setup is not throttled) runs on core 0; each load run is `npm run load` on core 1 with
 * every device on a socket of its own and an offered rate above what the pair can carry, so the
 * figure is what each client side sustains. ROUNDS alternate the two, and the medians are printed
 * with the spread of the rounds.
 *
 * Sizes: BENCH_DEVICES (devices a run), BENCH_DEVICES_INTERVAL_MS, BENCH_DEVICES_SECONDS, BENCH_DEVICES_ROUNDS.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compared, round, type BenchResult } from '../report.ts';
import { startLocalNode } from '../../support/local-node.ts';
import { tempDir } from '../../support/stores.ts';

const LOAD_CLI = fileURLToPath(new URL('../../load/cli.ts', import.meta.url));
const OPEN_POLICY = fileURLToPath(new URL('../../support/rate-policy-open.json', import.meta.url));
const DEVICES = Number(process.env.BENCH_DEVICES ?? 1000);
const INTERVAL_MS = Number(process.env.BENCH_DEVICES_INTERVAL_MS ?? 50);
const SECONDS = Number(process.env.BENCH_DEVICES_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_DEVICES_ROUNDS ?? 3);

interface RunFigures {
  frames: number;
  frame_errors: number;
  frame_p99_ms: number;
  seconds: number;
  readings_accepted: number;
  unanswered: number;
}

async function loadRun(port: number, dir: string, name: string, simulator: boolean): Promise<RunFigures> {
  const summary = join(dir, `${name}.json`);
  const args = ['-c', '1', process.execPath, '--max-semi-space-size=64', '--import', 'tsx', LOAD_CLI, '--target', `http://127.0.0.1:${port}`, '--devices', String(DEVICES), '--interval', `${INTERVAL_MS}ms`, '--duration', `${SECONDS}s`, '--bad-share', '0', '--read-rate', '0', '--encoding', 'msgpack', '--quiet', '--report', join(dir, `${name}.html`), '--summary', summary, ...(simulator ? ['--simulator'] : [])];
  const child = spawn('taskset', args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`load run ${name} exited ${code}`);
  return JSON.parse(readFileSync(summary, 'utf8')) as RunFigures;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs: number[]) => `${round(Math.min(...xs))}-${round(Math.max(...xs))}`;

export default async function devices(): Promise<BenchResult[]> {
  const root = tempDir('wf-devices-');
  const node = await startLocalNode(join(root, 'data'), { core: 0, env: { RATE_POLICY_FILE: OPEN_POLICY } });
  try {
    const phones: RunFigures[] = [];
    const simulator: RunFigures[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // alternating, so neither side always meets the warmer server
      if (r % 2 === 0) simulator.push(await loadRun(node.port, root, `sim-${r}`, true)), phones.push(await loadRun(node.port, root, `phones-${r}`, false));
      else phones.push(await loadRun(node.port, root, `phones-${r}`, false)), simulator.push(await loadRun(node.port, root, `sim-${r}`, true));
    }
    const rate = (f: RunFigures) => f.frames / f.seconds;
    const p = phones.map(rate);
    const s = simulator.map(rate);
    const readingRate = (f: RunFigures) => f.readings_accepted / f.seconds;
    const pr = phones.map(readingRate);
    const sr = simulator.map(readingRate);
    const errors = [...phones, ...simulator].reduce((a, f) => a + f.frame_errors + f.unanswered, 0);
    const note = `npm start on core 0 (local stores); npm run load on core 1, ${DEVICES} devices each on a socket of its own, one reading every ${INTERVAL_MS} ms for ${SECONDS} s, msgpack; ${ROUNDS} rounds alternating, medians; rounds: device library ${spread(p)}, simulator ${spread(s)} frames/s; frame errors and unanswered over all runs: ${errors}`;
    return [
      compared('heartbeat frames answered, device library', round(median(p)), 'frames/s', 'the load tool\'s private socket code (--simulator)', round(median(s)), 0.9, note),
      compared('readings accepted, device library', round(median(pr)), 'readings/s', 'the load tool\'s private socket code (--simulator)', round(median(sr)), undefined, `the same runs; rounds: device library ${spread(pr)}, simulator ${spread(sr)} readings/s`),
    ];
  } finally {
    await node.kill();
    rmSync(root, { recursive: true, force: true });
  }
}
