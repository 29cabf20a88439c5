/**
 * The event envelope of spec 6, field for field and in the spec's order. The same object is the
 * record of a module's event list and the body of a webhook delivery, so a redelivery carries the
 * same id and occurred_at.
 */
import { iso } from '../../runtime/index.ts';

export interface EventEnvelope {
  id: string;
  type: string;
  schema_version: number;
  org_id: string;
  sequence: number;
  occurred_at: string;
  /** Absent for scheduled events and reactions (spec 6: optional). */
  request_id?: string;
  livemode: boolean;
  mocked: boolean;
  source: string;
  data: unknown;
}

export interface EnvelopeInput {
  id: string;
  type: string;
  schemaVersion: number;
  org: string;
  sequence: number;
  /** Commit time, ms. */
  at: number;
  requestId?: string;
  livemode: boolean;
  mocked: boolean;
  source: string;
  data: unknown;
}

export function envelope(i: EnvelopeInput): EventEnvelope {
  return {
    id: i.id,
    type: i.type,
    schema_version: i.schemaVersion,
    org_id: i.org,
    sequence: i.sequence,
    occurred_at: iso(i.at),
    ...(i.requestId !== undefined ? { request_id: i.requestId } : {}),
    livemode: i.livemode,
    mocked: i.mocked,
    source: i.source,
    data: i.data,
  };
}
