/**
 * A redis-server of a test's own on a free loopback port, with no persistence: the shared Redis
 * is never flushed or stopped, so a test that loses Redis loses this one. Stopped by its PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from '../../support/node-http.ts';
import { until } from '../../support/until.ts';

export const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

export class OwnRedis {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<OwnRedis> {
    const r = new OwnRedis(await freePort());
    await r.launch();
    return r;
  }

  /** Empties every database, as a Redis restarted without its data would be. */
  async flushAll(): Promise<void> {
    const c = new Redis(this.url, { lazyConnect: true });
    try {
      await c.connect();
      await c.flushall();
    } finally {
      c.disconnect();
    }
  }

  /** Kills the server with -9 and starts an empty one on the same port. */
  async restartEmpty(): Promise<void> {
    await this.stop();
    await this.launch();
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    this.child = undefined;
  }

  private async launch(): Promise<void> {
    this.child = spawn(REDIS_SERVER, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await until(async () => {
      const c = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      c.on('error', () => {});
      try {
        await c.connect();
        return (await c.ping()) === 'PONG';
      } catch {
        return false;
      } finally {
        c.disconnect();
      }
    }, 10_000);
  }
}
