/**
 * Requisition operations (spec 2.7, 3 Requisition, 4.6), in named steps: read the body into
 * content, infer what was left out (taxonomy.ts), screen every text with the fair-hiring pack
 * (fair-hiring.ts), then ask the actor, which decides (requisition.ts).
 */
import { type Caller, createDedupe, createdId, errorEntry, fieldError, idOf, type Platform, type ValidationEntry, validationError } from '../../kernel/index.ts';
import { artefactsOf } from './artefacts.ts';
import { screen } from './fair-hiring.ts';
import { REQUISITION_PREFIX } from './ids.ts';
import { type Confirmation, type Content, current, type Prepared, type QuarantineFinding, Requisition, type RequisitionState, type Requirements, requisitionView } from './requisition.ts';
import { sourcing, type SourcingService } from './service.ts';
import { EMPLOYMENT_TYPES, type EmploymentType, infer, type InferableInput, PERIODS, type Period } from './taxonomy.ts';

export interface RequirementsInput {
  min_experience_years?: number | null;
  skills?: string[];
  licences?: string[];
  within_state?: boolean;
  notes?: string | null;
}

/** POST /v1/sourcing/requisitions (docs/gaps.md#sourcing); PATCH takes the same fields, all optional. */
export interface RequisitionBody extends Omit<InferableInput, 'job_title'> {
  job_title?: string;
  headcount?: number;
  description?: string | null;
  requirements?: RequirementsInput;
}

export const requisitionId = (id: string) => idOf(id, REQUISITION_PREFIX, 'requisition');

const requirementsOf = (r: RequirementsInput | undefined, base?: Requirements): Requirements => ({
  min_experience_years: r?.min_experience_years !== undefined ? r.min_experience_years : (base?.min_experience_years ?? null),
  skills: r?.skills ?? base?.skills ?? [],
  licences: r?.licences ?? base?.licences ?? [],
  within_state: r?.within_state ?? base?.within_state ?? false,
  notes: r?.notes !== undefined ? r.notes : (base?.notes ?? null),
});

/** Values the schema cannot judge: a State the taxonomy does not know. */
function checkBody(svc: SourcingService, body: RequisitionBody): void {
  const entries: ValidationEntry[] = [];
  const state = body.location?.state;
  if (typeof state === 'string' && !svc.taxonomy.stateCodes.has(state)) {
    entries.push(errorEntry('/location/state', 'unknown_state', `location.state ${state} is not a State of Nigeria (ISO 3166-2:NG, e.g. NG-LA).`));
  }
  if (entries.length) throw validationError(entries, 1);
}

/** The texts of a version, by field, in the order findings are reported. */
export function textsOf(c: Content): Array<readonly [string, string]> {
  const out: Array<readonly [string, string]> = [['job_title', c.job_title]];
  if (c.description) out.push(['description', c.description]);
  const req = [...c.requirements.skills, ...c.requirements.licences, c.requirements.notes ?? ''].filter(Boolean).join('\n');
  if (req) out.push(['requirements', req]);
  if (c.location) out.push(['location.description', c.location.description]);
  if (c.artefacts.advert !== null) out.push(['artefacts.advert', c.artefacts.advert]);
  for (const [ch, text] of Object.entries(c.artefacts.variants)) out.push([`artefacts.variants.${ch}`, text]);
  return out;
}

export function screened(svc: SourcingService, content: Content, inferred_fields: string[]): Prepared {
  const p = svc.pack;
  return { content, inferred_fields, screening: { rule_pack_version: p.pack.version, rule_pack_hash: p.hash, findings: screen(p, textsOf(content)) } };
}

/** Content and inferred fields of a create: everything left out is inferred. */
export function prepareCreate(svc: SourcingService, body: RequisitionBody & { job_title: string; headcount?: number }, now: number): Prepared {
  checkBody(svc, body);
  const inf = infer(svc.taxonomy, body as InferableInput, now);
  const inferred = [...inf.inferred];
  // only an import may leave headcount out (spec 3: an inferred headcount holds publish)
  if (body.headcount === undefined) inferred.push('headcount');
  const content: Content = {
    job_title: body.job_title,
    occupation_code: inf.occupation_code,
    occupation_confidence: inf.occupation_confidence,
    employment_type: inf.employment_type,
    headcount: body.headcount ?? 1,
    compensation: inf.compensation,
    location: inf.location,
    starts_on: inf.starts_on,
    description: body.description ?? null,
    requirements: requirementsOf(body.requirements),
    artefacts: { advert: null, variants: {} },
  };
  return screened(svc, content, inferred);
}

/**
 * Content of an edit: a field the patch names is the caller's (no longer inferred); a field it
 * leaves alone keeps its value and whether it was inferred, except the occupation and employment
 * type, which are inferred again from a changed title while they are still inferred.
 */
