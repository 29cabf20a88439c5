/**
 * Public event types of the engagements module (spec 6: engagements has 9 types; the complete list
 * is not shown). The spec names engagement.terminated and instrument.expired; the other seven are
 * ours, rail.<resource>.<past_tense> (docs/gaps.md#engagements): the moves of standing other
 * modules react to, and the instrument's seal and variation. Each carries the record (Engagement or
 * Instrument) as data. Every other transition is still recorded and listed in audit entries.
 */
import { publicEvents, type PublicEventDecl } from '../../kernel/index.ts';
import { Engagement } from './engagement.ts';
import { Instrument } from './instrument.ts';

const engagement = publicEvents('rail', Engagement.kind);
const instrument = publicEvents('rail', Instrument.kind);

export const events: PublicEventDecl[] = [
  engagement('rail.engagement.classified', 'engagement.classified', 'An engagement was classified on its facts (at opening, or again on new facts); classification alone confers no rights.'),
  engagement('rail.engagement.executed', 'engagement.executed', 'The engagement\u2019s instrument was executed and sealed with both parties\u2019 assent and live passports.'),
  engagement('rail.engagement.activated', 'engagement.activated', 'The engagement became current: executed and current standing (reinstated after a lapse, too).'),
  engagement('rail.engagement.lapsed', 'engagement.lapsed', 'The engagement\u2019s standing lapsed (a party\u2019s passport stopped being live, the term ended, its papered instrument expired, or on request).'),
  engagement('rail.engagement.disputed', 'engagement.disputed', 'The engagement went into dispute; a remediation case opened.'),
  engagement('engagement.terminated', 'engagement.terminated', 'An engagement was terminated.', false),
  instrument('rail.instrument.executed', 'instrument.executed', 'An instrument was executed: seal applied (hash chained to the organisation\u2019s earlier seals), executed_at set.'),
  instrument('rail.instrument.superseded', 'instrument.superseded', 'An executed instrument was superseded by a drafted variation; both records are kept and linked.'),
  instrument('instrument.expired', 'instrument.expired', 'An unexecuted instrument passed its window.', false),
];
