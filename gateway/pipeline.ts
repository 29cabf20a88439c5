/**
 * The request pipeline (DESIGN "Gateway"), transport-free: a WireRequest in, a WireResponse out.
 *
 *   route (404 / 405; HEAD as GET) -> request id -> credential (401) -> organisation (from the
 *   credential only) -> scope (403 forbidden naming it) -> rate limits (429: the credential's and
 *   the organisation's buckets, or the address's for a POST without a credential) -> sandbox caps
 *   (429 sandbox_work_limit_reached for memory-heavy work past its share; the request's creates
 *   held to the record cap while it runs) -> body read
 *   (415 / 400 unreadable JSON, or JSON nested or sized beyond the bounds)
 *   -> idempotency (400 missing / invalid / reused; replay; wait) -> schema validation (400 naming
 *   every field; invalid_money_amount) -> handler -> JSON
 *
 * The body cap (413) and unreadable framing (400: a Transfer-Encoding other than chunked) are
 * applied by the transport before any of this, with the same request-id and error shape
 * (refuse()). Every response carries Service-Request-Id.
 */
import { ApiError, AUTHENTICATOR, type Authenticator, CREDENTIAL_HEADERS, flat, jsonBoundsRefusal, MEMBERSHIP, newId, outcomeUnknown, type Platform, type Principal, requiredScope, type RouteDef, type RouteRequest, type RouteResult, SANDBOX_CAPS } from '../kernel/index.ts';
import { errorResponse } from './error-response.ts';
import { REPLAY_HEADER, REQUEST_ID_HEADER } from './headers.ts';
import './formats.ts';
import { checkKey, type Executed, fingerprint, Idempotency } from './idempotency.ts';
import { GatewayMetrics, type OrgClass } from './metrics.ts';
import { earlyRefusal, RateLimiter, RefusedCredentials } from './rate-limits.ts';
import { ratePolicy } from './rate-policy.ts';
import { HOLDS_NOTHING, SandboxWork } from './sandbox-work.ts';
import { Router } from './router.ts';
import { assertValid, compile, parseQuery, type Validator } from './validate.ts';
import { HOLD_MAX_MS } from './holds.ts';
import type { EarlyAnswer, EarlyReason, EarlyRefusal, WireRequest, WireResponse } from './wire.ts';

/**
 * Every request header the pipeline, the credentials and the handlers read; the transport copies no
 * other (a handler that needs another header adds it here). The second list is read only on
 * methods other than GET and HEAD: a body's type, and the Idempotency-Key of a POST.
 */
export const REQUEST_HEADERS: readonly string[] = CREDENTIAL_HEADERS;
export const BODY_REQUEST_HEADERS: readonly string[] = ['idempotency-key', 'content-type'];

/** What the metrics label a request with, filled in as the pipeline learns it. */
interface Seen {
  route: string;
  orgClass: OrgClass;
}

interface Mounted {
  def: RouteDef;
  scope: string | null;
  body?: Validator;
  query?: Validator;
}

export interface Pipeline {
  handle(req: WireRequest): Promise<WireResponse>;
  early(head: Omit<WireRequest, 'body'>): EarlyAnswer | undefined;
  metrics: GatewayMetrics;
  refuse: EarlyRefusal;
  routes(): readonly RouteDef[];
}

export interface PipelineOptions {
  maxBodyBytes: number;
  /** Routes the gateway adds itself (the OpenAPI document). */
  extraRoutes?: RouteDef[];
}

const JSON_TYPE = 'application/json';

export function createPipeline(platform: Platform, opts: PipelineOptions): Pipeline {
  const p = new RequestPipeline(platform, opts);
  // Bound once here: the transport calls these detached (ServeOptions.handle, .refuse).
  return { handle: (w) => p.handle(w), early: (head) => p.early(head), refuse: (req, reason) => p.refuse(req, reason), routes: () => p.router.routes(), metrics: p.metrics };
}

