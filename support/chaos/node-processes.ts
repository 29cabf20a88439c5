/**
 * Cluster node processes for the loopback failover tests and the chaos bench (DESIGN "Sharding"):
 * each a child running a node main (`test/cluster/node-main.ts` or another) on a free port, on one
 * store namespace, ready once it prints `listening`. `stopAll` kills what is left and deletes the
 * namespace on the shared NATS and Redis; `killAll` only kills, for nodes on servers of a bench's
 * own that go away whole.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../../runtime/index.ts';
import { freePort } from '../node-http.ts';
import { clusterTestStores, natsUrl, redisUrl } from '../stores.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Proc {
  id: string;
  port: number;
  child: ChildProcess;
  exited: Promise<number | null>;
  up: boolean;
}

export class NodeProcesses {
  readonly procs: Proc[] = [];

  constructor(
    private readonly namespace: string,
    private readonly main: string,
    private readonly opts: { nodeArgs?: string[]; env?: Record<string, string>; logDir?: string } = {},
  ) {}

  live(): Proc[] {
    return this.procs.filter((p) => p.up);
  }

  async start(id: string): Promise<Proc> {
    const port = await freePort();
    const child = spawn(process.execPath, [...(this.opts.nodeArgs ?? []), '--import', 'tsx', this.main], {
      cwd: ROOT,
      env: { ...process.env, NATS_URL: natsUrl(), REDIS_URL: redisUrl(), STORE_NAMESPACE: this.namespace, NODE_ID: id, PORT: String(port), ...this.opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const p: Proc = { id, port, child, exited, up: false };
    this.procs.push(p);
    let err = '';
    child.stderr!.on('data', (d) => (err = (err + String(d)).slice(-4000)));
    if (this.opts.logDir) {
      const log = createWriteStream(`${this.opts.logDir}/${id}.log`);
      child.stdout!.pipe(log);
      child.stderr!.pipe(log);
    }
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d) => {
        if (String(d).includes('listening')) resolve();
      });
      void exited.then((code) => reject(new Error(`${id} exited (${code}) before listening: ${err}`)));
    });
    p.up = true;
    return p;
  }

  /** kill -9 one node by its PID. */
  async kill(p: Proc): Promise<void> {
    p.up = false;
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await p.exited;
  }

  async killAll(): Promise<void> {
    await Promise.all(this.procs.map((p) => this.kill(p)));
  }

  async stopAll(): Promise<void> {
    await this.killAll();
    const cleanup = await clusterTestStores(new ManualClock(), { namespace: this.namespace, ephemeral: true });
    await cleanup.close();
  }
}
