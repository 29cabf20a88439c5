/**
 * Liveness and readiness for a load balancer or an orchestrator (docs/gaps.md#health), without a
 * credential and without touching an actor: `GET /healthz` answers while the process serves HTTP;
 * `GET /readyz` answers 200 only while the platform takes requests (not stopping) and its stores
 * answer a read within a second, else 503 `unavailable` saying which, so a balancer sends the
 * traffic elsewhere until it is ready again.
 */
import { ApiError, keyValue, type Platform, route, type RouteDef } from '../kernel/index.ts';

/** How long the readiness probe's store read may take. */
const STORE_PROBE_MS = 1_000;

async function storesAnswer(platform: Platform): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), STORE_PROBE_MS)));
  try {
    return await Promise.race([keyValue(platform).get('gateway:readiness-probe').then(() => true, () => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(): RouteDef[] {
  const gap = 'The specification names no health or readiness endpoint; an operator needs both (docs/gaps.md#health).';
  return [
    route({
      method: 'GET',
      path: '/healthz',
      auth: 'none',
      module: null,
      idempotent: false,
      summary: 'Liveness: the process serves HTTP.',
      specGap: gap,
      handler: async () => ({ object: 'health', status: 'alive' }),
    }),
    route({
      method: 'GET',
      path: '/readyz',
      auth: 'none',
      module: null,
      idempotent: false,
      summary: 'Readiness: the platform takes requests and its stores answer.',
      specGap: gap,
      errors: ['unavailable'],
      handler: async ({ platform }) => {
        if (platform.system.stopping) throw new ApiError('unavailable', 'This process is stopping; send requests to another.', { retryable: true });
        if (!(await storesAnswer(platform))) throw new ApiError('unavailable', `The stores did not answer within ${STORE_PROBE_MS} ms.`, { retryable: true });
        return { object: 'health', status: 'ready', stores: platform.stores.mode };
      },
    }),
  ];
}
