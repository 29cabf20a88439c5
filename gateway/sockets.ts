/**
 * WebSocket endpoints (platform.areas[*].sockets). The upgrade is authenticated like a request
 * (same credential headers; the socket's `module:write` scope, since a device sends data on it), so
 * a refused upgrade gets the same status and error body as a refused request. A browser, which
 * cannot set a header on an upgrade, sends instead a single-use ticket minted with a person's
 * session as the query parameter `ticket` (docs/gaps.md#accounts): it is handed to the
 * Authenticator under SOCKET_TICKET_FIELD, a name no request header reaches it under (the transport
 * copies only CREDENTIAL_HEADERS), so a ticket opens an upgrade and nothing else. Neither this file
 * nor the transport logs a URL. Each frame gets a fresh request id; an error becomes an error frame
 * of the same shape as an error body. An area may also send frames unprompted through the frame's
 * `connection` (SocketContext: a worker's device hears of its offers, docs/gaps.md#allocation).
 *
 * A connection's rules (SocketDef: `frames`, `limits`; docs/gaps.md#gateway), checked before a
 * frame is copied (admit) or after the area refused it (message):
 *
 *   frame                                     answer
 *   ----------------------------------------  -----------------------------------------------
 *   of a type the socket does not read        close 1003
 *   over SOCKET_MAX_FRAME_BYTES               close 1009
 *   beyond framesPerSecond                    `overloaded` error frame (retryable), not read; bad
 *   refused by the area with a 4xx error      its error frame; bad
 *   the badFramesPerConnection-th bad one     its error frame, then close 1008
 *   failed with a 5xx error                   its error frame (not the client's fault: not bad)
 */
import { ApiError, AUTHENTICATOR, CREDENTIAL_HEADERS, logOf, newId, outcomeUnknown, type Platform, type Principal, SANDBOX_CAPS, type SocketConnection, type SocketDef, type SocketLimits } from '../kernel/index.ts';
import { errorBody, errorResponse, toApiError } from './error-response.ts';
import type { SocketReply, SocketRoute } from './wire.ts';

export const SOCKET_MAX_FRAME_BYTES = 1 << 20;

type Limits = SocketLimits;

/** Used where a socket's area sets no limits (docs/gaps.md#gateway). */
export const DEFAULT_SOCKET_LIMITS: Readonly<Limits> = Object.freeze({ badFramesPerConnection: 16, framesPerSecond: 1000 });

/** RFC 6455 7.4.1 status codes the gateway closes with. */
const CLOSE_UNSUPPORTED_DATA = 1003;
const CLOSE_POLICY_VIOLATION = 1008;
const CLOSE_TOO_BIG = 1009;

export const socketScope = (def: SocketDef) => `${def.module}:write`;

/** Where the upgrade's ticket is handed to the Authenticator (actors/accounts/socket-tickets.ts: the same string). */
export const SOCKET_TICKET_FIELD = 'service-socket-ticket';
/** A ticket is a prefixed secret of a few dozen characters; anything far longer is not one. */
const TICKET_MAX = 128;

/** The credential of an upgrade: its headers, or its `ticket` query parameter (not both). */
function credentialOf(req: { query: string; headers: Readonly<Record<string, string>> }): Readonly<Record<string, string>> {
  if (!req.query.includes('ticket=')) return req.headers;
  const tickets = new URLSearchParams(req.query).getAll('ticket');
  if (tickets.length !== 1 || !tickets[0] || tickets[0].length > TICKET_MAX) throw new ApiError('unauthenticated', 'Send one socket ticket as ?ticket=<token> (POST /v1/account/socket_tickets).');
  if (Object.keys(req.headers).some((h) => (CREDENTIAL_HEADERS as readonly string[]).includes(h))) {
    throw new ApiError('unauthenticated', 'The upgrade carries a credential header and a socket ticket; send one.');
  }
  return { [SOCKET_TICKET_FIELD]: tickets[0] };
}

/** One connection's state: who it is, its limits, and what it has spent of them. */
interface Session {
  principal: Principal;
  limits: Limits;
  /** Error frames sent for the client's own faults. */
  bad: number;
  /** Token bucket of frames: tokens left, and the clock reading they were counted at. */
  tokens: number;
  at: number;
  /** Set when the transport opened it: what the area pushes through (SocketContext.connection). */
  connection?: Connection;
}

/** The connection an area pushes frames through; its close callbacks run once. */
class Connection implements SocketConnection {
  private closers: (() => void)[] | undefined = [];

  constructor(private readonly send: (data: string | Uint8Array, binary: boolean) => boolean) {}

