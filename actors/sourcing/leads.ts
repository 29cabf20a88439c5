/**
 * Lead operations (spec 4.6 POST /v1/sourcing/leads, POST .../leads/{lead_id}/promote). A channel
 * delivers a lead for a requisition, naming the delivery it answered when it can; the lead stays
 * on that delivery's requisition version (spec 3, 9), or, without one, on the version last
 * broadcast, and is screened against that version's requirements. A lead a channel delivers twice
 * (same channel, same external_ref) is one lead.
 */
import { type Caller, conflict, createDedupe, createdId, derivedId, idOf, notFound, type Platform } from '../../kernel/index.ts';
import { ChannelDelivery } from './channel-delivery.ts';
import { LEAD_PREFIX, SUBJECT_PREFIX } from './ids.ts';
import { Lead, type LeadSeed } from './lead.ts';
import { type Candidate, screenLead } from './lead-screening.ts';
import { current, Requisition } from './requisition.ts';
import { requisitionId } from './requisitions.ts';
import { deliveryId } from './broadcasts.ts';

export interface LeadBody {
  requisition_id: string;
  delivery_id?: string;
  channel_id?: string;
  external_ref?: string;
  candidate: { full_name: string; phone?: string | null; email?: string | null; state?: string | null; experience_years?: number | null; skills?: string[]; licences?: string[] };
}

export const leadId = (id: string) => idOf(id, LEAD_PREFIX, 'lead');

/** The seed of a lead: its version, broadcast and screening (shared with imports). */
export async function leadSeed(platform: Platform, caller: Caller, body: LeadBody): Promise<LeadSeed> {
  const s = await platform.system.state(Requisition, requisitionId(body.requisition_id), caller.org);
  if (s.published_at === null) throw conflict(`Requisition ${s.id} has never been published; it has no leads.`);
  let version: number;
  let broadcast: string | null = null;
  let channel = body.channel_id ?? null;
  if (body.delivery_id !== undefined) {
    const d = await platform.system.state(ChannelDelivery, deliveryId(body.delivery_id), caller.org);
    if (d.seed?.requisition_id !== s.id) throw notFound(`delivery of requisition ${s.id}`, d.id);
    if (channel !== null && channel !== d.seed.channel_id) throw conflict(`Delivery ${d.id} went to ${d.seed.channel_id}, not ${channel}.`);
    version = d.seed.requisition_version;
    broadcast = d.seed.broadcast_id;
    channel = d.seed.channel_id;
  } else {
    version = [...s.versions].reverse().find((v) => v.broadcast)?.version ?? current(s).version;
  }
  const c = body.candidate;
  const candidate: Candidate = { full_name: c.full_name, phone: c.phone ?? null, email: c.email ?? null, state: c.state ?? null, experience_years: c.experience_years ?? null, skills: c.skills ?? [], licences: c.licences ?? [] };
  const content = s.versions.find((v) => v.version === version)!.content;
  return {
    livemode: caller.livemode,
    requisition_id: s.id,
    requisition_version: version,
    broadcast_id: broadcast,
    delivery_id: body.delivery_id ?? null,
    channel_id: channel,
    external_ref: body.external_ref ?? null,
    candidate,
    screening: screenLead(content, candidate),
  };
}

/** A lead's id: from the channel's own reference when it gives one, so a second delivery of it is the same lead. */
export const leadIdFor = (caller: Caller, seed: LeadSeed, part = '') =>
  seed.external_ref !== null && seed.channel_id !== null ? derivedId(LEAD_PREFIX, [caller.org, seed.channel_id, seed.external_ref]) : createdId(caller, LEAD_PREFIX, part);

export async function receiveLead(platform: Platform, caller: Caller, body: LeadBody) {
  const seed = await leadSeed(platform, caller, body);
  return platform.system.ask(Lead, leadIdFor(caller, seed), 'receive', seed, { ...caller, dedupeId: createDedupe(caller) });
}

/** The subject a promoted lead becomes: a subject_ref other modules take (identity, credentials, engagements, allocation). */
export const subjectRefOf = (org: string, lead: string) => derivedId(SUBJECT_PREFIX, [org, lead]);

export function promoteLead(platform: Platform, caller: Caller, id: string, body: { override_reason?: string }) {
  const lead = leadId(id);
  return platform.system.ask(Lead, lead, 'promote', { subject_ref: subjectRefOf(caller.org, lead), override_reason: body.override_reason ?? null }, caller);
}
