/**
 * Public face of the engagements module (spec 1, 2.6, 3 Engagement and Instrument, 4.5, 6): the
 * area, and what other modules may use: the standing read (executed and current, from memory on
 * this node) and the journal facts of standing changes they react to.
 */
import type { Area, Platform } from '../../kernel/index.ts';
import { AuditBundle } from './audit-bundle.ts';
import { Engagement } from './engagement.ts';
import { events } from './events.ts';
import { Instrument } from './instrument.ts';
import { Party } from './party.ts';
import { RemediationCase } from './remediation-case.ts';
import { routes } from './routes.ts';
import { SealChain } from './seal-chain.ts';
import { ENGAGEMENTS, standingModel } from './service.ts';
import { type EngagementStanding, StandingModel } from './standing.ts';

export type { EngagementStanding } from './standing.ts';
export { ENGAGEMENT_PREFIX, INSTRUMENT_PREFIX, ENVELOPE_PREFIX } from './ids.ts';

export const area: Area = {
  name: 'engagements',
  kinds: [Engagement, Instrument, SealChain, Party, RemediationCase, AuditBundle],
  routes,
  events,
  start(platform) {
    const model = new StandingModel(platform);
    platform.services.provide(ENGAGEMENTS, model);
    model.start();
  },
  async stop(platform) {
    await platform.services.remove(ENGAGEMENTS)?.stop();
  },
};

/** Whether an engagement between the organisation and the worker is executed and current (spec 3, 7): a read of memory on this node. */
export const engagementStanding = (platform: Platform): EngagementStanding => standingModel(platform);

/** Journal facts of standing changes (the runtime's Reaction.from / events); data carries worker_ref, engaging_party_ref and status. */
export const STANDING_KIND = Engagement.kind;
/** Standing lapsed; data.lapse.reason: requested, passport_not_live, term_ended or instrument_expired. */
export const STANDING_LAPSED = 'engagement.lapsed';
/** The engagement was terminated (final). */
export const STANDING_TERMINATED = 'engagement.terminated';
/** The engagement went into dispute. */
export const STANDING_DISPUTED = 'engagement.disputed';
/** The engagement became current (again). */
export const STANDING_ACTIVATED = 'engagement.activated';
