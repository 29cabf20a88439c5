/**
 * The set-up client the request-rate benches share: a JSON call to a gateway that names its
 * credential, gives every POST a fresh Idempotency-Key, and throws on any answer that is not 2xx
 * (set-up must not go on past a refusal).
 */
export function apiCaller(base: string) {
  let ik = 0;
  return async (method: string, path: string, body?: unknown, key?: string): Promise<any> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key) headers['service-api-key'] = key;
    if (method === 'POST') headers['idempotency-key'] = `prep-${process.pid}-${++ik}`;
    const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const j = (await r.json()) as any;
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(j)}`);
    return j;
  };
}
