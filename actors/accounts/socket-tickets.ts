/**
 * WebSocket tickets (spec 5.4 sessions; docs/gaps.md#accounts): a browser cannot set a credential
 * header on a WebSocket upgrade, so a signed-in person mints a ticket with their session (POST
 * /v1/account/socket_tickets; sessions.ts mintTicket) and opens the socket with it. This file
 * redeems them (credential-records.ts asks it). A ticket:
 * - is a random secret kept only as its digest in the credential table, like every credential;
 * - lasts SOCKET_TICKET_TTL_MS and opens one upgrade: the first redemption marks it used with an
 *   atomic set-if-absent (so two nodes never both accept it) and deletes it;
 * - authenticates only an upgrade: the gateway hands it to the Authenticator under
 *   SOCKET_TICKET_FIELD, a name no request header can reach it under (the transport copies only
 *   CREDENTIAL_HEADERS; gateway/sockets.ts), and a ticket sent as a bearer credential is refused;
 * - acts as the person (their session's organisation, every named scope, as the session endpoints
 *   do), never more.
 */
import { ALL_SCOPES, ApiError, type Principal } from '../../kernel/index.ts';
import type { KeyValueStore } from '../../stores/index.ts';

export const SOCKET_TICKET_TTL_MS = 30_000;
export const SOCKET_TICKET_PREFIX = 'wst_';
/** The name the gateway hands a ticket under (gateway/sockets.ts SOCKET_TICKET_FIELD: the same string). */
export const SOCKET_TICKET_FIELD = 'service-socket-ticket';

export interface SocketTicketView {
  object: 'socket_ticket';
  livemode: false;
  mocked: false;
  /** Shown once: `token` is a field the gateway never keeps in an idempotency record. */
  token: string;
  expires_at: string;
}

/** A ticket's record in the credential table (credential-records.ts); `id` is the session's. Minted by sessions.ts. */
export interface TicketRecord {
  type: 'socket_ticket';
  digest: string;
  id: string;
  account: string;
  org: string;
  expires_at: number;
}

const usedKey = (d: string) => `socket_ticket_used:${d}`;
const scopes: ReadonlySet<string> = new Set(ALL_SCOPES);

const refused = (why: string) => new ApiError('unauthenticated', `The socket ticket is not valid: ${why} Mint another with POST /v1/account/socket_tickets.`);

/**
 * The person behind a ticket, once: a second redemption, an expired or unknown ticket is 401.
 * `remove` deletes its record from the credential table.
 */
export async function redeemTicket(kv: KeyValueStore, now: number, rec: TicketRecord | undefined, remove: (digest: string) => Promise<void>): Promise<Principal> {
  if (!rec) throw refused('it is unknown, used or expired.');
  if (rec.expires_at <= now) throw refused('it expired.');
  if (!(await kv.setIfAbsent(usedKey(rec.digest), 1, SOCKET_TICKET_TTL_MS))) throw refused('it was already used.');
  await remove(rec.digest);
  return { kind: 'session', id: rec.id, org: rec.org, livemode: false, scopes, account: rec.account };
}