  get open(): boolean {
    return this.closers !== undefined;
  }

  push(data: string | Uint8Array): boolean {
    return this.open && this.send(data, typeof data !== 'string');
  }

  onClose(fn: () => void): void {
    if (this.closers) this.closers.push(fn);
    else fn();
  }

  closed(): void {
    const fns = this.closers ?? [];
    this.closers = undefined;
    for (const fn of fns) {
      try {
        fn();
      } catch (e) {
        logOf('gateway').error('a socket close callback failed', e);
      }
    }
  }
}

export function socketRoutes(platform: Platform): SocketRoute[] {
  const authenticator = platform.services.require(AUTHENTICATOR);
  const caps = platform.services.get(SANDBOX_CAPS);
  return platform.areas.flatMap((a) => a.sockets ?? []).map((def): SocketRoute => {
    /** The error frame for a refused frame; a bad one (the client's fault) may spend the budget. */
    const errorFrame = (s: Session, err: ApiError, requestId: string, bad: boolean): SocketReply => {
      const reply: SocketReply = { frame: { data: JSON.stringify(errorBody(err, requestId)), binary: false } };
      if (bad && ++s.bad >= s.limits.badFramesPerConnection) {
        reply.close = { code: CLOSE_POLICY_VIOLATION, reason: `${s.bad} refused frames; at most ${s.limits.badFramesPerConnection} per connection.` };
      }
      return reply;
    };

    return {
      path: def.path,
      maxFrameBytes: SOCKET_MAX_FRAME_BYTES,
      async authenticate(req) {
        const requestId = newId('req_');
        try {
          const principal = await authenticator.authenticate('key', credentialOf(req));
          const scope = socketScope(def);
          if (!principal.scopes.has(scope)) throw new ApiError('forbidden', `This socket needs the scope ${scope}, which the credential does not carry.`);
          const limits = def.limits?.(platform) ?? DEFAULT_SOCKET_LIMITS;
          const session: Session = { principal, limits, bad: 0, tokens: limits.framesPerSecond, at: platform.clock.now() };
          return { ok: true as const, session };
        } catch (e) {
          return { ok: false as const, response: errorResponse(e, requestId) };
        }
      },
      admit(session, byteLength, binary) {
        const s = session as Session;
        if (def.frames !== undefined && def.frames !== (binary ? 'binary' : 'text')) {
          return { close: { code: CLOSE_UNSUPPORTED_DATA, reason: `This socket reads ${def.frames} frames only.` } };
        }
        if (byteLength > SOCKET_MAX_FRAME_BYTES) {
          return { close: { code: CLOSE_TOO_BIG, reason: `A frame is at most ${SOCKET_MAX_FRAME_BYTES} bytes.` } };
        }
        const now = platform.clock.now();
        const rate = s.limits.framesPerSecond;
        s.tokens = Math.min(rate, s.tokens + ((now - s.at) * rate) / 1000);
        s.at = now;
        if (s.tokens < 1) {
          const slow = new ApiError('overloaded', `This connection sent more than ${rate} frames a second; the frame was not read. Send more slowly.`);
          return errorFrame(s, slow, newId('req_'), true);
        }
        s.tokens -= 1;
        return undefined;
      },
      opened(session, send) {
        (session as Session).connection = new Connection(send);
      },
      closed(session) {
        (session as Session).connection?.closed();
      },
      async message(session, frame, binary) {
        const s = session as Session;
        const requestId = newId('req_');
        const sandbox = caps !== undefined && !s.principal.livemode; // a request as far as the record cap goes (pipeline.ts)
        if (sandbox) caps.began(requestId, s.principal.org);
        try {
          if (sandbox) await caps.prepare(requestId, undefined);
          const reply = await def.onMessage({ data: frame, binary }, { principal: s.principal, org: s.principal.org, livemode: s.principal.livemode, requestId, platform, connection: s.connection });
          // a receipt acknowledges what the frame stored: on disk first (pipeline.ts handle)
          try {
            if (platform.stores.flushed) await platform.system.flushed();
          } catch {
            throw outcomeUnknown('The frame could not be confirmed on disk');
          }
          return { frame: { data: reply, binary: typeof reply !== 'string' } };
        } catch (e) {
          // a frame may store what it carries (heartbeats), so a store fault under it leaves the outcome unknown
          const err = toApiError(e, requestId, true);
          return errorFrame(s, err, requestId, err.status < 500);
        } finally {
          if (sandbox) caps.ended(requestId);
        }
      },
    };
  });
}
