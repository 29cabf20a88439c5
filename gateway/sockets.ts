/**
 * WebSocket endpoints (platform.areas[*].sockets). The upgrade is authenticated like a request
 * (same credential headers; the socket's `module:write` scope, since a device sends data on it), so
 * a refused upgrade gets the same status and error body as a refused request. Each frame gets a
 * fresh request id; an error becomes an error frame of the same shape as an error body.
 */
import { ApiError, AUTHENTICATOR, newId, type Platform, type Principal, type SocketDef } from '../kernel/index.ts';
import { errorBody, errorResponse, toApiError } from './error-response.ts';
import type { SocketRoute } from './wire.ts';

export const SOCKET_MAX_FRAME_BYTES = 1 << 20;

export const socketScope = (def: SocketDef) => `${def.module}:write`;

export function socketRoutes(platform: Platform): SocketRoute[] {
  const authenticator = platform.services.require(AUTHENTICATOR);
  return platform.areas.flatMap((a) => a.sockets ?? []).map((def) => ({
    path: def.path,
    maxPayloadBytes: SOCKET_MAX_FRAME_BYTES,
    async authenticate(req) {
      const requestId = newId('req_');
      try {
        const principal = await authenticator.authenticate('key', req.headers);
        const scope = socketScope(def);
        if (!principal.scopes.has(scope)) throw new ApiError('forbidden', `This socket needs the scope ${scope}, which the credential does not carry.`);
        return { ok: true as const, data: principal };
      } catch (e) {
        return { ok: false as const, response: errorResponse(e, requestId) };
      }
    },
    async message(data, frame, binary) {
      const principal = data as Principal;
      const requestId = newId('req_');
      try {
        const reply = await def.onMessage({ data: frame, binary }, { principal, org: principal.org, livemode: principal.livemode, requestId, platform });
        return { frame: reply, binary: typeof reply !== 'string' };
      } catch (e) {
        return { frame: JSON.stringify(errorBody(toApiError(e, requestId), requestId)), binary: false };
      }
    },
  }));
}