export function prepareEdit(svc: SourcingService, s: RequisitionState, patch: RequisitionBody, now: number): Prepared {
  checkBody(svc, patch);
  const cur = current(s);
  const c = cur.content;
  const was = new Set(cur.inferred_fields);
  const title = patch.job_title ?? c.job_title;
  const retitled = patch.job_title !== undefined && patch.job_title !== c.job_title;
  const input: InferableInput = {
    job_title: title,
    occupation_code: patch.occupation_code !== undefined ? patch.occupation_code : was.has('occupation_code') && retitled ? undefined : c.occupation_code,
    employment_type: patch.employment_type !== undefined ? patch.employment_type : was.has('employment_type') && retitled ? undefined : c.employment_type,
    compensation: patch.compensation !== undefined ? patch.compensation : c.compensation,
    location: patch.location !== undefined ? patch.location : c.location,
    starts_on: patch.starts_on !== undefined ? patch.starts_on : c.starts_on,
  };
  const inf = infer(svc.taxonomy, input, now);
  const kept = [...was].filter((f) => {
    if (f === 'headcount') return patch.headcount === undefined;
    if (f === 'occupation_code' || f === 'employment_type') return patch[f] === undefined && !retitled;
    if (f === 'compensation.period') return patch.compensation === undefined;
    if (f === 'location.state') return patch.location === undefined;
    if (f === 'starts_on') return patch.starts_on === undefined;
    return false;
  });
  const inferred_fields = [...new Set([...kept, ...inf.inferred])];
  const content: Content = {
    ...c,
    job_title: title,
    occupation_code: inf.occupation_code,
    // inferred again from a new title, or still the earlier inference, or the caller's (null)
    occupation_confidence: inf.inferred.includes('occupation_code') ? inf.occupation_confidence : kept.includes('occupation_code') ? (c.occupation_confidence ?? null) : null,
    employment_type: inf.employment_type,
    headcount: patch.headcount ?? c.headcount,
    compensation: inf.compensation,
    location: inf.location,
    starts_on: inf.starts_on,
    description: patch.description !== undefined ? patch.description : c.description,
    requirements: requirementsOf(patch.requirements, c.requirements),
  };
  return screened(svc, content, inferred_fields);
}

export async function createRequisition(platform: Platform, caller: Caller, body: RequisitionBody & { job_title: string; headcount: number }) {
  const svc = sourcing(platform);
  const prepared = prepareCreate(svc, body, platform.clock.now());
  const id = createdId(caller, REQUISITION_PREFIX);
  return platform.system.ask(Requisition, id, 'create', { ...prepared, livemode: caller.livemode }, { ...caller, dedupeId: createDedupe(caller) });
}

const stateOf = (platform: Platform, caller: Caller, id: string) => platform.system.state(Requisition, requisitionId(id), caller.org);

export async function editRequisition(platform: Platform, caller: Caller, id: string, patch: RequisitionBody) {
  const s = await stateOf(platform, caller, id);
  const prepared = prepareEdit(sourcing(platform), s, patch, platform.clock.now());
  return platform.system.ask(Requisition, s.id, 'edit', prepared, caller);
}

