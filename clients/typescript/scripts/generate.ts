/**
 * Writes src/generated.ts from the platform's OpenAPI document (docs/openapi.json, itself generated
 * from the route declarations): one request, query, body and response type per operation, and the
 * resource tree the client is built from (`client.payroll.runs.create(...)`). The platform's
 * `npm run docs` writes both, and a test compares the committed file with what this renders, so the
 * client cannot drift from the document.
 *
 * Names follow the path: each static segment is a namespace (camelCased), and the method is named
 * by what the call does to it, as payment APIs name theirs: `list` and `create` on a collection,
 * `retrieve`, `update` and `del` on one record. An action (`POST /runs/{run_id}/execute`) or a
 * read of one part of a record (`GET /runs/{run_id}/totals`) is a method of the record's namespace
 * when it is that path's only operation; otherwise it stays a namespace of its own.
 */
import { renderSchema, type JsonSchema } from './schema-types.ts';

interface Parameter { name: string; in: string; required?: boolean; schema: JsonSchema }
interface Operation {
  operationId: string;
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}
export interface OpenApi { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, JsonSchema> } }

/** One callable operation, as the client's runtime table holds it. */
interface Call {
  op: string;
  method: string;
  path: string;
  params: string[];
  list: boolean;
  body: 'none' | 'optional' | 'required';
  summary: string;
}

