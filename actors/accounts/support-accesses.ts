/**
 * Support access log (spec 2.2 SupportAccess, 4.1): staff actions are recorded by the operator CLI
 * and listed to the organisation, newest first.
 */
import { type ListEnvelope, listPage, newId, type Platform } from '../../kernel/index.ts';
import { Organisation } from './organisation.ts';
import { SupportAccess, type SupportAccessView } from './support-access.ts';

export async function recordSupportAccess(platform: Platform, input: { org: string; action: string; purpose: string; staff: string }): Promise<SupportAccessView> {
  await platform.system.get(Organisation, input.org, input.org); // 404 for an unknown organisation
  const id = newId(SupportAccess.prefix);
  return (await platform.system.ask(SupportAccess, id, 'record', { action: input.action, purpose: input.purpose, staff: input.staff }, {
    org: input.org,
    principal: `operator:${input.staff}`,
  })) as SupportAccessView;
}

export const listSupportAccess = (platform: Platform, org: string, query: { limit?: number; starting_after?: string }) =>
  listPage(platform.system, SupportAccess, org, 'all', query, 'desc') as Promise<ListEnvelope<SupportAccessView>>;
