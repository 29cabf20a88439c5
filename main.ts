/**
 * `npm start`: one platform process. Durable by default: the local stores in DATA_DIR (default
 * ./data), one process owns every shard; STORE=memory keeps everything on the heap instead (gone at
 * exit); a cluster node when NATS_URL and REDIS_URL are set (docs/cluster.md).
 *
 * SIGINT / SIGTERM: stop making webhook attempts at once (those pending stay pending for a restart,
 * docs/gaps.md#delivery), stop accepting connections and answer every request still arriving on open
 * ones, with Connection: close, until none is open or SHUTDOWN_GRACE_MS (default 12 s) has passed
 * (docs/gaps.md#gateway); then hand shards to the other nodes (cluster), drain every mailbox, flush
 * snapshots, close the stores, exit 0. A second signal exits at once (one within a second of the
 * first is npm passing the same one on). `npm start` execs node, so a signal to npm reaches it.
 */
import { hostname } from 'node:os';
import { stopWebhookAttempts } from './actors/delivery/index.ts';
import { areas } from './actors/index.ts';
import { DEFAULT_CLOSE_GRACE_MS, serveMetrics, startGateway } from './gateway/index.ts';
import { startOperatorSocket } from './operator/server.ts';
import { ClusterNode } from './runtime/cluster/index.ts';
import { createPlatform, logOf, MEMBERSHIP, stopPlatform } from './kernel/index.ts';
import { SystemClock } from './runtime/index.ts';
import { createStores, StoreSetupError, type ClusterStores, type Stores } from './stores/index.ts';

/** A second signal within this long of the first is the same one passed on by npm (shutdown). */
const SIGNAL_ECHO_MS = 1_000;

/** Actors kept in memory over the local stores unless MAX_ACTIVE_ACTORS says otherwise. */
const LOCAL_MAX_ACTIVE = 50_000;

const env = process.env;
const PLATFORM_LOG = logOf('platform');
const log = (msg: string) => PLATFORM_LOG.info(msg, env.NODE_ID ? { node: env.NODE_ID } : undefined);

const port = Number(env.PORT ?? 8080);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  PLATFORM_LOG.error(`PORT must be a port number, not ${JSON.stringify(env.PORT)}`);
  process.exit(2);
}

const grace = Number(env.SHUTDOWN_GRACE_MS ?? DEFAULT_CLOSE_GRACE_MS);
if (!Number.isInteger(grace) || grace < 0) {
  PLATFORM_LOG.error(`SHUTDOWN_GRACE_MS must be a whole number of milliseconds, not ${JSON.stringify(env.SHUTDOWN_GRACE_MS)}`);
  process.exit(2);
}

const maxActive = Number(env.MAX_ACTIVE_ACTORS ?? LOCAL_MAX_ACTIVE);
if (!Number.isInteger(maxActive) || maxActive < 1) {
  PLATFORM_LOG.error(`MAX_ACTIVE_ACTORS must be a positive whole number, not ${JSON.stringify(env.MAX_ACTIVE_ACTORS)}`);
  process.exit(2);
}

const clock = new SystemClock();
let stores: Stores;
try {
  const storesLog = logOf('stores');
  stores = await createStores(env, () => clock.now(), (msg, err) => (err === undefined ? storesLog.warn(msg) : storesLog.error(msg, err)));
} catch (e) {
  if (!(e instanceof StoreSetupError)) throw e;
  PLATFORM_LOG.error(e.message);
  process.exit(2);
}
// Over the local stores the heap holds the active records, not the data (docs/architecture.md,
// "What is kept where"): idle actors are passivated to disk past MAX_ACTIVE_ACTORS.
const local = stores.mode === 'embedded' && stores.durable;
const platform = await createPlatform({ areas, stores, clock, config: env, limits: local ? { maxActive } : undefined });
let node: ClusterNode | undefined;
if (stores.mode === 'cluster') {
  node = new ClusterNode({ stores: stores as ClusterStores, nodeId: env.NODE_ID || `${hostname()}-${process.pid}` });
  await node.start(platform.system);
  platform.services.provide(MEMBERSHIP, node); // a dead node's idempotency claims are taken over (docs/cluster.md)
}
const gateway = await startGateway(platform, { host: env.HOST ?? '0.0.0.0', port });
// Staff commands (`npm run operator`) arrive on a local Unix socket, never on the network.
const operator = await startOperatorSocket(platform); // $OPERATOR_SOCKET or a per-node default
// Prometheus metrics on a port of their own, internal like the operator socket (docs/gaps.md#metrics);
// a port already taken is said and the platform serves on without them.
const metrics = await serveMetrics(gateway.metrics, { host: env.HOST ?? '0.0.0.0', port: Number(env.METRICS_PORT ?? 9464) }).catch((e: Error) => {
  PLATFORM_LOG.warn(`metrics not served: ${e.message}`);
  return undefined;
});

/** When the first signal came (monotonic ms); undefined while serving. */
let stoppingSince: number | undefined;
async function shutdown(signal: string): Promise<void> {
  if (stoppingSince !== undefined) {
    // Ctrl-C reaches both npm and this process, and npm passes it on: a second signal this soon
    // is that copy, not someone asking again.
    if (performance.now() - stoppingSince < SIGNAL_ECHO_MS) return;
    log(`${signal} again: exiting now`);
    process.exit(1);
  }
  stoppingSince = performance.now();
  log(`${signal}: stopping`);
  try {
    stopWebhookAttempts(platform); // pending attempts wait for a restart, not for the grace
    await gateway.close(grace); // stops accepting; every request on an open connection is answered
    await operator.close();
    await metrics?.close();
    if (node) {
      await node.drain(); // shards handed over: their actors were passivated with a snapshot
      await node.stop();
    }
    await stopPlatform(platform); // drains what is left, flushes snapshots, closes the stores
    log('stopped cleanly');
    process.exit(0);
  } catch (e) {
    PLATFORM_LOG.error('shutdown failed', e);
    process.exit(1);
  }
}
// Handlers first, then the line that says it serves: a signal sent on seeing it is handled.
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
const mode = node ? `cluster node ${node.nodeId}` : local ? 'local, durable' : 'memory, nothing is kept after exit';
log(`listening on port ${gateway.port} (${mode}; data: ${stores.location}); operator socket ${operator.path}${metrics ? `; metrics on port ${metrics.port}` : ''}`);