/**
 * The pipeline's steps as methods rather than closures: one object per pipeline, and a request
 * allocates nothing for them.
 */
class RequestPipeline {
  readonly router = new Router();
  private readonly mounted = new Map<RouteDef, Mounted>();
  private readonly idem: Idempotency;
  private readonly authenticator: Authenticator;
  private readonly limits: RateLimiter;
  private readonly refused: RefusedCredentials;
  private readonly work: SandboxWork;
  /** The longest an early refusal is held (holds.ts; platform config RATE_LIMIT_HOLD_MS, 0: never). */
  private readonly holdMaxMs: number;
  readonly metrics: GatewayMetrics;
  /**
   * An answer leaves only once every write made so far is on disk and every turn answered so far
   * committed (DESIGN "Stores": acknowledged means flushed; docs/architecture.md "Stores";
   * ActorSystem.flushed). A read waits too: over the local stores a turn's callers are answered
   * before its commit, so a read may have seen a turn a crash could still take back. A flush that
   * fails leaves a change's outcome unknown (its writes may be on disk): `outcome_unknown`, whose
   * retry with the same Idempotency-Key replays or completes; a read is answered `unavailable`.
   */
  private readonly flushed: (() => Promise<void>) | undefined;

  constructor(
    private readonly platform: Platform,
    private readonly opts: PipelineOptions,
  ) {
    for (const def of [...platform.areas.flatMap((a) => a.routes), ...(opts.extraRoutes ?? [])]) this.mount(def);
    this.idem = new Idempotency(platform.stores.kv, platform.services.get(MEMBERSHIP), platform.stores.claims);
    this.authenticator = platform.services.require(AUTHENTICATOR);
    this.metrics = new GatewayMetrics(platform);
    const membership = platform.services.get(MEMBERSHIP);
    const policy = ratePolicy(platform.config.RATE_POLICY_FILE ?? process.env.RATE_POLICY_FILE);
    this.refused = new RefusedCredentials(policy.pack.buckets_kept);
    const hold = Number(platform.config.RATE_LIMIT_HOLD_MS ?? process.env.RATE_LIMIT_HOLD_MS ?? HOLD_MAX_MS);
    this.holdMaxMs = Number.isFinite(hold) && hold >= 0 ? Math.min(hold, HOLD_MAX_MS) : HOLD_MAX_MS;
    this.limits = new RateLimiter(policy, () => platform.clock.now(), () => membership?.liveCount?.() ?? 1);
    this.flushed = platform.stores.flushed ? () => platform.system.flushed() : undefined;
    this.work = new SandboxWork(platform.services.require(SANDBOX_CAPS), this.router.routes());
    platform.system.board.add('sandbox-work', () => this.work.figures());
  }

  /** Compiles a route's scope and schemas once, at start, so no request compiles them. */
  private mount(def: RouteDef): void {
    this.router.add(def);
    this.mounted.set(def, {
      def,
      scope: def.auth === 'key' ? requiredScope(def) : null,
      body: def.body ? compile(def.body) : undefined,
      query: def.query ? compile(def.query) : undefined,
    });
  }

  async handle(w: WireRequest): Promise<WireResponse> {
    const began = performance.now();
    const seen: Seen = { route: 'unmatched', orgClass: 'none' };
    let response = await this.answer(w, seen);
    if (this.flushed !== undefined) response = await this.confirmed(w, response, this.flushed);
    if (w.method === 'HEAD') response.headOnly = true;
    this.metrics.observe(seen.route, w.method, response.status, seen.orgClass, (performance.now() - began) / 1000);
    return response;
  }

  /** The answer once what it rests on is on disk (`flushed`), or the refusal that says it is not. */
  private async confirmed(w: WireRequest, response: WireResponse, flushed: () => Promise<void>): Promise<WireResponse> {
    try {
      await flushed();
    } catch {
      const requestId = response.headers[REQUEST_ID_HEADER] ?? newId('req_');
      if (w.method === 'GET' || w.method === 'HEAD') return errorResponse(new ApiError('unavailable', 'What this read found could not be confirmed on disk; retry.', { retryable: true }), requestId);
      return errorResponse(outcomeUnknown('The change could not be confirmed on disk'), requestId);
    }
    return response;
  }

