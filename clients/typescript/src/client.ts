/**
 * The client: the generated resource tree (generated.ts RESOURCE_TABLE) made callable. Each call
 * takes its path ids first, in path order, then its query (reads) or body (writes), then the call's
 * options; ids are percent-encoded into the path, so an id can never reach another path.
 */
import { RESOURCE_TABLE, type Resources } from './generated.js';
import { listResult } from './lists.js';
import { Transport, type TransportOptions } from './transport.js';
import type { RequestOptions } from './types.js';
import { webhooks } from './webhooks.js';

interface Entry {
  op: string;
  method: string;
  path: string;
  params: readonly string[];
  list: boolean;
}
type Table = { readonly [name: string]: Entry | Table };

const isEntry = (v: Entry | Table): v is Entry => typeof (v as Entry).op === 'string' && typeof (v as Entry).path === 'string';

function callable(transport: Transport, e: Entry): (...args: unknown[]) => unknown {
  return (...args: unknown[]) => {
    const ids = args.slice(0, e.params.length);
    if (ids.length < e.params.length || ids.some((id) => typeof id !== 'string' || id === '')) {
      throw new TypeError(`${e.method} ${e.path} needs ${e.params.join(', ')} as non-empty strings`);
    }
    let i = 0;
    const path = e.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(ids[i++] as string));
    const payload = args[e.params.length] as Record<string, unknown> | undefined;
    const options = args[e.params.length + 1] as RequestOptions | undefined;
    const reads = e.method === 'GET' || e.method === 'DELETE';
    const call = { method: e.method, path, query: reads ? payload : undefined, body: reads ? undefined : payload, options };
    return e.list ? listResult(transport, call) : transport.request(call);
  };
}

/** A namespace whose calls and child namespaces are made on first use: a client costs little until it calls. */
function build(transport: Transport, table: Table): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(table)) {
    Object.defineProperty(out, name, {
      enumerable: true,
      configurable: true,
      get() {
        const made = isEntry(v) ? callable(transport, v) : build(transport, v);
        Object.defineProperty(out, name, { value: made, enumerable: true });
        return made;
      },
    });
  }
  return out;
}

export type Client = Resources & { webhooks: typeof webhooks };

export function createClient(options: TransportOptions): Client {
  if (!options.baseUrl) throw new TypeError('createClient needs baseUrl');
  const transport = new Transport(options);
  const client = build(transport, RESOURCE_TABLE as unknown as Table);
  Object.defineProperty(client, 'webhooks', { value: webhooks, enumerable: true });
  return client as unknown as Client;
}
