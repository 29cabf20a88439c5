/**
 * A redis-server of a test's (or the chaos bench's) own on a free loopback port: the shared Redis
 * is never flushed or stopped, so a test that loses Redis loses this one. Stopped by its PID. With
 * no persistence by default; `persistDir` gives it an append-only file fsynced on every write in
 * that directory, so a restart on the same directory comes back with what it acknowledged.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from '../node-http.ts';
import { until } from '../until.ts';

export const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

export class OwnRedis {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly persistDir?: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(opts: { persistDir?: string } = {}): Promise<OwnRedis> {
    const r = new OwnRedis(await freePort(), opts.persistDir);
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
    if (this.persistDir) throw new Error('a persistent OwnRedis restarts with its data: use restart()');
    await this.restart();
  }

  /** Kills the server with -9 and starts it again on the same port (and directory, if persistent). */
  async restart(): Promise<void> {
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
    const persistence = this.persistDir ? ['--dir', this.persistDir, '--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    this.child = spawn(REDIS_SERVER, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', ...persistence], { stdio: 'ignore' });
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
