/**
 * One call to the platform, with the rules every call shares (spec 5, 7; docs/gaps.md#gateway):
 * the credential header, an Idempotency-Key on every state-changing call (the same key on each
 * retry, so a retried create replays its first answer instead of creating twice), and retries only
 * where retrying is safe and useful: an error the platform marks `retryable` (waiting its
 * Retry-After when it gives one) and a connection that dropped or timed out before an answer. The
 * wait doubles from `retryBaseMs` with jitter, so clients refused together do not return together.
 */
import { ConnectionError, errorFrom, PlatformError } from './errors.js';
import type { ClientOptions, RequestOptions } from './types.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const MAX_WAIT_MS = 8_000;

/** What a hook is told of each answer: one per attempt, retries included. */
export interface ResponseInfo {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  attempt: number;
}

export interface TransportOptions extends ClientOptions {
  onResponse?: (info: ResponseInfo) => void;
}

export interface Call {
  method: string;
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
  options?: RequestOptions;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });

function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    for (const one of Array.isArray(v) ? v : [v]) q.append(k, String(one));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

export class Transport {
  private readonly fetch: typeof fetch;
  private readonly base: string;

  constructor(private readonly o: TransportOptions) {
    this.fetch = o.fetch ?? globalThis.fetch.bind(globalThis);
    this.base = o.baseUrl.replace(/\/+$/, '');
  }

  async request<T>(call: Call): Promise<T> {
    const { method, path, options } = call;
    const headers: Record<string, string> = { accept: 'application/json', ...options?.headers };
    if (this.o.apiKey) headers['service-api-key'] = this.o.apiKey;
    else if (this.o.accessToken) headers.authorization = `Bearer ${this.o.accessToken}`;
    let body: string | undefined;
    if (STATE_CHANGING.has(method)) {
      headers['idempotency-key'] = options?.idempotencyKey ?? globalThis.crypto.randomUUID();
      if (method !== 'DELETE' || call.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(call.body ?? {});
      }
    }
    const url = `${this.base}${path}${queryString(call.query)}`;
    const retries = options?.maxRetries ?? this.o.maxRetries ?? 2;
    for (let attempt = 0; ; attempt++) {
      let failure: PlatformError | ConnectionError;
      try {
        const res = await this.send(url, method, headers, body, options?.signal);
        this.o.onResponse?.({ method, path, status: res.status, headers: res.headers, attempt });
        const parsed = await this.parse(res);
        if (res.ok) return parsed as T;
        failure = errorFrom(res.status, parsed, res.headers);
        if (!failure.retryable) throw failure;
      } catch (e) {
        if (e instanceof PlatformError) throw e;
        if (options?.signal?.aborted) throw e;
        failure = e instanceof ConnectionError ? e : new ConnectionError(`${method} ${path}: ${(e as Error).message}`, { cause: e });
      }
      if (attempt >= retries) throw failure;
      await sleep(this.wait(attempt, failure), options?.signal);
    }
  }

  private async send(url: string, method: string, headers: Record<string, string>, body: string | undefined, signal?: AbortSignal): Promise<Response> {
    const timeout = AbortSignal.timeout(this.o.timeoutMs ?? 60_000);
    try {
      return await this.fetch(url, { method, headers, body, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    } catch (e) {
      if (signal?.aborted) throw e;
      throw new ConnectionError(`${method} ${url}: ${timeout.aborted ? 'timed out' : (e as Error).message}`, { cause: e });
    }
  }

  private async parse(res: Response): Promise<unknown> {
    if (res.status === 204) return undefined;
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('json')) {
      const text = await res.text();
      return text ? JSON.parse(text) : undefined;
    }
    return new Uint8Array(await res.arrayBuffer());
  }

  /** The wait before the next attempt: the platform's Retry-After, else a jittered doubling. */
  private wait(attempt: number, failure: PlatformError | ConnectionError): number {
    if (failure instanceof PlatformError && failure.retryAfter !== undefined) return Math.min(failure.retryAfter * 1000, MAX_WAIT_MS);
    const ceiling = Math.min((this.o.retryBaseMs ?? 500) * 2 ** attempt, MAX_WAIT_MS);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }
}
