/**
 * `npm start`'s entry (main.ts) as a child process for tests and benches: on loopback, a port of
 * its own, an operator socket and a data directory of its own (DATA_DIR, unless given), NATS and
 * Redis only when named.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './stores.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface MainProcess {
  port: number;
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output: () => string;
}

/** Node's arguments in `npm start` (package.json): the launcher that runs main.ts bundled (scripts/start.mjs). */
export const START_ARGS: readonly string[] = (() => {
  const script: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start;
  const args = script.split(/\s+/);
  return args.slice(args.indexOf('node') + 1);
})();

/**
 * Resolves once it prints its listening line; rejects with its output if it exits first. NATS_URL
 * and REDIS_URL are never inherited (the test projects set them for the cluster family), only
 * taken from `extra`: a cluster node is started by naming them.
 */
export function startMain(extra: NodeJS.ProcessEnv = {}, command: string[] = [process.execPath, ...START_ARGS]): Promise<MainProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', OPERATOR_SOCKET: join(tempDir('wf-main-'), 'operator.sock'), DATA_DIR: tempDir('wf-data-') };
  delete env.NATS_URL;
  delete env.REDIS_URL;
  Object.assign(env, extra);
  const child = spawn(command[0], command.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening on port (\d+) \(/.exec(out);
      if (m) resolve({ port: Number(m[1]), child, output: () => out });
    });
    child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    child.on('exit', (code) => reject(new Error(`exited ${code} before listening:\n${out}`)));
  });
}

export const exitOf = (child: ChildProcess) => new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.on('exit', (code) => r(code))));
