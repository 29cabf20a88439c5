/** Helpers for sourcing tests: requisitions that pass screening, with every field given or not. */
import { expect } from 'vitest';
import type { Harness } from '../../support/http.ts';

let ik = 0;
export const key = () => `ik-sourcing-${process.pid}-${++ik}`;
export const ngn = (amount: number) => ({ amount, currency: 'NGN' });

export const CLEAN_DESCRIPTION =
  'Install and maintain building wiring, inspect distribution boards, diagnose faults and keep records of every job. Reports to the facilities manager.';

/** A requisition body with every field the caller can give, so nothing is inferred. */
export const fullBody = (over: Record<string, unknown> = {}) => ({
  job_title: 'Electrician',
  headcount: 2,
  occupation_code: 'ng-7411',
  employment_type: 'permanent',
  compensation: { amount: ngn(25_000_000), period: 'monthly', negotiable: false },
  location: { description: 'Ikeja, Lagos', state: 'NG-LA', geofence_radius_metres: null },
  starts_on: '2027-01-04',
  description: CLEAN_DESCRIPTION,
  requirements: { min_experience_years: 3, skills: ['wiring'], licences: [], within_state: false, notes: null },
  ...over,
});

export async function create(h: Harness, body: unknown) {
  const r = await h.request('POST', '/v1/sourcing/requisitions', { body, idempotencyKey: key() });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

export const post = (h: Harness, path: string, body: unknown = {}) => h.request('POST', path, { body, idempotencyKey: key() });

export async function published(h: Harness, over: Record<string, unknown> = {}) {
  const r = await create(h, fullBody(over));
  const p = await post(h, `/v1/sourcing/requisitions/${r.id}/publish`);
  expect(p.status, JSON.stringify(p.body)).toBe(200);
  return p.body;
}
