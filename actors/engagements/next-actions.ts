/**
 * What an engagement waits for (docs/gaps.md "next_action"; #engagements "next_action"): the
 * kernel's shape, computed when the engagement is read or answered, from its state, its papered
 * instrument's assents and both parties' passports as the identity gate holds them now (spec 3:
 * both parties need a live passport before anything executes). Null when it waits for nothing
 * (current, terminated).
 *
 * status      waits for                                           code
 * ----------  --------------------------------------------------  ----------------------
 * disputed    an open dispute to be resolved                      resolve_dispute
 * classified  an instrument                                       paper_engagement
 * papered     a party's passport (before assent or execution)     verify_party_identity
 * papered     a party's assent                                    awaiting_assent
 * papered     both assents in: execution                          execute_instrument
 * executed    registration, when the class needs it first         register_engagement
 * executed,   a party's passport                                  verify_party_identity
 *  registered,
 *  lapsed
 * executed,   activation (a lapsed one: reinstatement)            activate_engagement
 *  registered,
 *  lapsed
 */
import { assertNever, type NextAction, nextAction, type Platform } from '../../kernel/index.ts';
import { HOW_TO_GET_A_PASSPORT } from '../identity/index.ts';
import type { EngagementState } from './engagement.ts';
import { ASSENT_PARTIES, type InstrumentState } from './instrument.ts';
import { rulePack } from './packs.ts';
import { instrumentState, passportsOf } from './reads.ts';

const E = (id: string) => `/v1/rail/engagements/${id}`;
const PARTY_WORDS = { worker: 'the worker', engaging_party: 'the engaging party' } as const;

/** The parties whose passport is not live now, by role. */
function partiesWithoutPassport(p: Platform, org: string, s: EngagementState): { party: keyof typeof PARTY_WORDS; subject_ref: string }[] {
  const passports = passportsOf(p, org, s);
  const out: { party: keyof typeof PARTY_WORDS; subject_ref: string }[] = [];
  if (!passports.engaging_party.live) out.push({ party: 'engaging_party', subject_ref: s.engaging_party_ref });
  if (!passports.worker.live) out.push({ party: 'worker', subject_ref: s.worker_ref });
  return out;
}

function verifyIdentity(missing: { party: keyof typeof PARTY_WORDS; subject_ref: string }[]): NextAction {
  const who = missing.map((m) => `${PARTY_WORDS[m.party]}'s (${m.subject_ref})`).join(' and ');
  return nextAction('verify_party_identity', `${who} passport ${missing.length > 1 ? 'are' : 'is'} not live; both parties need a live passport (spec 3). ${HOW_TO_GET_A_PASSPORT}`,
    { method: 'POST', path: '/v1/identity/verifications' }, { subject_refs: missing.map((m) => m.subject_ref), parties: missing.map((m) => m.party) });
}

export async function engagementNextAction(p: Platform, org: string, s: EngagementState): Promise<NextAction | null> {
  switch (s.status) {
    case 'current':
    case 'terminated':
      return null;
    case 'disputed': {
      const open = s.disputes.find((d) => d.status === 'open');
      if (!open) return null;
      return nextAction('resolve_dispute', `Dispute ${open.id} raised by the ${open.raised_by} is open; the engagement returns to ${s.status_before_dispute ?? 'its status'} when the last open dispute is resolved.`,
        { method: 'POST', path: `${E(s.id)}/disputes/${open.id}/resolve` }, { dispute_id: open.id });
    }
    case 'classified':
      return nextAction('paper_engagement', 'Classified only: classification confers no rights (spec 3); paper it with an instrument the parties assent to.', { method: 'POST', path: `${E(s.id)}/paper` });
    case 'papered':
      return papered(p, org, s);
    case 'executed':
    case 'registered':
    case 'lapsed': {
      const missing = partiesWithoutPassport(p, org, s);
      if (missing.length) return verifyIdentity(missing);
      const k = s.classification?.classification;
      const pack = rulePack(s.classification?.rule_pack.version) ?? rulePack()!;
      if (s.status === 'executed' && k !== undefined && pack.registration.required_before_activation.includes(k)) {
        return nextAction('register_engagement', `A ${k} engagement is registered before it becomes current (${pack.registration.source}).`, { method: 'POST', path: `${E(s.id)}/register` });
      }
      const words = s.status === 'lapsed' ? 'Lapsed: a person reinstates it by activating it, with both passports live.' : 'Executed: activation makes it current from starts_on.';
      return nextAction('activate_engagement', words, { method: 'POST', path: `${E(s.id)}/activate` });
    }
    default:
      return assertNever(s.status);
  }
}

async function papered(p: Platform, org: string, s: EngagementState): Promise<NextAction | null> {
  if (s.papered_instrument_id === null) return null;
  const instrument: InstrumentState = await instrumentState(p, org, s.papered_instrument_id);
  const missing = partiesWithoutPassport(p, org, s);
  const I = `${E(s.id)}/instruments/${instrument.id}`;
  const awaiting = ASSENT_PARTIES.filter((party) => !instrument.assents.some((a) => a.party === party));
  // assent is bound to a live passport and execution needs both live: a party without one comes first
  if (missing.length) return verifyIdentity(missing);
  if (awaiting.length) {
    const who = awaiting.map((party) => `${PARTY_WORDS[party]} (${party === 'worker' ? s.worker_ref : s.engaging_party_ref})`).join(' and ');
    return nextAction('awaiting_assent', `Instrument ${instrument.id} awaits the assent of ${who}; an unexecuted instrument binds no one (spec 3).`,
      { method: 'POST', path: `${I}/assents` }, { instrument_id: instrument.id, parties: awaiting, expires_at: instrument.expires_at === null ? null : new Date(instrument.expires_at).toISOString() });
  }
  return nextAction('execute_instrument', `Both parties assented to instrument ${instrument.id}; executing it seals it and the engagement is executed.`, { method: 'POST', path: `${I}/execute` }, { instrument_id: instrument.id });
}

/** The engagement as answered: the record with what it waits for. */
export async function engagementAnswer(p: Platform, org: string, s: EngagementState, view: object): Promise<object> {
  return { ...view, next_action: await engagementNextAction(p, org, s) };
}
