/**
 * The credential table (spec 5): what the gateway asks "who is this?".
 *
 * Every credential the platform issues (API key, access token, session) is a random secret whose
 * SHA-256 digest keys a record in the platform key-value store: `cred:<digest>`. Looking a secret up
 * is one read; the record's own digest is compared in constant time. A revoked API key's record is
 * deleted before the key's actor records the revocation, so a revoked key stops at once on every
 * node; the record is derived, so an API key is also refused once its revocation is in the journal
 * (revoked-keys.ts), whatever record is left. Access tokens and sessions carry expires_at, checked
 * against the platform clock as well as stored with a TTL.
 */
import { BoundedMap } from '../../runtime/index.ts';
import { ApiError, type Auth, CREDENTIAL_HEADERS, type Principal, type Realm } from '../../kernel/index.ts';
import type { KeyValueStore } from '../../stores/index.ts';
import { timingSafeEqual } from 'node:crypto';
import { digest } from './secrets.ts';
import { redeemTicket, SOCKET_TICKET_FIELD, type TicketRecord } from './socket-tickets.ts';

/** The realms a credential is issued in (spec 5.8: sandbox and live), as the schemas enumerate them. */
export const REALMS: readonly Realm[] = ['test', 'live'];

export type CredentialRecord =
  /** `expires_at` only on a key made to end with its session (docs/gaps.md#accounts). */
  | { type: 'api_key'; digest: string; id: string; org: string; realm: Realm; scopes: string[]; expires_at?: number }
  | { type: 'access_token'; digest: string; id: string; org: string; realm: Realm; scopes: string[]; expires_at: number }
  | { type: 'session'; digest: string; id: string; account: string; org: string; expires_at: number }
  /** A worker's device credential (spec 4.7), issued by the allocation area through device-secrets.ts. */
  | { type: 'device'; digest: string; id: string; org: string; realm: Realm; worker: string; scopes: string[] }
  /** A signed-in person's single-use WebSocket ticket (socket-tickets.ts). */
  | TicketRecord;

const key = (d: string) => `cred:${d}`;

export async function putCredential(kv: KeyValueStore, rec: CredentialRecord, ttlMs?: number): Promise<void> {
  await kv.set(key(rec.digest), rec, ttlMs);
}

export async function removeCredential(kv: KeyValueStore, secretDigest: string): Promise<void> {
  await kv.delete(key(secretDigest));
}

/** Principal objects per record object (records read from an in-process store are reused). */
const principals = new WeakMap<object, Principal>();

/**
 * secret -> digest, bounded: a client sends the same credential on every request, and the digest
 * is a pure function of it. Recent secrets are kept (no per-entry bookkeeping on the hot path).
 */
interface Digest {
  hex: string;
  bytes: Buffer;
  /** The record's key-value key, made (and hashed by the store's map) once per secret. */
  recordKey: string;
}
const digests = new BoundedMap<string, Digest>(10_000);
function digestOf(secret: string): Digest {
  let d = digests.get(secret);
  if (d === undefined) {
    const hex = digest(secret);
    d = { hex, bytes: Buffer.from(hex, 'hex'), recordKey: key(hex) };
    digests.set(secret, d);
  }
  return d;
}

/** Digest bytes per record object, so the constant-time compare allocates nothing when reused. */
const recordBytes = new WeakMap<object, Buffer>();
function sameDigest(rec: CredentialRecord, d: Digest): boolean {
  let b = recordBytes.get(rec);
  if (!b) {
    b = Buffer.from(rec.digest, 'hex');
    recordBytes.set(rec, b);
  }
  return b.length === d.bytes.length && timingSafeEqual(b, d.bytes);
}

