// The console's only way to the platform: the public API, signed in with a person's session.
// A key endpoint refuses a session (docs/gaps.md#accounts), so after sign-in the console makes
// itself an API key from the session (POST /v1/account/api_keys: the key records the person) that
// ends with the session (expires_with_session), and revokes it on sign-out: a tab closed without
// signing out leaves no key that outlives the session. Nobody types a key into the page. Every
// POST carries an Idempotency-Key.

/** Idempotency-Key for one action; crypto.getRandomValues works outside secure contexts too. */
export function newIdempotencyKey(prefix = 'console') {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return `${prefix}-${Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')}`;
}

/** An answer the API refused: its status, code and message, shown as the API gave them. */
export class ApiRefusal extends Error {
  constructor(status, body) {
    const e = body && body.error ? body.error : { code: 'http_' + status, message: `HTTP ${status}` };
    super(e.message);
    this.status = status;
    this.code = e.code;
    this.requestId = e.request_id;
    this.body = body;
  }
}

const STORE = 'console.credentials';

export class Api {
  constructor(base = '') {
    this.base = base;
    const saved = sessionStorage.getItem(STORE);
    this.creds = saved ? JSON.parse(saved) : null;
  }

  get signedIn() { return this.creds !== null; }
  get me() { return this.creds?.me; }
  /** The scopes the page's key carries, as the API answered them. */
  get scopes() { return this.creds?.scopes ?? []; }
  can(scope) { return this.scopes.includes(scope); }

  async call(method, path, { body, credential = 'key', idempotencyKey } = {}) {
    const headers = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (credential === 'key' && this.creds) headers['service-api-key'] = this.creds.key;
    if (credential === 'session' && this.creds) headers['service-session'] = this.creds.session;
    if (method === 'POST') headers['idempotency-key'] = idempotencyKey ?? newIdempotencyKey();
    const res = await fetch(this.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json;
    try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
    if (!res.ok) {
      if (res.status === 401 && credential !== 'none' && this.creds) this.onExpired?.();
      throw new ApiRefusal(res.status, json);
    }
    return json;
  }

  get(path) { return this.call('GET', path); }
  post(path, body, idempotencyKey) { return this.call('POST', path, { body, idempotencyKey }); }

  /** `scopes`: the scopes this sign-in acts with; none: every scope the person holds. */
  async signIn(email, password, scopes) {
    return this.enter(await this.call('POST', '/v1/sessions', { body: { email, password }, credential: 'none' }), scopes);
  }

  /** With a session in hand: who is signed in, and the console's key made from the session, carrying the scopes the API gave it. */
  async enter(session, scopes) {
    this.creds = { session: session.token, expires_at: session.expires_at };
    try {
      const me = await this.call('GET', '/v1/me', { credential: 'session' });
      const made = await this.call('POST', '/v1/account/api_keys', { credential: 'session', body: { name: `operator console (${me.account.email})`, expires_with_session: true, ...(scopes ? { scopes } : {}) } });
      this.creds = { ...this.creds, key: made.key, key_id: made.id, scopes: made.scopes, me: { name: me.account.name, email: me.account.email, organisation: me.organisation.name, org: me.organisation.id, person: made.person } };
      sessionStorage.setItem(STORE, JSON.stringify(this.creds));
      return this.creds.me;
    } catch (e) {
      this.creds = null;
      throw e;
    }
  }

  /** A single-use ticket that opens one WebSocket as this person (a browser cannot send a header on an upgrade). */
  socketTicket() { return this.call('POST', '/v1/account/socket_tickets', { credential: 'session' }); }

  /** Invites a person to the organisation; the answer's token (shown once) is theirs to accept with. */
  invite(email, name, idempotencyKey) { return this.post('/v1/invitations', { email, name }, idempotencyKey); }

  /** Accepts an invitation (no credential): the person is made and signed in with the session it answers. */
  async acceptInvitation(token, password, name) {
    const accepted = await this.call('POST', '/v1/invitations/accept', { body: name ? { token, password, name } : { token, password }, credential: 'none' });
    return this.enter(accepted.session);
  }

  async signOut() {
    const c = this.creds;
    this.creds = null;
    sessionStorage.removeItem(STORE);
    if (!c?.key_id) return;
    try {
      await fetch(`${this.base}/v1/account/api_keys/${encodeURIComponent(c.key_id)}/revoke`, { method: 'POST', headers: { 'service-session': c.session, 'idempotency-key': newIdempotencyKey('console-revoke') } });
    } catch { /* the session may have ended; the key stays listed on GET /v1/me */ }
  }

  /** Every page of a list (following next_cursor or the last id), at most `max` records. */
  async all(path, max = 1000) {
    const out = [];
    let after;
    for (;;) {
      const sep = path.includes('?') ? '&' : '?';
      const page = await this.get(`${path}${sep}limit=100${after ? `&starting_after=${encodeURIComponent(after)}` : ''}`);
      out.push(...page.data);
      if (!page.has_more || out.length >= max || page.data.length === 0) return out;
      after = page.next_cursor ?? page.data[page.data.length - 1].id;
    }
  }
}

export const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

/**
 * An id as people read it: its prefix and last 6 characters (enough to tell a page's records
 * apart); the full id is its title, and is what a click or a copy of it puts on the clipboard
 * (console.js).
 */
export function shortId(id) {
  const s = String(id ?? '');
  const cut = s.lastIndexOf('_');
  return cut > 0 && s.length - cut > 8 ? `${s.slice(0, cut + 1)}…${s.slice(-6)}` : s;
}
export const idTag = (id) => `<code class="id" data-copy="${esc(id)}" title="${esc(id)} (click to copy)">${esc(shortId(id))}</code>`;

/** A `datetime-local` input's value for an instant (the browser's time zone), and back. */
export function localInput(ms) {
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}
export const fromLocalInput = (v) => new Date(v).toISOString();

/** A form's action: one Idempotency-Key per attempt, kept when the request did not get an answer. */
export async function act(form, fn, words = (m) => m) {
  const out = form.querySelector('[data-role=result]');
  form.dataset.ik ??= newIdempotencyKey(form.dataset.prefix ?? 'console');
  const button = form.querySelector('button[type=submit]');
  if (button) button.disabled = true;
  out.className = '';
  out.textContent = 'Sending...';
  try {
    const r = await fn(form.dataset.ik);
    delete form.dataset.ik;
    out.className = 'ok';
    out.textContent = r;
    return true;
  } catch (e) {
    if (e.status !== undefined) delete form.dataset.ik; // the API answered: a new attempt is a new action
    out.className = 'error';
    out.setAttribute('role', 'alert');
    out.textContent = e.code ? `${words(e.message)} (${e.code})` : `Not sent: ${words(e.message)}`;
    return false;
  } finally {
    if (button) button.disabled = false;
  }
}
