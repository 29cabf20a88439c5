/**
 * Path matching for the declared routes: a segment trie where a literal segment wins over a
 * `{param}` at the same depth (so /v1/api_keys/{id}/revoke and /v1/api_keys/search can coexist).
 * A path that exists for another method answers 405 with Allow; a path that does not exist, 404.
 */
import type { Method, RouteDef } from '../kernel/index.ts';

interface Node {
  literal: Map<string, Node>;
  param?: { name: string; node: Node };
  routes: Map<Method, RouteDef>;
}

const node = (): Node => ({ literal: new Map(), routes: new Map() });

export type Match =
  | { kind: 'route'; route: RouteDef; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: Method[] }
  | { kind: 'not_found' };

export class Router {
  private readonly root = node();
  private readonly all: RouteDef[] = [];
  /** Paths without parameters, matched by one map lookup before the trie. */
  private readonly exact = new Map<string, Node>();

  add(route: RouteDef): void {
    let n = this.root;
    for (const seg of split(route.path)) {
      const m = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(seg);
      if (m) {
        if (n.param && n.param.name !== m[1]) {
          throw new Error(`route ${route.method} ${route.path}: parameter {${m[1]}} clashes with {${n.param.name}} at the same position`);
        }
        n.param ??= { name: m[1], node: node() };
        n = n.param.node;
      } else {
        let next = n.literal.get(seg);
        if (!next) n.literal.set(seg, (next = node()));
        n = next;
      }
    }
    if (n.routes.has(route.method)) throw new Error(`route ${route.method} ${route.path} declared twice`);
    n.routes.set(route.method, route);
    if (!route.path.includes('{')) this.exact.set(route.path, n);
    this.all.push(route);
  }

  routes(): readonly RouteDef[] {
    return this.all;
  }

  match(method: string, path: string): Match {
    const params: Record<string, string> = {};
    const found = this.exact.get(path) ?? walk(this.root, split(path), 0, params);
    if (!found) return { kind: 'not_found' };
    const r = found.routes.get(method as Method);
    if (r) return { kind: 'route', route: r, params };
    return { kind: 'method_not_allowed', allow: [...found.routes.keys()] };
  }
}

function walk(n: Node, segs: string[], i: number, params: Record<string, string>): Node | undefined {
  if (i === segs.length) return n.routes.size > 0 ? n : undefined;
  const lit = n.literal.get(segs[i]);
  if (lit) {
    const r = walk(lit, segs, i + 1, params);
    if (r) return r;
  }
  if (n.param && segs[i] !== '') {
    let value: string;
    try {
      value = decodeURIComponent(segs[i]);
    } catch {
      return undefined;
    }
    const r = walk(n.param.node, segs, i + 1, params);
    if (r) {
      params[n.param.name] = value;
      return r;
    }
  }
  return undefined;
}

function split(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/').slice(1);
}
