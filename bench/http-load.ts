/**
 * The HTTP load generator the request-rate benches share: a child process (pinned to core 1 when
 * `taskset` exists, so the server under test keeps core 0) that sends either a fixed list of
 * requests once each or one request repeated for a number of seconds, over keep-alive
 * connections, and reports requests, seconds, rate and the first non-2xx answer it saw.
 * This file is the child too: `node bench/http-load.ts --load` reads its LoadSpec on stdin.
 */
import { spawn, spawnSync } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);

export interface Req {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** A fresh Idempotency-Key on every send. */
  uniqueKey?: boolean;
  /** The credential of this request (e.g. a worker's device credential); the spec's key otherwise. */
  key?: string;
}
export interface LoadSpec {
  port: number;
  key: string;
  /** A fixed list to send once each, or one request repeated for `seconds`. */
  list?: Req[];
  repeat?: Req;
  seconds: number;
  connections: number;
}
export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  non2xx: number;
  sample: string;
}

/** Whether the load child is pinned to core 1, for the benches' notes. */
export const loadPinning = (): string => (spawnSync('taskset', ['-c', '1', 'true']).status === 0 ? 'load pinned to core 1' : 'load not pinned (no taskset)');

async function load(spec: LoadSpec): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.connections });
  let done = 0;
  let non2xx = 0;
  let sample = '';
  let seq = 0;
  const send = (r: Req) =>
    new Promise<void>((resolve, reject) => {
      const headers: Record<string, string> = { 'service-api-key': r.key ?? spec.key };
      if (r.body !== undefined) headers['content-type'] = 'application/json';
      if (r.uniqueKey) headers['idempotency-key'] = `bench-${process.pid}-${seq++}`;
      const q = request({ host: '127.0.0.1', port: spec.port, method: r.method, path: r.path, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          done++;
          if ((res.statusCode ?? 0) >= 300) {
            non2xx++;
            if (!sample) sample = `${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`;
          }
          resolve();
        });
      });
      q.on('error', reject);
      if (r.body !== undefined) q.end(r.body);
      else q.end();
    });
  const start = performance.now();
  if (spec.list) {
    let next = 0;
    const list = spec.list;
    await Promise.all(Array.from({ length: spec.connections }, async () => {
      while (next < list.length) await send(list[next++]);
    }));
  } else {
    const until = start + spec.seconds * 1000;
    await Promise.all(Array.from({ length: spec.connections }, async () => {
      while (performance.now() < until) await send(spec.repeat!);
    }));
  }
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return { requests: done, seconds, rps: done / seconds, non2xx, sample };
}

/** Runs one load in a child process and answers what it measured. */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const pinned = spawnSync('taskset', ['-c', '1', 'true']).status === 0;
  const args = [...process.execArgv, SELF, '--load'];
  const child = pinned ? spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio: ['pipe', 'pipe', 'inherit'] }) : spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin!.end(JSON.stringify(spec));
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  return new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load child exited ${code}`)))));
}

if (process.argv[1] === SELF && process.argv.includes('--load')) {
  let input = '';
  process.stdin.on('data', (c) => (input += c));
  process.stdin.on('end', async () => {
    process.stdout.write(JSON.stringify(await load(JSON.parse(input) as LoadSpec)));
    process.exit(0);
  });
}
