/**
 * What the transport (uws.ts) and the rest of the gateway exchange: plain data copied out of
 * uWebSockets.js, so the pipeline, the sockets and the error mapping never touch the transport.
 */

/** What the pipeline sees of a request: plain copied data. */
export interface WireRequest {
  method: string;
  path: string;
  /** Raw query string without '?'. */
  query: string;
  /** The request headers the platform reads (ServeOptions.headers) that the client sent, by lower-cased name. */
  headers: Record<string, string>;
  body: Buffer;
}

/** Exactly what the transport sends. */
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

/** Called when a request cannot even be read (body over the cap); answers with a response. */
export type EarlyRefusal = (req: Omit<WireRequest, 'body'>, reason: 'payload_too_large') => WireResponse;

export interface SocketRoute {
  path: string;
  maxPayloadBytes: number;
  /** Authenticates the upgrade; returns per-connection data or a refusal to send instead. */
  authenticate(req: Omit<WireRequest, 'body'>): Promise<{ ok: true; data: unknown } | { ok: false; response: WireResponse }>;
  /** One frame in, one frame back. */
  message(data: unknown, frame: Uint8Array, binary: boolean): Promise<{ frame: string | Uint8Array; binary: boolean }>;
}
