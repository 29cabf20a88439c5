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
  /** The client's address as the socket has it (rate limits of requests without a credential). */
  address?: string;
}

/** Exactly what the transport sends. */
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** HEAD: the head only, its Content-Length the body's (RFC 9110 9.3.2). */
  headOnly?: boolean;
}

/**
 * Why the transport refuses a request before the pipeline sees it: a body over the cap, or a
 * Transfer-Encoding the transport cannot read (anything but chunked).
 */
export type EarlyReason = 'payload_too_large' | 'transfer_encoding';

/** Called when a request cannot even be read; answers with a response. */
/** An answer from the request's head alone, written after `holdMs` (0: at once; gateway/holds.ts). */
export interface EarlyAnswer {
  response: WireResponse;
  holdMs: number;
}

export type EarlyRefusal = (req: Omit<WireRequest, 'body'>, reason: EarlyReason) => WireResponse;

/** How a WebSocket is closed (RFC 6455 7.4): a status code and a reason of at most 123 bytes. */
export interface SocketClose {
  code: number;
  reason: string;
}

/** What is sent back for one frame: a frame, then, when set, a close. */
export interface SocketReply {
  frame?: { data: string | Uint8Array; binary: boolean };
  close?: SocketClose;
}

export interface SocketRoute {
  path: string;
  /** The largest frame the socket reads; a larger one is refused by `admit`. */
  maxFrameBytes: number;
  /** Authenticates the upgrade; returns the connection's session or a refusal to send instead. */
  authenticate(req: Omit<WireRequest, 'body'>): Promise<{ ok: true; session: unknown } | { ok: false; response: WireResponse }>;
  /** Before a frame is copied: a reply to send instead of reading it, or undefined to read it. */
  admit(session: unknown, byteLength: number, binary: boolean): SocketReply | undefined;
  /** One frame in, one reply back. Never rejects. */
  message(session: unknown, frame: Uint8Array, binary: boolean): Promise<SocketReply>;
  /** The connection opened: `send` writes a frame unprompted (false when closed or its buffer is full). */
  opened?(session: unknown, send: (data: string | Uint8Array, binary: boolean) => boolean): void;
  /** The connection closed. */
  closed?(session: unknown): void;
}