/** A namespace of the tree: its methods by name and its child namespaces. */
interface Node { methods: Map<string, Call>; children: Map<string, Node> }

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const camel = (s: string): string => s.replace(/[._-]([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const pascal = (s: string): string => camel(s).replace(/^./, (c) => c.toUpperCase());
const isParam = (seg: string): boolean => seg.startsWith('{');

function successSchema(op: Operation): JsonSchema | undefined {
  for (const status of ['200', '201', '202']) {
    const c = op.responses[status]?.content?.['application/json'];
    if (c) return c.schema;
  }
  return undefined;
}

function isList(schema: JsonSchema | undefined): boolean {
  const props = schema?.properties as Record<string, JsonSchema> | undefined;
  return props?.object?.const === 'list' && props.data?.type === 'array';
}

/** A list read: its answer is a list page, or (where the document leaves the answer open) it pages. */
const pages = (op: Operation): boolean => isList(successSchema(op)) || (op.parameters ?? []).some((p) => p.in === 'query' && p.name === 'starting_after');

function bodyKind(op: Operation): Call['body'] {
  const schema = op.requestBody?.content['application/json']?.schema;
  if (!schema) return 'none';
  const required = (schema.required as string[] | undefined) ?? [];
  return op.requestBody?.required && required.length > 0 ? 'required' : 'optional';
}

/** The method a call is on its namespace, by HTTP method and whether the path ends with an id. */
function methodName(method: string, endsWithParam: boolean, list: boolean): string {
  if (method === 'get') return endsWithParam || !list ? 'retrieve' : 'list';
  if (method === 'post') return endsWithParam ? 'update' : 'create';
  if (method === 'patch') return 'update';
  if (method === 'put') return 'replace';
  return 'del';
}

function emptyNode(): Node {
  return { methods: new Map(), children: new Map() };
}

function buildTree(doc: OpenApi): Node {
  const root = emptyNode();
  const placed: Array<{ node: Node; parent: Node; seg: string; actionable: boolean }> = [];
  for (const path of Object.keys(doc.paths).sort()) {
    if (!path.startsWith('/v1/')) continue;
    const segs = path.split('/').slice(2);
    let node = root;
    let parent = root;
    const params: string[] = [];
    for (const seg of segs) {
      if (isParam(seg)) {
        params.push(seg.slice(1, -1));
        continue;
      }
      parent = node;
      const name = camel(seg);
      if (!node.children.has(name)) node.children.set(name, emptyNode());
      node = node.children.get(name)!;
    }
    const last = segs[segs.length - 1];
    const endsWithParam = isParam(last);
    for (const method of HTTP_METHODS) {
      const op = doc.paths[path][method];
      if (!op) continue;
      const list = method === 'get' && pages(op);
      let name = methodName(method, endsWithParam, list);
      // a read of the collection that is not a list (a search by query) beside a read of one record
      if (name === 'retrieve' && node.methods.has(name)) {
        const other = node.methods.get(name)!;
        if (!endsWithParam) name = 'search';
        else if (!isParam(other.path.split('/').pop()!)) {
          node.methods.set('search', other);
          node.methods.delete(name);
        }
      }
      if (node.methods.has(name)) throw new Error(`generate: ${method.toUpperCase()} ${path} would be a second ${name}`);
      node.methods.set(name, { op: op.operationId, method: method.toUpperCase(), path, params, list, body: bodyKind(op), summary: op.summary ?? '' });
    }
    // an action or a part of a record: /.../{id}/segment
    if (!endsWithParam && segs.length >= 2 && isParam(segs[segs.length - 2])) placed.push({ node, parent, seg: camel(last), actionable: true });
  }
  // An action path with one operation and no deeper paths becomes a method of its record's namespace.
  for (const { node, parent, seg } of placed) {
    if (node.children.size > 0 || node.methods.size !== 1) continue;
    if (parent.methods.has(seg)) continue;
    const [call] = node.methods.values();
    if (call.list) continue;
    parent.methods.set(seg, call);
    parent.children.delete(seg);
  }
  return root;
}

function typesOf(doc: OpenApi, op: Operation): { query: string; body: string; response: string; item: string } {
  const query = (op.parameters ?? []).filter((p) => p.in === 'query');
  const queryType = query.length === 0 ? 'Record<string, never>' : `{ ${query.map((p) => `${JSON.stringify(p.name)}${p.required ? '' : '?'}: ${renderSchema(p.schema, 1)}`).join('; ')} }`;
  const bodySchema = op.requestBody?.content['application/json']?.schema;
  const success = successSchema(op);
  // where the document leaves an answer open, its fields are reachable untyped rather than not at all
  const described = success !== undefined && Object.keys(success).length > 0;
  const item = isList(success) ? renderSchema((success!.properties as Record<string, JsonSchema>).data.items as JsonSchema, 1) : pages(op) ? 'UndescribedRecord' : 'never';
  const response = described ? renderSchema(success, 1) : pages(op) ? 'Page<UndescribedRecord>' : 'Undescribed';
  return { query: queryType, body: bodySchema ? renderSchema(bodySchema, 1) : 'never', response, item };
}

function renderOperations(doc: OpenApi): string[] {
  const out: string[] = ['/** Each operation\'s query, body, response and (for lists) item type, by operationId. */', 'export interface Operations {'];
  for (const path of Object.keys(doc.paths).sort()) {
    for (const method of HTTP_METHODS) {
      const op = doc.paths[path][method];
      if (!op || !path.startsWith('/v1/')) continue;
      const t = typesOf(doc, op);
      out.push(`  /** ${method.toUpperCase()} ${path}${op.summary ? `: ${op.summary.replace(/\*\//g, '* /')}` : ''} */`);
      out.push(`  ${op.operationId}: {`, `    query: ${t.query};`, `    body: ${t.body};`, `    response: ${t.response};`, `    item: ${t.item};`, '  };');
    }
  }
  out.push('}');
  return out;
}

function signature(name: string, c: Call): string {
  const params = c.params.map((p) => `${camel(p)}: string`);
  const tail =
    c.method === 'GET' || c.method === 'DELETE'
      ? [`query?: Operations['${c.op}']['query']`, 'options?: RequestOptions']
      : [`body${c.body === 'required' ? '' : '?'}: Operations['${c.op}']['body']`, 'options?: RequestOptions'];
  const result = c.list ? `ListResult<Operations['${c.op}']['item'], Operations['${c.op}']['response']>` : `Promise<Operations['${c.op}']['response']>`;
  return `  /** ${c.method} ${c.path}${c.summary ? `: ${c.summary.replace(/\*\//g, '* /')}` : ''} */\n  ${name}(${[...params, ...tail].join(', ')}): ${result};`;
}

function renderTree(node: Node, typeName: string, out: string[], table: string[], indent: string): void {
  const lines: string[] = [`export interface ${typeName} {`];
  table.push('{');
  for (const [name, c] of [...node.methods].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(signature(name, c));
    table.push(`${indent}  ${name}: ${JSON.stringify({ op: c.op, method: c.method, path: c.path, params: c.params, list: c.list })},`);
  }
  for (const [name, child] of [...node.children].sort(([a], [b]) => a.localeCompare(b))) {
    const childType = `${typeName === 'Resources' ? '' : typeName}${pascal(name)}`;
    lines.push(`  ${name}: ${childType};`);
    table.push(`${indent}  ${name}: `);
    renderTree(child, childType, out, table, `${indent}  `);
    table.push(',');
  }
  lines.push('}');
  table.push(`${indent}}`);
  out.push(...lines, '');
}

/** The text of src/generated.ts for this OpenAPI document. */
export function renderClient(doc: OpenApi): string {
  const out: string[] = [
    '/* Generated by scripts/generate.ts from docs/openapi.json (npm run docs at the platform\'s root); do not edit. */',
    '/* eslint-disable */',
    "import type { ListResult, Page, RequestOptions, Undescribed, UndescribedRecord } from './types.js';",
    '',
  ];
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) out.push(`export type ${name} = ${renderSchema(schema, 0)};`, '');
  out.push(...renderOperations(doc), '');
  const table: string[] = [];
  renderTree(buildTree(doc), 'Resources', out, table, '');
  const text = table.join('\n').replace(/: \n\{/g, ': {').replace(/\n,/g, ',');
  out.push('/** Every call of the resource tree: its operation, method, path and path parameters. */', `export const RESOURCE_TABLE = ${text} as const;`, '');
  return out.join('\n');
}
