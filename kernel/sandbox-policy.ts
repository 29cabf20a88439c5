/**
 * The sandbox policy pack (docs/gaps.md#sandbox-caps): how many records an organisation's sandbox
 * keeps, and how much memory-heavy work (operations whose cost grows with their input or with the
 * records they read: imports, batches, exports, a run's payslips) it runs at once. Data, versioned
 * YYYY.MM.N like the rate policy and the areas' packs, identified by the sha256 of its canonical
 * JSON; an active version never changes, a new figure is a new file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentHash } from './canonical.ts';

export interface SandboxPolicy {
  name: 'sandbox_policy';
  version: string;
  /** Records (actors with a journal, whoever made them) an organisation's sandbox keeps at most. */
  records: number;
  heavy_work: {
    /** Memory-heavy operations of one sandbox organisation running at once on a node. */
    per_organisation: number;
    /** Memory-heavy operations of every sandbox organisation together running at once on a node. */
    per_node: number;
    /** The Retry-After of a refusal: such an operation takes about this long. */
    retry_after_seconds: number;
    /** The operations counted, as `METHOD /v1/path/{template}`; each must be a declared route. */
    operations: string[];
  };
  /**
   * Operations whose records are counted before they run, from their request body (an import's
   * rows): `fixed` plus `per_row` for each row, the rows being the array at `rows` or the data
   * lines of the CSV text at `csv` (its first line the header). Such a request is refused whole
   * when they would pass the cap, before anything is made. Keyed as `operations`.
   */
  counted_up_front?: Record<string, UpFront>;
}

export interface UpFront {
  fixed: number;
  per_row: number;
  rows?: string;
  csv?: string;
}

export interface LoadedSandboxPolicy {
  pack: SandboxPolicy;
  hash: string;
}

const VERSION = /^\d{4}\.(0[1-9]|1[0-2])\.[1-9]\d*$/;
const OPERATION = /^(GET|POST|PUT|PATCH|DELETE) \/v1\/\S+$/;
const count = (n: unknown): boolean => Number.isInteger(n) && (n as number) >= 1;

/** Throws on a pack that is not well formed: a bad pack must never become active. */
export function checkSandboxPolicy(raw: unknown): LoadedSandboxPolicy {
  const p = raw as SandboxPolicy;
  const bad = (why: string) => new Error(`sandbox policy: ${why}`);
  if (p?.name !== 'sandbox_policy' || !VERSION.test(p.version)) throw bad('name or version');
  if (!count(p.records)) throw bad('records');
  const w = p.heavy_work;
  if (!count(w?.per_organisation) || !count(w.per_node) || !count(w.retry_after_seconds)) throw bad('heavy_work figures');
  if (!Array.isArray(w.operations) || !w.operations.every((o) => typeof o === 'string' && OPERATION.test(o))) throw bad('heavy_work.operations');
  for (const [op, u] of Object.entries(p.counted_up_front ?? {})) {
    const field = (f: unknown) => f === undefined || (typeof f === 'string' && /^[a-z_]+$/.test(f));
    if (!OPERATION.test(op) || !Number.isInteger(u?.fixed) || u.fixed < 0 || !count(u.per_row) || !field(u.rows) || !field(u.csv)) throw bad(`counted_up_front ${op}`);
  }
  return { pack: p, hash: contentHash(p) };
}

const dir = join(dirname(fileURLToPath(import.meta.url)), 'sandbox-policy');

/** The newest pack in kernel/sandbox-policy/. */
export const ACTIVE_SANDBOX_POLICY: LoadedSandboxPolicy = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => checkSandboxPolicy(JSON.parse(readFileSync(join(dir, f), 'utf8'))))
  .sort((a, b) => b.pack.version.localeCompare(a.pack.version, 'en', { numeric: true }))[0]!;

/** The pack in `file` (platform config SANDBOX_POLICY_FILE: a bench's or a test's), else the newest in kernel/sandbox-policy/. */
export function sandboxPolicy(file: string | undefined): LoadedSandboxPolicy {
  return file ? checkSandboxPolicy(JSON.parse(readFileSync(file, 'utf8'))) : ACTIVE_SANDBOX_POLICY;
}
