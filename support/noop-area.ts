/**
 * A bench-only area (never mounted by the platform): one idempotent POST whose handler does no
 * domain work, so the gateway bench can tell the gateway's own cost of a first-time idempotent POST
 * (credential, scope, body, idempotency claim and record, validation, JSON, replay copy) from the
 * cost of what a real handler creates.
 */
import { Type } from '@sinclair/typebox';
import { type Area, route } from '../kernel/index.ts';

export const NOOP_PATH = '/v1/bench/noops';

export const noopArea: Area = {
  name: 'noop',
  kinds: [],
  routes: [
    route({
      method: 'POST',
      path: NOOP_PATH,
      auth: 'key',
      module: 'iam',
      idempotent: true,
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
      summary: 'bench: an idempotent create that creates nothing',
      handler: async (req) => ({ object: 'bench_noop', name: req.body.name, request_id: req.requestId }),
    }),
  ],
};
