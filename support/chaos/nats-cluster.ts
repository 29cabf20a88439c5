/**
 * A three-server NATS cluster on loopback for fault tests and the chaos bench (STYLE "An
 * acknowledgement is a promise": kill a NATS server). Each server runs JetStream with its own store
 * directory under one temporary directory, its own client port, and routes to the others (a size of
 * 1 is a lone JetStream server with no routes); `kill` stops one by PID with -9,
 * `stopAll` stops the rest and removes the directory. Ready once JetStream answers with a meta
 * leader, so streams with three replicas can be created.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { freePort } from '../node-http.ts';
import { tempDir } from '../stores.ts';

export const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

export interface NatsServer {
  name: string;
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  up: boolean;
}

export class NatsCluster {
  readonly servers: NatsServer[] = [];
  private readonly dir = tempDir('wf-nats-cluster-');

  async start(size = 3): Promise<void> {
    const client = await Promise.all(Array.from({ length: size }, () => freePort()));
    const route = await Promise.all(Array.from({ length: size }, () => freePort()));
    for (let i = 0; i < size; i++) {
      const name = `s${i + 1}`;
      const routes = route.filter((_, j) => j !== i).map((p) => `nats://127.0.0.1:${p}`).join(',');
      const clustered = size > 1 ? ['--cluster_name', 'wfc', '-cluster', `nats://127.0.0.1:${route[i]}`, '-routes', routes] : [];
      const args = ['-a', '127.0.0.1', '-p', String(client[i]), '-n', name, '-js', '-sd', `${this.dir}/${name}`, ...clustered];
      const child = spawn(NATS_SERVER, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr!.resume();
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      this.servers.push({ name, url: `127.0.0.1:${client[i]}`, child, exited, up: true });
    }
    await this.ready(30_000);
  }

  /** One server's client URL; a client learns the others from its INFO. */
  url(i: number): string {
    return this.servers[i].url;
  }

  byName(name: string): NatsServer {
    const s = this.servers.find((x) => x.name === name);
    if (!s) throw new Error(`no server ${name} in the cluster`);
    return s;
  }

  /** kill -9 one server by PID. */
  async kill(name: string): Promise<void> {
    const s = this.byName(name);
    s.up = false;
    s.child.kill('SIGKILL');
    await s.exited;
  }

  async stopAll(): Promise<void> {
    for (const s of this.servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await Promise.all(this.servers.map((s) => s.exited));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Waits until JetStream answers account info on every server (a meta leader was elected). */
  private async ready(ms: number): Promise<void> {
    const deadline = performance.now() + ms;
    for (const s of this.servers) {
      for (;;) {
        try {
          const nc = await connect({ servers: s.url, reconnect: false, timeout: 1000 });
          try {
            await (await jetstreamManager(nc, { timeout: 1000 })).getAccountInfo();
            break;
          } finally {
            await nc.close();
          }
        } catch (e) {
          if (performance.now() > deadline) throw new Error(`NATS server ${s.name} has no JetStream after ${ms} ms: ${(e as Error).message}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    }
  }
}
