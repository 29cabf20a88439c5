/**
 * The blocklist entry operations (spec 3 "Identity verification": a blocklisted subject's
 * verifications are blocked; 4.3 blocklist entries): whether a subject is blocklisted (asked before
 * any source is queried), a person blocklisting a subject directly, and a person deciding an entry:
 * reversing an active one, confirming or declining a proposed one (a forgery the credentials module
 * escalated). Blocking a verification makes entries too; that is a verification operation
 * (verifications.ts). Each decision is recorded with who took it and why; the passport follows by
 * reaction.
 */
import type { Caller, Platform } from '../../kernel/index.ts';
import { BlocklistEntry, type CreateEntry } from './blocklist-entry.ts';
import { BLOCKLIST_PREFIX, passportIdOf } from './ids.ts';

export async function isBlocklisted(platform: Platform, org: string, subjectRef: string): Promise<boolean> {
  const page = await platform.system.listIds(BlocklistEntry, org, `active_subject:${passportIdOf(org, subjectRef)}`, { limit: 1, order: 'asc' });
  return page.ids.some((id) => id.startsWith(BLOCKLIST_PREFIX));
}

/** A person blocklists a subject directly: scope subject, origin staff, tied to no verification. */
export function blocklistSubject(platform: Platform, caller: Caller, id: string, body: { subject_ref: string; reason: string }, dedupeId: string | undefined): Promise<unknown> {
  const cmd: CreateEntry = { subject_ref: body.subject_ref, reason: body.reason, scope: 'subject', origin: 'staff', verification_id: null, livemode: caller.livemode };
  return platform.system.ask(BlocklistEntry, id, 'create', cmd, { ...caller, dedupeId });
}

/** reverse an active entry; confirm or decline a proposed one (a forgery the credentials module escalated). */
export function decideBlocklistEntry(platform: Platform, caller: Caller, id: string, op: 'reverse' | 'confirm' | 'decline', body: { reason: string }, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(BlocklistEntry, id, op, body, { ...caller, dedupeId });
}
