/**
 * Disclosure operations the routes call that need the disclosure alone (spec 4.4 POST
 * /v1/credentials/disclosures/{id}/revoke). Making one checks consent first (spec 1 rule 7) and is
 * CredentialsService's (service.ts); the disclosure's rules are disclosure.ts.
 */
import type { Caller, Platform } from '../../kernel/index.ts';
import { Disclosure } from './disclosure.ts';

export async function revokeDisclosure(platform: Platform, caller: Caller, id: string): Promise<unknown> {
  return platform.system.ask(Disclosure, id, 'revoke', {}, caller);
}
