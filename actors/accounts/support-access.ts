/**
 * Support access entry (spec 2.2 SupportAccess, 4.1 GET /v1/support_access): a record that the
 * maker's staff acted on the organisation's data, written by the operator CLI, read by the
 * organisation. An entry is never edited.
 *
 * status   command  condition  event                     next
 * -------  -------  ---------  ------------------------  --------
 * (none)   record   -          support_access.recorded   recorded
 * recorded record   -          409 conflict              recorded
 */
import { defineActor, iso, sortKeyTime } from '../../runtime/index.ts';
import { assertNever, conflict } from '../../kernel/index.ts';

export type SupportAccessStatus = 'none' | 'recorded';

export interface SupportAccessState {
  id: string;
  status: SupportAccessStatus;
  at: number;
  action: string;
  purpose: string;
  staff: string;
}

type SupportAccessEvent = { type: 'support_access.recorded'; action: string; purpose: string; staff: string };

export interface SupportAccessView {
  id: string;
  object: 'support_access';
  /** Support access is to the organisation, not to a realm's records: false (spec 2.1 every record carries it). */
  livemode: false;
  mocked: false;
  at: string;
  action: string;
  purpose: string;
}

export const SupportAccess = defineActor({
  kind: 'support_access',
  prefix: 'sta_',
  creates: ['record'],
  initial: (id): SupportAccessState => ({ id, status: 'none', at: 0, action: '', purpose: '', staff: '' }),
  decide: {
    record(state: SupportAccessState, cmd: { action: string; purpose: string; staff: string }): SupportAccessEvent[] {
      switch (state.status) {
        case 'none':
          return [{ type: 'support_access.recorded', action: cmd.action, purpose: cmd.purpose, staff: cmd.staff }];
        case 'recorded':
          throw conflict('This support access entry is already recorded.');
        default:
          return assertNever(state.status);
      }
    },
  },
  evolve(state: SupportAccessState, e: SupportAccessEvent, meta): SupportAccessState {
    switch (e.type) {
      case 'support_access.recorded':
        return { ...state, status: 'recorded', at: meta.at, action: e.action, purpose: e.purpose, staff: e.staff };
      default:
        return assertNever(e.type);
    }
  },
  view: (s: SupportAccessState): SupportAccessView => ({ id: s.id, object: 'support_access', livemode: false, mocked: false, at: iso(s.at), action: s.action, purpose: s.purpose }),
  // Newest first.
  indexes: (s: SupportAccessState) => (s.status === 'none' ? [] : [{ list: 'all', sortKey: sortKeyTime(s.at) }]),
});