/** Parses the corrected values of confirm_inferences; names every refused entry. */
export function parseConfirmations(svc: SourcingService, list: Array<{ field: string; accepted: boolean; corrected_value?: string }>): Confirmation[] {
  const entries: ValidationEntry[] = [];
  const seen = new Set<string>();
  const out: Confirmation[] = [];
  list.forEach((c, i) => {
    const at = (code: string, detail: string, field = 'corrected_value') => entries.push(errorEntry(`/confirmations/${i}/${field}`, code, detail, i + 1));
    if (seen.has(c.field)) return at('duplicate_field', `${c.field} is confirmed twice.`, 'field');
    seen.add(c.field);
    if (c.accepted) {
      if (c.corrected_value !== undefined) return at('unexpected_value', `${c.field}: corrected_value is given only with accepted false.`);
      return void out.push({ field: c.field, accepted: true });
    }
    const v = c.corrected_value;
    const nullable = c.field === 'occupation_code' || c.field === 'location.state' || c.field === 'starts_on';
    if (v === undefined) {
      if (nullable) return void out.push({ field: c.field, accepted: false, value: null });
      return at('corrected_value_required', `${c.field}: accepted false needs a corrected_value.`);
    }
    switch (c.field) {
      case 'occupation_code':
        if (!/^ng-\d{4}$/.test(v)) return at('invalid_value', `occupation_code must look like ng-7411.`);
        return void out.push({ field: c.field, accepted: false, value: v });
      case 'employment_type':
        if (!(EMPLOYMENT_TYPES as readonly string[]).includes(v)) return at('invalid_value', `employment_type must be one of ${EMPLOYMENT_TYPES.join(', ')}.`);
        return void out.push({ field: c.field, accepted: false, value: v as EmploymentType });
      case 'compensation.period':
        if (!(PERIODS as readonly string[]).includes(v)) return at('invalid_value', `compensation.period must be one of ${PERIODS.join(', ')}.`);
        return void out.push({ field: c.field, accepted: false, value: v as Period });
      case 'location.state':
        if (!svc.taxonomy.stateCodes.has(v)) return at('unknown_state', `${v} is not a State of Nigeria (ISO 3166-2:NG, e.g. NG-LA).`);
        return void out.push({ field: c.field, accepted: false, value: v });
      case 'starts_on':
        if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`)) || new Date(`${v}T00:00:00Z`).toISOString().slice(0, 10) !== v) return at('invalid_value', 'starts_on must be a date YYYY-MM-DD.');
        return void out.push({ field: c.field, accepted: false, value: v });
      case 'headcount': {
        const n = Number(v);
        if (!/^\d+$/.test(v) || n < 1 || n > 100_000) return at('invalid_value', 'headcount must be a whole number from 1 to 100000.');
        return void out.push({ field: c.field, accepted: false, value: n });
      }
      default:
        return at('unknown_field', `${c.field} is not a field that is ever inferred (occupation_code, employment_type, compensation.period, location.state, starts_on, headcount).`, 'field');
    }
  });
  if (entries.length) throw validationError(entries, list.length);
  return out;
}

export function confirmInferences(platform: Platform, caller: Caller, id: string, body: { confirmations: Array<{ field: string; accepted: boolean; corrected_value?: string }> }) {
  const confirmations = parseConfirmations(sourcing(platform), body.confirmations);
  return platform.system.ask(Requisition, requisitionId(id), 'confirm_inferences', { confirmations }, caller);
}

export function publishRequisition(platform: Platform, caller: Caller, id: string) {
  return platform.system.ask(Requisition, requisitionId(id), 'publish', {}, caller);
}

export function closeRequisition(platform: Platform, caller: Caller, id: string, body: { reason?: string } | undefined) {
  return platform.system.ask(Requisition, requisitionId(id), 'close', { reason: body?.reason ?? null }, caller);
}

/** A person's quarantine (spec 4.6 POST .../quarantine): the finding names the rule or manual_review. */
export function quarantineRequisition(platform: Platform, caller: Caller, id: string, body: { detail: string; rule_code?: string; offending_text?: string }) {
  const svc = sourcing(platform);
  if (body.rule_code !== undefined && body.rule_code !== 'manual_review' && !svc.pack.pack.rules.some((r) => r.code === body.rule_code)) {
    throw fieldError('/rule_code', 'unknown_rule', `${body.rule_code} is not a rule of fair-hiring pack ${svc.pack.pack.version} (or manual_review).`);
  }
  const finding: QuarantineFinding = { rule_code: body.rule_code ?? 'manual_review', rule_pack_version: svc.pack.pack.version, detail: body.detail, contested: false, offending_text: body.offending_text ?? '' };
  return platform.system.ask(Requisition, requisitionId(id), 'quarantine', { finding }, caller);
}

/** Contesting a quarantine finding (spec 2.7 QuarantineFinding.contested): under_review until a person adjudicates. */
export function contestRequisition(platform: Platform, caller: Caller, id: string, body: { reason: string }) {
  return platform.system.ask(Requisition, requisitionId(id), 'contest', body, caller);
}

export function adjudicateRequisition(platform: Platform, caller: Caller, id: string, body: { outcome: 'upheld' | 'released'; reason: string }) {
  return platform.system.ask(Requisition, requisitionId(id), 'adjudicate', body, caller);
}

export async function getRequisition(platform: Platform, caller: Caller, id: string, version?: number) {
  const s = await stateOf(platform, caller, id);
  return requisitionView(s, version);
}

export async function artefacts(platform: Platform, caller: Caller, id: string) {
  const s = await stateOf(platform, caller, id);
  const svc = sourcing(platform);
  const v = current(s);
  return artefactsOf(s.id, v.version, v.content, svc.taxonomy, svc.channels());
}

/** PATCH .../artefacts: replaces the advert or channel variants (null restores the generated text); screened like the rest. */
export async function editArtefacts(platform: Platform, caller: Caller, id: string, body: { advert?: string | null; variants?: Record<string, string | null> }) {
  const svc = sourcing(platform);
  const unknown = Object.keys(body.variants ?? {}).filter((ch) => !svc.channel(ch));
  if (unknown.length) {
    throw validationError(unknown.map((ch, i) => errorEntry(`/variants/${ch}`, 'unknown_channel', `${ch} is not a channel (GET /v1/sourcing/channels).`, i + 1)));
  }
  const tooLong = Object.entries(body.variants ?? {}).filter(([ch, t]) => t !== null && t.length > svc.channel(ch)!.max_length);
  if (tooLong.length) {
    throw validationError(tooLong.map(([ch], i) => errorEntry(`/variants/${ch}`, 'too_long', `The variant for ${ch} is longer than its ${svc.channel(ch)!.max_length} characters.`, i + 1)));
  }
  const s = await stateOf(platform, caller, id);
  const cur = current(s);
  const variants = { ...cur.content.artefacts.variants };
  for (const [ch, t] of Object.entries(body.variants ?? {})) {
    if (t === null) delete variants[ch];
    else variants[ch] = t;
  }
  const content: Content = { ...cur.content, artefacts: { advert: body.advert !== undefined ? body.advert : cur.content.artefacts.advert, variants } };
  await platform.system.ask(Requisition, s.id, 'edit', screened(svc, content, cur.inferred_fields), caller);
  const v = current(await stateOf(platform, caller, s.id));
  return artefactsOf(s.id, v.version, v.content, svc.taxonomy, svc.channels());
}