  private async answer(w: WireRequest, seen: Seen): Promise<WireResponse> {
    const requestId = newId('req_');
    try {
      // HEAD is answered wherever GET is, with GET's head (RFC 9110 9.3.2)
      const match = this.router.match(w.method === 'HEAD' ? 'GET' : w.method, w.path);
      if (match.kind === 'not_found') throw new ApiError('not_found', `No endpoint at ${w.path}.`);
      if (match.kind === 'method_not_allowed') {
        const allow = (match.allow.includes('GET') ? [...match.allow, 'HEAD'] : match.allow).join(', ');
        return errorResponse(new ApiError('method_not_allowed', `${w.method} is not allowed on ${w.path}; allowed: ${allow}.`), requestId, { allow });
      }
      const m = this.mounted.get(match.route)!;
      seen.route = m.def.path;
      const principal = m.def.auth === 'none' ? undefined : authorize(m, await this.authenticator.authenticate(m.def.auth, w.headers));
      if (principal) seen.orgClass = principal.livemode ? 'live' : 'sandbox';
      const refused = principal ? this.limits.admitPrincipal(principal) : w.method === 'POST' && w.address !== undefined ? this.limits.admitAddress(w.address) : undefined;
      if (refused) {
        // from here until its bucket refills, this credential is refused from the request's head (early)
        if (principal) this.refused.note(RefusedCredentials.raw(w.headers, CREDENTIAL_HEADERS)!, this.platform.clock.now() + refused.waitMs);
        return errorResponse(refused.error, requestId, refused.headers);
      }
      // a sandbox request: its creates are held to the record cap while it runs, and memory-heavy work to its share
      const held = principal === undefined || principal.livemode ? HOLDS_NOTHING : this.work.begin(m.def, principal.org, requestId, w.method !== 'GET' && w.method !== 'HEAD');
      if (typeof held !== 'number') return errorResponse(held.error, requestId, held.headers);
      if (held === HOLDS_NOTHING) return await this.admitted(m, w, match.params, principal, requestId);
      try {
        return await this.admitted(m, w, match.params, principal, requestId);
      } finally {
        this.work.end(principal!.org, requestId, held);
      }
    } catch (e) {
      return errorResponse(e, requestId);
    }
  }

  /** A request past its route, credential, scope and limits: body, idempotency, then the handler. */
  private async admitted(m: Mounted, w: WireRequest, params: Record<string, string>, principal: Principal | undefined, requestId: string): Promise<WireResponse> {
    const rawBody = readBody(w);
    const key = w.method === 'POST' ? checkKey(w.headers['idempotency-key'], m.def.idempotent && m.def.auth !== 'none') : undefined;
    if (key === undefined || !principal) return (await this.execute(m, w, rawBody, params, principal, requestId)).response;

    const { response, replay } = await this.idem.run(principal.org, key, fingerprint(w.method, w.path, w.body), () =>
      this.execute(m, w, rawBody, params, principal, requestId, key),
    );
    return replay ? replayed(response, requestId) : response;
  }

