/**
 * Staff actions (spec 5.3 "client identifier and secret are issued by the maker on request";
 * 2.2 SupportAccess; 5.8 live keys are not self-serve; DESIGN "Stores" backup while serving).
 * Plain functions over a running platform, reached from the CLI through the server's operator
 * socket (operator/server.ts).
 */
import { ApiError, type Platform } from '../kernel/index.ts';
import { issueClient, recordSupportAccess, revokeClient } from '../actors/accounts/index.ts';
import { backup } from './backup.ts';

export type OperatorCommand =
  | { op: 'issue-client'; org: string; name: string; scopes: string[] }
  | { op: 'revoke-client'; org: string; client: string }
  | { op: 'support-access'; org: string; action: string; purpose: string; staff: string }
  /** `path` is absolute: the CLI resolves it against its own working directory. */
  | { op: 'backup'; path: string }
  | { op: 'rebuild-indexes' };

/**
 * Replays the journal into the list indexes now, whatever their marker says (runtime/derived-watch.ts;
 * docs/cluster.md "Losing Redis"). Only where they live apart from the journal: the local and memory
 * stores write them in the journal's own transaction.
 */
async function rebuildIndexesNow(platform: Platform): Promise<unknown> {
  const watch = platform.system.derived;
  if (!watch) throw new ApiError('validation_failed', 'rebuild-indexes applies to the cluster stores only: these stores write the list indexes with the journal.');
  const done = await watch.check(true);
  if (!done) throw new ApiError('conflict', 'Another node is rebuilding the list indexes now (or the rebuild failed: see the log); try again once it ends.');
  return { rebuilt: true, records: done.actors, entries: done.ops, ms: done.ms };
}

const need = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || v.trim() === '') throw new ApiError('validation_failed', `--${what} is required.`);
  return v.trim();
};

export async function runOperatorCommand(platform: Platform, cmd: OperatorCommand): Promise<unknown> {
  switch (cmd.op) {
    case 'issue-client':
      return issueClient(platform, { org: need(cmd.org, 'org'), name: need(cmd.name, 'name'), scopes: cmd.scopes ?? [] });
    case 'revoke-client':
      return revokeClient(platform, need(cmd.org, 'org'), need(cmd.client, 'client'));
    case 'support-access':
      return recordSupportAccess(platform, { org: need(cmd.org, 'org'), action: need(cmd.action, 'action'), purpose: need(cmd.purpose, 'purpose'), staff: need(cmd.staff, 'staff') });
    case 'backup':
      return backup(platform, cmd.path);
    case 'rebuild-indexes':
      return rebuildIndexesNow(platform);
    default: {
      const op = (cmd as { op?: unknown }).op;
      throw new ApiError('validation_failed', `Unknown operator command ${String(op)}.`);
    }
  }
}
