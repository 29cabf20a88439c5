/**
 * A platform started as `npm start` starts it (main.ts in a child process, memory stores, a free
 * port on loopback, its operator socket in a temporary folder), for the tests that load a live
 * server with `npm run load` (docs/gaps.md#console).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface StartedPlatform {
  port: number;
  /** A temporary folder of the test's own (reports, the operator socket). */
  dir: string;
  url: string;
  stop(): Promise<void>;
}

/** Starts the platform and answers once it listens; `prefix` names its temporary folder. */
export async function startPlatform(prefix: string): Promise<StartedPlatform> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const server: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], { cwd: root, env: { ...process.env, PORT: '0', HOST: '127.0.0.1', OPERATOR_SOCKET: join(dir, 'operator.sock'), NATS_URL: '', REDIS_URL: '' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening on port (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    server.once('exit', (code) => reject(new Error(`the platform exited (${code}): ${out}`)));
  });
  const stop = async () => {
    if (server.exitCode !== null) return;
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  };
  return { port, dir, url: `http://127.0.0.1:${port}`, stop };
}
