/**
 * Organisation. Spec 2.2 (OrganisationDetail), 5.5 (the organisation comes from the credential).
 * Created by registration; its id is the org of every record the organisation owns.
 *
 * status   command   condition  event                    next
 * -------  --------  ---------  -----------------------  ------
 * (none)   register  -          organisation.registered  active
 * active   register  -          409 conflict             active
 */
import { defineActor } from '../../runtime/index.ts';
import { assertNever, conflict } from '../../kernel/index.ts';

export type OrganisationStatus = 'none' | 'active';

export interface OrganisationState {
  id: string;
  status: OrganisationStatus;
  name: string;
  created_at: number;
}

type OrganisationEvent = { type: 'organisation.registered'; name: string };

export interface OrganisationDetail {
  id: string;
  name: string;
}

export const Organisation = defineActor({
  kind: 'organisation',
  prefix: 'org_',
  creates: ['register'],
  initial: (id): OrganisationState => ({ id, status: 'none', name: '', created_at: 0 }),
  decide: {
    register(state: OrganisationState, cmd: { name: string }): OrganisationEvent[] {
      switch (state.status) {
        case 'none':
          return [{ type: 'organisation.registered', name: cmd.name }];
        case 'active':
          throw conflict('The organisation is already registered.');
        default:
          return assertNever(state.status);
      }
    },
  },
  evolve(state: OrganisationState, e: OrganisationEvent, meta): OrganisationState {
    switch (e.type) {
      case 'organisation.registered':
        return { ...state, status: 'active', name: e.name, created_at: meta.at };
      default:
        return assertNever(e.type);
    }
  },
  view: (s: OrganisationState): OrganisationDetail => ({ id: s.id, name: s.name }),
});
