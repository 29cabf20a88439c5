/**
 * Invitation: how a second person joins an organisation (spec 2.2 AccountDetail, 5.4 sessions;
 * the spec shows no way: docs/gaps.md#accounts). A person or a key with iam:write invites an
 * email; the invitee accepts with the invitation's token, choosing a password, and becomes an
 * account of the organisation with a session. The token is never here (invitations.ts keeps its
 * digest); accepting is single-use: only a pending, unexpired invitation accepts, once.
 *
 * status    command  condition                 event                 next
 * --------  -------  ------------------------  --------------------  --------
 * (none)    issue    -                          invitation.created    pending
 * pending   accept   before expires_at          invitation.accepted   accepted
 * pending   accept   at or after expires_at     409 conflict          pending
 * pending,  issue    -                          409 conflict          (same)
 * accepted
 * accepted  accept   -                          409 conflict          accepted
 */
import { defineActor, iso, sortKeyTime } from '../../runtime/index.ts';
import { assertNever, conflict, recordView } from '../../kernel/index.ts';

/** The statuses an invitation is shown in (its view and the schema of it). */
export const INVITATION_STATUSES = ['pending', 'accepted'] as const;

export type InvitationStatus = 'none' | (typeof INVITATION_STATUSES)[number];

export interface InvitationState {
  id: string;
  org: string;
  status: InvitationStatus;
  email: string;
  name: string;
  /** The person who invited (persons.ts): an account, or the OAuth client behind a token. */
  invited_by: string | null;
  expires_at: number;
  /** The account made on acceptance. */
  account: string | null;
  created_at: number;
  accepted_at: number | null;
}

interface IssueCommand {
  email: string;
  name: string;
  invited_by: string | null;
  expires_at: number;
}

type InvitationEvent =
  | { type: 'invitation.created'; email: string; name: string; invited_by: string | null; expires_at: number }
  | { type: 'invitation.accepted'; account: string };

export interface InvitationView {
  id: string;
  object: 'invitation';
  livemode: false;
  mocked: false;
  email: string;
  name: string;
  status: (typeof INVITATION_STATUSES)[number];
  invited_by: string | null;
  expires_at: string;
  accepted_at: string | null;
  created_at: string;
}

export const Invitation = defineActor({
  kind: 'invitation',
  prefix: 'inv_',
  creates: ['issue'],
  initial: (id, org): InvitationState => ({ id, org, status: 'none', email: '', name: '', invited_by: null, expires_at: 0, account: null, created_at: 0, accepted_at: null }),
  decide: {
    issue(state: InvitationState, cmd: IssueCommand): InvitationEvent[] {
      switch (state.status) {
        case 'none':
          return [{ type: 'invitation.created', email: cmd.email, name: cmd.name, invited_by: cmd.invited_by, expires_at: cmd.expires_at }];
        case 'pending':
        case 'accepted':
          throw conflict('This invitation was already issued.');
        default:
          return assertNever(state.status);
      }
    },
    accept(state: InvitationState, cmd: { account: string }, ctx): InvitationEvent[] {
      switch (state.status) {
        case 'pending':
          if (ctx.now >= state.expires_at) throw conflict(`The invitation expired at ${iso(state.expires_at)}; ask for a new one.`);
          return [{ type: 'invitation.accepted', account: cmd.account }];
        case 'accepted':
          throw conflict('The invitation was already accepted; sign in with POST /v1/sessions.');
        case 'none':
          throw conflict('This invitation does not exist.');
        default:
          return assertNever(state.status);
      }
    },
  },
  evolve(state: InvitationState, e: InvitationEvent, meta): InvitationState {
    switch (e.type) {
      case 'invitation.created':
        return { ...state, status: 'pending', email: e.email, name: e.name, invited_by: e.invited_by, expires_at: e.expires_at, created_at: meta.at };
      case 'invitation.accepted':
        return { ...state, status: 'accepted', account: e.account, accepted_at: meta.at };
      default:
        return assertNever(e);
    }
  },
  view: (s: InvitationState): InvitationView => (recordView('invitation', s.id, false, false, {
    email: s.email,
    name: s.name,
    status: s.status === 'accepted' ? 'accepted' : 'pending',
    invited_by: s.invited_by,
    expires_at: iso(s.expires_at),
    accepted_at: s.accepted_at === null ? null : iso(s.accepted_at),
    created_at: iso(s.created_at),
  })),
  // Newest first (ties by id).
  indexes: (s: InvitationState) => (s.status === 'none' ? [] : [{ list: 'all', sortKey: sortKeyTime(s.created_at) }]),
});
