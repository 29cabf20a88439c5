/**
 * `npm run operator -- <command> [--flag value ...]`: staff actions on a running server, sent over
 * its operator socket ($OPERATOR_SOCKET, default <tmpdir>/workforce-operator.sock).
 *
 *   issue-client   --org org_... --name "Payroll sync" --scopes "run:read run:write"
 *                  issue an OAuth client (spec 5.3); prints client id and secret (shown once)
 *   revoke-client  --org org_... --client client_...
 *   support-access --org org_... --action "GET /v1/payroll/runs/run_..." --purpose "ticket 4411" --staff "a.bello"
 *                  record a support-access entry (spec 2.2), listed at GET /v1/support_access
 *   backup PATH    the running platform copies its data directory into PATH (new or empty) while
 *                  it serves; start with DATA_DIR=PATH to restore it (operator/backup.ts)
 *   rebuild-indexes
 *                  (cluster) the node replays the journal into the list indexes in Redis now, as
 *                  every node does by itself when it finds Redis emptied (runtime/derived-watch.ts)
 *
 * And one command that runs here, not on the socket, with the platform stopped:
 *
 *   move-to-cluster --data-dir ./data --nats 127.0.0.1:4222 --redis redis://127.0.0.1:6379 --namespace wf
 *                  copies a local data directory into a NATS JetStream and Redis namespace
 *                  (operator/move-to-cluster.ts); then start with NATS_URL, REDIS_URL, STORE_NAMESPACE
 */
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OperatorCommand } from './commands.ts';
import { moveToCluster, type MoveOptions } from './move-to-cluster.ts';
import { defaultOperatorSocket } from './server.ts';

const USAGE = `usage: npm run operator -- <command> [flags]
  on the running platform (socket: $OPERATOR_SOCKET or ${defaultOperatorSocket()}):
    issue-client   --org --name --scopes "a:read b:write"
    revoke-client  --org --client
    support-access --org --action --purpose --staff
    backup PATH    (a new or empty directory)
    rebuild-indexes (cluster: the list indexes replayed from the journal now)
  offline, the platform stopped:
    move-to-cluster --data-dir DIR --nats URL --redis URL --namespace NS [--replicas N]
                    (defaults: $DATA_DIR or ./data, $NATS_URL, $REDIS_URL, $STORE_NAMESPACE or wf)`;

const MOVE_FLAGS = ['data-dir', 'nats', 'redis', 'namespace', 'replicas'];

const whole = (v: string | undefined, what: string): number | undefined => {
  if (v === undefined || v === '') return undefined;
  if (!/^[1-9][0-9]*$/.test(v)) throw new Error(`${what} must be a positive whole number, not ${JSON.stringify(v)}`);
  return Number(v);
};

/** A command this process runs itself: the platform must be stopped for it. */
export type OfflineCommand = { op: 'move-to-cluster' } & Omit<MoveOptions, 'now' | 'log'>;

export function parseArgs(argv: string[], env: Readonly<Record<string, string | undefined>> = process.env): OperatorCommand | OfflineCommand {
  const [op, ...rest] = argv;
  const flags: Record<string, string> = {};
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(rest[i]);
    if (m) flags[m[1]] = m[2] ?? rest[++i] ?? '';
    else if (op === 'backup' && positional.length === 0) positional.push(rest[i]);
    else throw new Error(`unexpected argument ${rest[i]}\n${USAGE}`);
  }
  switch (op) {
    case 'issue-client':
      return { op, org: flags.org, name: flags.name, scopes: (flags.scopes ?? '').split(/[\s,]+/).filter(Boolean) };
    case 'revoke-client':
      return { op, org: flags.org, client: flags.client };
    case 'support-access':
      return { op, org: flags.org, action: flags.action, purpose: flags.purpose, staff: flags.staff ?? env.USER ?? '' };
    case 'rebuild-indexes':
      return { op };
    case 'backup':
      // The platform may run in another directory: a relative PATH means the one here.
      if (!positional[0]) throw new Error(`backup needs a PATH\n${USAGE}`);
      return { op, path: resolve(positional[0]) };
    case 'move-to-cluster': {
      // A mistyped flag must not fall back to a default namespace or directory.
      const unknown = Object.keys(flags).filter((f) => !MOVE_FLAGS.includes(f));
      if (unknown.length) throw new Error(`move-to-cluster does not know --${unknown.join(', --')}\n${USAGE}`);
      const natsUrl = flags.nats ?? env.NATS_URL;
      const redisUrl = flags.redis ?? env.REDIS_URL;
      if (!natsUrl || !redisUrl) throw new Error(`move-to-cluster needs --nats and --redis (or NATS_URL and REDIS_URL)\n${USAGE}`);
      const replicas = whole(flags.replicas ?? env.NATS_REPLICAS, '--replicas (NATS_REPLICAS)');
      const retention = whole(env.READING_RETENTION_MS, 'READING_RETENTION_MS');
      return {
        op,
        dataDir: resolve(flags['data-dir'] ?? env.DATA_DIR ?? './data'),
        natsUrl,
        redisUrl,
        namespace: flags.namespace ?? env.STORE_NAMESPACE ?? 'wf',
        replicas,
        readingRetentionMs: retention,
      };
    }
    default:
      throw new Error(USAGE);
  }
}

export function send(cmd: OperatorCommand, path = defaultOperatorSocket()): Promise<{ ok: boolean; result?: unknown; error?: unknown }> {
  return new Promise((done, reject) => {
    const sock = connect(path);
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('connect', () => sock.write(JSON.stringify(cmd) + '\n'));
    sock.on('data', (c: string) => (buf += c));
    sock.on('end', () => {
      try {
        done(JSON.parse(buf));
      } catch {
        reject(new Error(`operator socket answered: ${buf}`));
      }
    });
    sock.on('error', (e) => reject(new Error(`cannot reach the operator socket at ${path} (is the server running?): ${e.message}`)));
  });
}

async function main(): Promise<void> {
  let cmd: OperatorCommand | OfflineCommand;
  try {
    cmd = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error((e as Error).message);
    process.exitCode = 2;
    return;
  }
  if (cmd.op === 'move-to-cluster') {
    const { op: _, ...opts } = cmd;
    const counts = await moveToCluster({ ...opts, log: (line) => console.error(`[move-to-cluster] ${line}`) });
    console.log(JSON.stringify({ moved: opts.dataDir, namespace: opts.namespace, ...counts }, null, 2));
    console.error(`[move-to-cluster] done: start the platform with NATS_URL=${opts.natsUrl} REDIS_URL=${opts.redisUrl} STORE_NAMESPACE=${opts.namespace}`);
    return;
  }
  const out = await send(cmd);
  console.log(JSON.stringify(out.ok ? out.result : out.error, null, 2));
  if (!out.ok) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  main().catch((e) => {
    console.error((e as Error).message);
    process.exitCode = 1;
  });
}
