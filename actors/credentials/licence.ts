/**
 * Licence (credentials). Spec 2.5 ("a statutory licence required by law is a gate, its absence blocks
 * and no other evidence substitutes"), 4.4 licences reads, 6 licence.expired; reference 2.4 for
 * which occupation needs which licence from which body (the policy pack's licensed_occupations).
 *
 * One record per organisation, subject, occupation and issuing body. It comes into being when a
 * verification of a licence kind is verified with the licensing body as issuer (the verification
 * commits one licence_confirmed event per occupation the kind licenses; this actor reacts), and a
 * later verified licence renews it; the periods it held stay in `history`. The licence is current
 * from valid_from until 00:00 UTC of expires_at, when a reminder expires it (licence.expired, which
 * the engagements and allocation modules react to).
 *
 * status   command  condition                                            event             next
 * -------  -------  ---------------------------------------------------  ----------------  -------
 * (none)   record   expires_at still ahead                               licence.recorded  current
 * (none)   record   expires_at already passed                            licence.recorded  expired
 * any      record   this verification is already in history              -                 (unchanged)
 * any      record   expires_at later than held and still ahead           licence.renewed   current
 * any      record   otherwise                                            -                 (unchanged)
 * current  expire   now >= expires_at (a reminder)                       licence.expired   expired
 * other    expire   -                                                    -                 (unchanged)
 */
import { defineActor, type IndexEntry, iso, sortKeyTime, type TimerWish } from '../../runtime/index.ts';
import { assertNever, recordView } from '../../kernel/index.ts';
import { dateMs } from './dates.ts';
import { LICENCE_PREFIX, licenceIdOf } from './ids.ts';
import type { LicenceConfirmed } from './verification.ts';

export const LICENCE_STATUSES = ['current', 'expired'] as const;
export type LicenceStatus = (typeof LICENCE_STATUSES)[number];

export interface Period {
  verification_id: string;
  valid_from: string;
  expires_at: string;
}

export interface LicenceState {
  id: string;
  org: string;
  livemode: boolean;
  mocked: boolean;
  subject_ref: string;
  occupation_code: string;
  issuer_id: string;
  issuer_name: string;
  licence_kind: string;
  status: LicenceStatus;
  valid_from: string;
  expires_at: string;
  verification_id: string;
  history: Period[];
  expired_at: number | null;
  created_at: number;
}

export type RecordLicence = Omit<LicenceConfirmed, 'type'>;

interface Facts {
  subject_ref: string;
  occupation_code: string;
  issuer_id: string;
  licence_kind: string;
}

export type LicenceEvent =
  | ({ type: 'licence.recorded'; status: LicenceStatus } & RecordLicence)
  | ({ type: 'licence.renewed'; verification_id: string; valid_from: string; expires_at: string } & Facts)
  | ({ type: 'licence.expired'; licence_id: string; expires_at: string; legally_required: true } & Facts);

const factsOf = (s: LicenceState): Facts => ({ subject_ref: s.subject_ref, occupation_code: s.occupation_code, issuer_id: s.issuer_id, licence_kind: s.licence_kind });

