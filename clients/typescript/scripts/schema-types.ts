/**
 * A JSON Schema (OpenAPI 3.1's dialect, as the platform's document uses it) as a TypeScript type:
 * objects with their required and optional properties, `const` and `enum` as literal unions,
 * `anyOf`/`oneOf` as unions, `allOf` as intersections, arrays, nullable type lists, and
 * `#/components/schemas/X` references by name. What JSON Schema says and a type cannot (lengths,
 * patterns, ranges) is left to the platform, which refuses it with a validation report.
 */
export type JsonSchema = Record<string, unknown>;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (k: string): string => (IDENT.test(k) ? k : JSON.stringify(k));
const pad = (depth: number): string => '  '.repeat(depth);

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  return unique.length === 1 ? unique[0] : unique.map((p) => (p.includes(' & ') ? `(${p})` : p)).join(' | ');
}

function objectType(s: JsonSchema, depth: number): string {
  const props = (s.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((s.required as string[] | undefined) ?? []);
  const lines = Object.entries(props).map(([k, v]) => `${pad(depth + 1)}${key(k)}${required.has(k) ? '' : '?'}: ${renderSchema(v, depth + 1)};`);
  const extra = s.additionalProperties;
  const patterns = s.patternProperties as Record<string, JsonSchema> | undefined;
  if (patterns) lines.push(`${pad(depth + 1)}[key: string]: ${union(Object.values(patterns).map((p) => renderSchema(p, depth + 1)))};`);
  else if (extra && typeof extra === 'object') lines.push(`${pad(depth + 1)}[key: string]: ${renderSchema(extra as JsonSchema, depth + 1)};`);
  else if (lines.length === 0) return extra === false ? 'Record<string, never>' : 'Record<string, unknown>';
  return `{\n${lines.join('\n')}\n${pad(depth)}}`;
}

function typed(t: string, s: JsonSchema, depth: number): string {
  switch (t) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const items = s.items as JsonSchema | undefined;
      const inner = items ? renderSchema(items, depth) : 'unknown';
      return /^[A-Za-z0-9_]+$/.test(inner) ? `${inner}[]` : `Array<${inner}>`;
    }
    case 'object':
      return objectType(s, depth);
    default:
      return 'unknown';
  }
}

export function renderSchema(s: JsonSchema | boolean | undefined, depth: number): string {
  if (s === undefined || s === true) return 'unknown';
  if (s === false) return 'never';
  if (typeof s.$ref === 'string') return s.$ref.replace('#/components/schemas/', '');
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return union(s.enum.map((v) => JSON.stringify(v)));
  const alternatives = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (alternatives) return union(alternatives.map((a) => renderSchema(a, depth)));
  if (Array.isArray(s.allOf)) return (s.allOf as JsonSchema[]).map((a) => renderSchema(a, depth)).join(' & ');
  if (Array.isArray(s.type)) return union((s.type as string[]).map((t) => typed(t, s, depth)));
  if (typeof s.type === 'string') return typed(s.type, s, depth);
  if (s.properties) return objectType(s, depth);
  return 'unknown';
}