  /** Schema validation, the handler and its JSON; errors become responses so a POST's is kept for replays. */
  private async execute(m: Mounted, w: WireRequest, rawBody: unknown, params: Record<string, string>, principal: Principal | undefined, requestId: string, idempotencyKey?: string): Promise<Executed> {
    try {
      const query = parseQuery(m.query, w.query);
      let body: unknown = rawBody;
      if (m.body) {
        body = rawBody === undefined ? {} : rawBody;
        assertValid(m.body, body);
      }
      // an operation whose records are counted up front is refused whole before it makes any
      const admitted = principal !== undefined && !principal.livemode ? this.work.admit(m.def, requestId, body) : undefined;
      const refused = admitted instanceof Promise ? await admitted : admitted;
      if (refused !== undefined) throw refused;
      const req: RouteRequest = {
        params,
        query,
        body,
        headers: w.headers,
        principal,
        org: principal?.org ?? '',
        livemode: principal?.livemode ?? false,
        requestId,
        idempotencyKey,
        platform: this.platform,
      };
      const out = await m.def.handler(req as RouteRequest<never, never>);
      const response = toResponse(out, m.def.status ?? 200, requestId);
      if (principal && w.method === 'POST' && typeof response.body === 'string') {
        const redacted = withoutSecrets(isRouteResult(out) ? out.body : out);
        if (redacted !== undefined) return { response, replayBody: flat(JSON.stringify(redacted)) };
      }
      return { response };
    } catch (e) {
      return { response: errorResponse(e, requestId, undefined, w.method !== 'GET' && w.method !== 'HEAD') };
    }
  }

  /**
   * A credential refused a moment ago is refused again from the head alone, until its wait is
   * over. Such a request came in spite of the first refusal's Retry-After, so its refusal is held
   * for the whole hold (holds.ts), however soon the bucket refills: a sender that keeps sending
   * is slowed to one request per connection per hold. It says what is left of the wait.
   */
  early(head: Omit<WireRequest, 'body'>): EarlyAnswer | undefined {
    if (this.refused.empty) return undefined; // the common case costs one check
    const raw = RefusedCredentials.raw(head.headers, CREDENTIAL_HEADERS);
    const wait = raw === undefined ? 0 : this.refused.waiting(raw, this.platform.clock.now());
    if (wait === 0) return undefined;
    this.metrics.observe('over_budget', head.method, 429, 'none', 0);
    const holdMs = this.holdMaxMs;
    return { response: earlyRefusal(Math.max(0, wait - holdMs), newId('req_')), holdMs };
  }

  refuse(req: Omit<WireRequest, 'body'>, reason: EarlyReason): WireResponse {
    const error =
      reason === 'payload_too_large'
        ? new ApiError('payload_too_large', `The request body is larger than ${this.opts.maxBodyBytes} bytes.`)
        : new ApiError('invalid_request', `Transfer-Encoding ${JSON.stringify(req.headers['transfer-encoding'] ?? '').slice(0, 80)} cannot be read; send the body chunked or with a Content-Length.`);
    return errorResponse(error, newId('req_'));
  }
}

/** The credential's scope and kind must fit the route (403 naming what is missing). */
function authorize(m: Mounted, principal: Principal): Principal {
  if (m.scope !== null && !principal.scopes.has(m.scope)) {
    throw new ApiError('forbidden', `This request needs the scope ${m.scope}, which the credential does not carry.`);
  }
  if (principal.kind === 'device' && m.def.devices !== true) {
    throw new ApiError('forbidden', `A worker's device credential acts only for its worker's heartbeats, availability, offers and assignment steps; ${m.def.method} ${m.def.path} needs an organisation key.`);
  }
  return principal;
}

/** A replay answers with this request's id, and says it is a replay. */
function replayed(response: WireResponse, requestId: string): WireResponse {
  return { status: response.status, headers: { ...response.headers, [REQUEST_ID_HEADER]: requestId, [REPLAY_HEADER]: 'true' }, body: response.body };
}

/**
 * Unreadable JSON, or JSON beyond the depth and size bounds (kernel/json-bounds.ts, checked before it is
 * parsed or validated), is 400 invalid_request; a body of another media type is 415.
 */
