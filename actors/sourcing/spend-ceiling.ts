/**
 * Spend ceiling of an organisation for a period (spec 4.6, 7: "a broadcast over a spend ceiling is
 * refused before any charge"; shape "not shown", docs/gaps.md#sourcing). One actor per
 * organisation and period (YYYY-MM, UTC): it holds the ceiling a person set and the budgets
 * broadcasts reserved, so two broadcasts racing for the last naira are decided one after the
 * other. No charge is computed: the ceiling caps what the organisation declares it will spend.
 *
 * command  condition                                              event                     reply
 * -------  -----------------------------------------------------  ------------------------  -----------------
 * set      -                                                      spend_ceiling.set         the ceiling
 * reserve  ref reserved before                                    -                         the ceiling
 * reserve  ceiling set and committed + amount > ceiling           409 conflict (figures)    -
 * reserve  reservations at RESERVATIONS_MAX                       409 conflict              -
 * reserve  otherwise                                              spend_ceiling.reserved    the ceiling
 */
import { defineActor, type IndexEntry, iso } from '../../runtime/index.ts';
import { assertNever, conflict, formatMinor, recordView } from '../../kernel/index.ts';
import { SPEND_CEILING_PREFIX } from './ids.ts';

/** Spend is declared in naira (kobo); a budget or ceiling in another currency is refused (docs/gaps.md#sourcing). */
export const SPEND_CURRENCY = 'NGN';
export const RESERVATIONS_MAX = 10_000;

export interface CeilingState {
  id: string;
  org: string;
  livemode: boolean;
  period: string;
  ceiling: number | null;
  committed: number;
  reservations: Record<string, number>;
  reservation_count: number;
  set_by: string | null;
  set_at: number | null;
  created_at: number;
}

export type CeilingEvent =
  | { type: 'spend_ceiling.set'; period: string; amount: number; livemode: boolean; by: string }
  | { type: 'spend_ceiling.reserved'; period: string; ref: string; amount: number; livemode: boolean };

const naira = (kobo: number) => `NGN ${formatMinor(kobo, SPEND_CURRENCY)}`;

export const SpendCeiling = defineActor({
  kind: 'sourcing_spend_ceiling',
  prefix: SPEND_CEILING_PREFIX,
  creates: ['set', 'reserve'],
  initial: (id: string, org: string): CeilingState => ({ id, org, livemode: false, period: '', ceiling: null, committed: 0, reservations: {}, reservation_count: 0, set_by: null, set_at: null, created_at: 0 }),
  decide: {
    set(_s: CeilingState, cmd: { period: string; amount: number; livemode: boolean }, ctx): CeilingEvent[] {
      return [{ type: 'spend_ceiling.set', period: cmd.period, amount: cmd.amount, livemode: cmd.livemode, by: ctx.principal ?? 'unknown' }];
    },
    reserve(s: CeilingState, cmd: { period: string; ref: string; amount: number; livemode: boolean }): CeilingEvent[] {
      if (Object.hasOwn(s.reservations, cmd.ref)) return [];
      if (s.ceiling !== null && s.committed + cmd.amount > s.ceiling) {
        throw conflict(
          `Refused before any charge: the spend ceiling for ${cmd.period} is ${naira(s.ceiling)}, ${naira(s.committed)} is committed, and this declares ${naira(cmd.amount)} (${naira(Math.max(0, s.ceiling - s.committed))} remains).`,
        );
      }
      if (s.reservation_count >= RESERVATIONS_MAX) throw conflict(`The period ${cmd.period} has ${RESERVATIONS_MAX} broadcasts and deliveries; no more can be made in it.`);
      return [{ type: 'spend_ceiling.reserved', period: cmd.period, ref: cmd.ref, amount: cmd.amount, livemode: cmd.livemode }];
    },
  },
  evolve(s: CeilingState, e: CeilingEvent, meta): CeilingState {
    const base = s.created_at === 0 ? { ...s, period: e.period, livemode: e.livemode, created_at: meta.at } : s;
    switch (e.type) {
      case 'spend_ceiling.set':
        return { ...base, ceiling: e.amount, set_by: e.by, set_at: meta.at };
      case 'spend_ceiling.reserved':
        return { ...base, committed: base.committed + e.amount, reservations: { ...base.reservations, [e.ref]: e.amount }, reservation_count: base.reservation_count + 1 };
      default:
        return assertNever(e);
    }
  },
  view: (s: CeilingState) => (recordView('spend_ceiling', s.id, s.livemode, false, {
    period: s.period,
    ceiling: s.ceiling === null ? null : { amount: s.ceiling, currency: SPEND_CURRENCY },
    committed: { amount: s.committed, currency: SPEND_CURRENCY },
    remaining: s.ceiling === null ? null : { amount: Math.max(0, s.ceiling - s.committed), currency: SPEND_CURRENCY },
    reservation_count: s.reservation_count,
    set_by: s.set_by,
    set_at: s.set_at === null ? null : iso(s.set_at),
    created_at: iso(s.created_at),
  })),
  indexes: (s: CeilingState): IndexEntry[] => [{ list: 'all', sortKey: s.period }],
});
