/**
 * Public face of the gateway: start the HTTP/WebSocket server for a started platform.
 * Routes and sockets come from platform.areas; the OpenAPI document is served at
 * GET /v1/openapi.json without a credential.
 */
import type { Platform } from '../kernel/index.ts';
import { consoleRoutes } from './console.ts';
import { type GatewayMetrics } from './metrics.ts';
import { ownRoutes } from './openapi/route.ts';
import { BODY_REQUEST_HEADERS, createPipeline, REQUEST_HEADERS } from './pipeline.ts';
import { socketRoutes } from './sockets.ts';
import { serve } from './uws.ts';

/** Request size limit: not shown in the spec (spec 8); 1 MiB (docs/gaps.md#gateway). */
export const DEFAULT_MAX_BODY_BYTES = 1 << 20;

export interface GatewayOptions {
  host?: string;
  port: number;
  maxBodyBytes?: number;
}

export interface Gateway {
  port: number;
  /** Its requests and the runtime's figures, for serveMetrics (metrics.ts). */
  metrics: GatewayMetrics;
  /**
   * Stops accepting connections and answers every request on every open connection (with
   * Connection: close) until none is open or `graceMs` (default DEFAULT_CLOSE_GRACE_MS) has passed,
   * then drops what is left (docs/gaps.md#gateway). A second call waits for the first.
   */
  close(graceMs?: number): Promise<void>;
}

export async function startGateway(platform: Platform, opts: GatewayOptions): Promise<Gateway> {
  const configured = Number(platform.config.MAX_BODY_BYTES);
  const maxBodyBytes = opts.maxBodyBytes ?? (Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_MAX_BODY_BYTES);
  const pipeline = createPipeline(platform, { maxBodyBytes, extraRoutes: [...ownRoutes(platform), ...consoleRoutes()] });
  const served = await serve({
    host: opts.host ?? '0.0.0.0',
    port: opts.port,
    maxBodyBytes,
    headers: REQUEST_HEADERS,
    bodyHeaders: BODY_REQUEST_HEADERS,
    handle: pipeline.handle,
    refuse: pipeline.refuse,
    early: pipeline.early,
    sockets: socketRoutes(platform),
  });
  // the transport's tallies join the metrics at a scrape (docs/gaps.md#metrics)
  const off = platform.system.board.add('gateway-transport', () => {
    const s = served.stats();
    return [
      { name: 'platform_socket_connections', help: 'WebSocket connections open now (devices, the console\'s feeds).', type: 'gauge', value: s.sockets },
      { name: 'platform_socket_frames_total', help: 'WebSocket frames read since start, admitted or refused.', type: 'counter', value: s.frames },
      { name: 'platform_rate_limit_held', help: 'Early 429 refusals held now with their connection paused (gateway/holds.ts).', type: 'gauge', value: s.held },
    ];
  });
  return {
    port: served.port,
    close: (graceMs) => {
      off();
      return served.close(graceMs);
    },
    metrics: pipeline.metrics,
  };
}

export { buildOpenApi } from './openapi/build.ts';
export { openApiDocument } from './openapi/route.ts';
export { REQUEST_ID_HEADER, REPLAY_HEADER } from './headers.ts';
export { DEFAULT_CLOSE_GRACE_MS } from './uws.ts';
export { serveMetrics } from './metrics.ts';
export { ACTIVE_RATE_POLICY } from './rate-policy.ts';
export type { GatewayMetrics, MetricsServer } from './metrics.ts';
