/**
 * Artefacts (spec 4.6 GET/PATCH .../artefacts; shape "not shown", docs/gaps.md#sourcing): the
 * advert text generated from a requisition's version and one variant per channel, cut to the
 * channel's length. A caller may replace the advert or a variant (PATCH); the replacement is
 * screened like every other text of the requisition and kept with the version.
 */
import { formatMinor } from '../../kernel/index.ts';
import type { Channel } from './providers/channels.ts';
import type { Content } from './requisition.ts';
import type { LoadedTaxonomy } from './taxonomy.ts';

const PERIOD_WORDS = { monthly: 'a month', annual: 'a year', daily: 'a day', per_task: 'per task' } as const;
const TYPE_WORDS = { permanent: 'Permanent', fixed_term: 'Fixed-term', contract: 'Contract', casual: 'Casual', apprenticeship: 'Apprenticeship' } as const;

/** The advert as generated from the content (never screened text of our own making beyond the caller's). */
export function generatedAdvert(c: Content, t: LoadedTaxonomy): string {
  const lines: string[] = [c.job_title];
  const facts: string[] = [];
  if (c.employment_type) facts.push(TYPE_WORDS[c.employment_type]);
  if (c.headcount > 1) facts.push(`${c.headcount} openings`);
  if (c.location) {
    const state = c.location.state ? t.stateCodes.get(c.location.state)?.name : undefined;
    facts.push(state && !c.location.description.toLowerCase().includes(state.toLowerCase()) ? `${c.location.description}, ${state}` : c.location.description);
  }
  if (c.starts_on) facts.push(`starts ${c.starts_on}`);
  if (facts.length) lines.push(facts.join(' · '));
  if (c.compensation) {
    const { amount, period, negotiable } = c.compensation;
    lines.push(`Pay: ${amount.currency} ${formatMinor(amount.amount, amount.currency)} ${PERIOD_WORDS[period]}${negotiable ? ' (negotiable)' : ''}`);
  }
  if (c.description) lines.push('', c.description);
  const req: string[] = [];
  if (c.requirements.min_experience_years) req.push(`At least ${c.requirements.min_experience_years} years' experience.`);
  if (c.requirements.skills.length) req.push(`Skills: ${c.requirements.skills.join(', ')}.`);
  if (c.requirements.licences.length) req.push(`Licences: ${c.requirements.licences.join(', ')}.`);
  if (c.requirements.within_state && c.location?.state) req.push(`Must be able to work in ${t.stateCodes.get(c.location.state)?.name ?? c.location.state}.`);
  if (c.requirements.notes) req.push(c.requirements.notes);
  if (req.length) lines.push('', 'Requirements:', ...req.map((r) => `- ${r}`));
  lines.push('', 'Open to all qualified applicants. There is no fee to apply.');
  return lines.join('\n');
}

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);

export interface ArtefactsView {
  object: 'requisition_artefacts';
  requisition_id: string;
  version: number;
  advert: { text: string; edited: boolean };
  variants: Array<{ channel_id: string; text: string; max_length: number; edited: boolean }>;
}

export function artefactsOf(requisitionId: string, version: number, c: Content, t: LoadedTaxonomy, channels: readonly Channel[]): ArtefactsView {
  const advert = c.artefacts.advert ?? generatedAdvert(c, t);
  return {
    object: 'requisition_artefacts',
    requisition_id: requisitionId,
    version,
    advert: { text: advert, edited: c.artefacts.advert !== null },
    variants: channels.map((ch) => {
      const own = c.artefacts.variants[ch.id];
      return { channel_id: ch.id, text: own ?? cut(advert, ch.max_length), max_length: ch.max_length, edited: own !== undefined };
    }),
  };
}

/** The text a delivery sends to a channel. */
export function variantFor(c: Content, t: LoadedTaxonomy, ch: Channel): string {
  return c.artefacts.variants[ch.id] ?? cut(c.artefacts.advert ?? generatedAdvert(c, t), ch.max_length);
}