export const Licence = defineActor({
  kind: 'credentials_licence',
  prefix: LICENCE_PREFIX,
  creates: ['record'],
  initial: (id: string, org: string): LicenceState => ({
    id,
    org,
    livemode: false,
    mocked: false,
    subject_ref: '',
    occupation_code: '',
    issuer_id: '',
    issuer_name: '',
    licence_kind: '',
    status: 'current',
    valid_from: '',
    expires_at: '',
    verification_id: '',
    history: [],
    expired_at: null,
    created_at: 0,
  }),
  decide: {
    record(s: LicenceState, cmd: RecordLicence, ctx): LicenceEvent[] {
      const ahead = ctx.now < dateMs(cmd.expires_at);
      if (ctx.version === 0) return [{ type: 'licence.recorded', ...cmd, status: ahead ? 'current' : 'expired' }];
      if (s.history.some((p) => p.verification_id === cmd.verification_id)) return [];
      if (!ahead || dateMs(cmd.expires_at) <= dateMs(s.expires_at)) return [];
      return [{ type: 'licence.renewed', ...factsOf(s), verification_id: cmd.verification_id, valid_from: cmd.valid_from, expires_at: cmd.expires_at }];
    },
    expire(s: LicenceState, _cmd: unknown, ctx): LicenceEvent[] {
      if (s.status !== 'current' || ctx.now < dateMs(s.expires_at)) return [];
      return [{ type: 'licence.expired', ...factsOf(s), licence_id: s.id, expires_at: s.expires_at, legally_required: true }];
    },
  },
  evolve(s: LicenceState, e: LicenceEvent, meta): LicenceState {
    switch (e.type) {
      case 'licence.recorded':
        return {
          ...s,
          livemode: e.livemode,
          mocked: e.mocked,
          subject_ref: e.subject_ref,
          occupation_code: e.occupation_code,
          issuer_id: e.issuer_id,
          issuer_name: e.issuer_name,
          licence_kind: e.licence_kind,
          status: e.status,
          valid_from: e.valid_from,
          expires_at: e.expires_at,
          verification_id: e.verification_id,
          history: [{ verification_id: e.verification_id, valid_from: e.valid_from, expires_at: e.expires_at }],
          expired_at: e.status === 'expired' ? meta.at : null,
          created_at: meta.at,
        };
      case 'licence.renewed':
        return {
          ...s,
          status: 'current',
          valid_from: e.valid_from,
          expires_at: e.expires_at,
          verification_id: e.verification_id,
          history: [...s.history, { verification_id: e.verification_id, valid_from: e.valid_from, expires_at: e.expires_at }],
          expired_at: null,
        };
      case 'licence.expired':
        return { ...s, status: 'expired', expired_at: meta.at };
      default:
        return assertNever(e);
    }
  },
  view: (s: LicenceState) => (recordView('licence', s.id, s.livemode, s.mocked, {
    subject_ref: s.subject_ref,
    occupation_code: s.occupation_code,
    issuer_id: s.issuer_id,
    issuer_name: s.issuer_name,
    licence_kind: s.licence_kind,
    status: s.status,
    valid_from: s.valid_from,
    expires_at: s.expires_at,
    verification_id: s.verification_id,
    history: s.history,
    expired_at: s.expired_at === null ? null : iso(s.expired_at),
    created_at: iso(s.created_at),
  })),
  timers: (s: LicenceState): TimerWish[] => (s.status === 'current' ? [{ name: 'expiry', dueAt: dateMs(s.expires_at), command: 'expire' }] : []),
  indexes(s: LicenceState): IndexEntry[] {
    const sortKey = sortKeyTime(s.created_at);
    return licenceLists(s.subject_ref, s.occupation_code, s.status).map((list) => ({ list, sortKey }));
  },
  reactions: [
    {
      from: 'credentials_verification',
      events: ['credential_verification.licence_confirmed'],
      command: 'record',
      target(event) {
        const { type: _t, ...d } = event.data as LicenceConfirmed;
        return { id: licenceIdOf(event.org, d.subject_ref, d.occupation_code, d.issuer_id), payload: d };
      },
    },
  ],
});

/** Every combination of the list filters (subject_ref, occupation_code, status) a licence is listed under. */
export function licenceLists(subject: string, occupation: string, status: string): string[] {
  const out: string[] = [];
  for (let m = 0; m < 8; m++) out.push(licenceList(m & 1 ? subject : undefined, m & 2 ? occupation : undefined, m & 4 ? status : undefined));
  return out;
}

/** The list holding the licences that match the filters given ('all' for none). */
export function licenceList(subject: string | undefined, occupation: string | undefined, status: string | undefined): string {
  const parts: string[] = [];
  if (subject !== undefined) parts.push(`subject:${subject}`);
  if (occupation !== undefined) parts.push(`occupation:${occupation}`);
  if (status !== undefined) parts.push(`status:${status}`);
  return parts.length ? parts.join(':') : 'all';
}