function readBody(w: WireRequest): unknown {
  if (w.body.length === 0) return undefined;
  const type = w.headers['content-type'];
  if (type !== undefined && !type.toLowerCase().startsWith(JSON_TYPE)) {
    throw new ApiError('unsupported_media_type', `The request body must be ${JSON_TYPE}; got ${type}.`);
  }
  const beyond = jsonBoundsRefusal(w.body);
  if (beyond !== undefined) throw new ApiError('invalid_request', beyond);
  try {
    return JSON.parse(w.body.toString('utf8'));
  } catch (e) {
    throw new ApiError('invalid_request', `The request body is not valid JSON: ${(e as Error).message}.`);
  }
}

/**
 * Fields that carry a secret shown once (spec 5.2; webhook secrets alike). An idempotent replay
 * answers them as null: the platform keeps no secret, only digests.
 */
export const SHOWN_ONCE_FIELDS: ReadonlySet<string> = new Set(['key', 'client_secret', 'access_token', 'secret', 'token']);

/** A copy of `x` with shown-once fields nulled (two levels deep), or undefined when it has none. */
function withoutSecrets(x: unknown, depth = 0): unknown {
  if (typeof x !== 'object' || x === null || Array.isArray(x) || depth > 1) return undefined;
  const rec = x as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const k in rec) {
    if (!Object.hasOwn(rec, k)) continue;
    const v = rec[k];
    const inner = SHOWN_ONCE_FIELDS.has(k) && typeof v === 'string' ? null : withoutSecrets(v, depth + 1);
    if (inner !== undefined) (copy ??= { ...rec })[k] = inner;
  }
  return copy;
}

const RESULT_KEYS = new Set(['status', 'body', 'headers', 'raw']);

/** A handler returns a record (sent as JSON) or a RouteResult. Records always carry `object`. */
function isRouteResult(x: unknown): x is RouteResult {
  if (typeof x !== 'object' || x === null || Array.isArray(x) || 'object' in x) return false;
  const keys = Object.keys(x);
  return keys.length > 0 && keys.every((k) => RESULT_KEYS.has(k)) && ('body' in x || 'raw' in x);
}

/**
 * JSON of frozen records, reused: a frozen object cannot change, so its text cannot either. Areas
 * opt in by freezing the views they memoise (the api key list is read on every key list call).
 */
const frozenJson = new WeakMap<object, string>();

function recordJson(x: unknown): string {
  if (typeof x !== 'object' || x === null || !Object.isFrozen(x)) return JSON.stringify(x) ?? 'null';
  let j = frozenJson.get(x);
  if (j === undefined) {
    j = JSON.stringify(x);
    frozenJson.set(x, j);
  }
  return j;
}

/**
 * The body's JSON as one flat string (kernel flat): the socket write reads it whole anyway, and a
 * POST's reply is kept for idempotent replays.
 */
function toJson(out: unknown): string {
  const env = out as { object?: unknown; data?: unknown; has_more?: unknown };
  if (env !== null && typeof env === 'object' && env.object === 'list' && Array.isArray(env.data) && typeof env.has_more === 'boolean' && Object.keys(env).length === 3) {
    let body = '{"object":"list","data":[';
    for (let i = 0; i < env.data.length; i++) body += (i ? ',' : '') + recordJson(env.data[i]);
    return flat(body + '],"has_more":' + env.has_more + '}');
  }
  return flat(recordJson(out));
}

function toResponse(out: unknown, status: number, requestId: string): WireResponse {
  if (isRouteResult(out)) {
    const headers: Record<string, string> = { ...lower(out.headers), [REQUEST_ID_HEADER]: requestId };
    if (out.raw) {
      headers['content-type'] = out.raw.contentType;
      return { status: out.status ?? status, headers, body: out.raw.bytes };
    }
    headers['content-type'] = JSON_TYPE;
    return { status: out.status ?? status, headers, body: out.body === undefined ? '' : toJson(out.body) };
  }
  return { status, headers: { 'content-type': JSON_TYPE, [REQUEST_ID_HEADER]: requestId }, body: toJson(out) };
}

function lower(h: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (h) for (const k in h) out[k.toLowerCase()] = h[k];
  return out;
}
