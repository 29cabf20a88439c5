/**
 * Appeal operations the routes call that need the appeal alone (spec 3, 4.4; how an appeal is
 * decided is a gap, docs/gaps.md#credentials). Filing one reads the verification or claim appealed
 * and is CredentialsService's (service.ts); the appeal's rules are appeal.ts.
 */
import type { Caller, Platform } from '../../kernel/index.ts';
import { Appeal } from './appeal.ts';

/** A person decides an open appeal once (upheld or dismissed, with a reason); the decision is never edited. */
export async function decideAppeal(platform: Platform, caller: Caller, id: string, body: { outcome: 'upheld' | 'dismissed'; reason: string }): Promise<unknown> {
  return platform.system.ask(Appeal, id, 'decide', body, caller);
}