function principalOf(rec: CredentialRecord): Principal {
  let p = principals.get(rec);
  if (p) return p;
  switch (rec.type) {
    case 'api_key':
    case 'access_token':
      p = { kind: rec.type, id: rec.id, org: rec.org, livemode: rec.realm === 'live', scopes: new Set(rec.scopes), ...(rec.type === 'api_key' && rec.expires_at !== undefined ? { expiresAt: rec.expires_at } : {}) };
      break;
    case 'device':
      // Bound to one worker; the allocation area refuses it for any other worker (spec 4.7).
      p = { kind: 'device', id: rec.id, org: rec.org, livemode: rec.realm === 'live', scopes: new Set(rec.scopes), worker: rec.worker };
      break;
    case 'socket_ticket':
      throw unauthenticated('A socket ticket opens one WebSocket upgrade; it is not a credential for requests.');
    case 'session':
      // A signed-in person acts for the organisation on the session endpoints; scopes do not apply there.
      p = { kind: 'session', id: rec.id, org: rec.org, livemode: false, scopes: new Set(), account: rec.account, expiresAt: rec.expires_at };
      break;
  }
  principals.set(rec, p);
  return p;
}

/** The only headers the gateway hands an Authenticator (spec 5.1, 5.3, 5.4). */
const [AUTHORIZATION, API_KEY, SESSION] = CREDENTIAL_HEADERS;

const unauthenticated = (msg: string) => new ApiError('unauthenticated', msg);

function bearer(headers: Readonly<Record<string, string>>): string | undefined {
  const h = headers[AUTHORIZATION];
  if (!h) return undefined;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(h);
  if (!m) throw unauthenticated('The Authorization header must be "Bearer <API key or access token>".');
  return m[1];
}

async function lookup(kv: KeyValueStore, secret: string): Promise<CredentialRecord | undefined> {
  if (secret.length > 512) return undefined;
  const d = digestOf(secret);
  const rec = await kv.get<CredentialRecord>(d.recordKey);
  return rec && sameDigest(rec, d) ? rec : undefined;
}

/**
 * Resolves the credential a route needs. 'key': an API key (Service-Api-Key or Authorization:
 * Bearer, the same credential, spec 5.1), an access token (Bearer, spec 5.3) or a worker's device
 * credential (sent the same ways; spec 4.7, docs/gaps.md#allocation). 'session': a
 * Service-Session only; an API key is refused with 401 (spec 5.4).
 */
export async function authenticate(kv: KeyValueStore, now: number, auth: Exclude<Auth, 'none'>, headers: Readonly<Record<string, string>>, revoked?: { has(keyId: string): boolean }): Promise<Principal> {
  if (auth === 'session') {
    const token = headers[SESSION];
    if (!token) throw unauthenticated('This endpoint needs a signed-in session in the Service-Session header; an API key is not accepted here.');
    const rec = await lookup(kv, token);
    if (!rec || rec.type !== 'session') throw unauthenticated('The session is not valid.');
    if (rec.expires_at <= now) throw unauthenticated('The session has expired; sign in again (POST /v1/sessions).');
    return principalOf(rec);
  }
  // handed over by the gateway for a WebSocket upgrade only (socket-tickets.ts)
  const ticket = headers[SOCKET_TICKET_FIELD];
  if (ticket !== undefined) {
    const rec = await lookup(kv, ticket);
    return redeemTicket(kv, now, rec?.type === 'socket_ticket' ? rec : undefined, (d) => removeCredential(kv, d));
  }
  const fromHeader = headers[API_KEY] || undefined;
  const fromBearer = bearer(headers);
  if (fromHeader && fromBearer && fromHeader !== fromBearer) {
    throw unauthenticated('Service-Api-Key and Authorization carry different credentials; send one.');
  }
  const secret = fromHeader ?? fromBearer;
  if (!secret) throw unauthenticated('No credential: send an API key in Service-Api-Key or Authorization: Bearer <key>.');
  const rec = await lookup(kv, secret);
  if (!rec || rec.type === 'session' || rec.type === 'socket_ticket') throw unauthenticated('The API key or access token is not valid (it may have been revoked or have expired).');
  if (rec.type === 'api_key' && revoked?.has(rec.id)) throw unauthenticated('The API key or access token is not valid (it may have been revoked or have expired).');
  if (rec.type === 'access_token' && rec.expires_at <= now) throw unauthenticated('The access token has expired; request a new one (POST /v1/oauth/token).');
  if (rec.type === 'api_key' && rec.expires_at !== undefined && rec.expires_at <= now) throw unauthenticated('The API key has expired with the session it was made for; sign in again (POST /v1/sessions).');
  return principalOf(rec);
}
