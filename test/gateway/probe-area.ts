/**
 * A test-only area mounted beside the real ones, so gateway rules that no accounts route exercises
 * (money in a body, a socket, a thrown fault, a counted side effect) still go through the real
 * pipeline and socket.
 */
import { Type } from '@sinclair/typebox';
import { ApiError, type Area, Money, route } from '../../kernel/index.ts';

export const executions = { count: 0 };

/** The strict probe socket's limits (SocketDef.limits). */
export const STRICT_LIMITS = { badFramesPerConnection: 3, framesPerSecond: 5 };

export const probeArea: Area = {
  name: 'probe',
  kinds: [],
  routes: [
    route({
      method: 'POST',
      path: '/v1/probe/charges',
      auth: 'key',
      module: 'run',
      idempotent: true,
      body: Type.Object(
        { description: Type.String({ minLength: 1 }), price: Money(), lines: Type.Optional(Type.Array(Type.Object({ label: Type.String(), amount: Money() }))) },
        { additionalProperties: false },
      ),
      summary: 'probe: counts executions',
      handler: async (req) => {
        executions.count++;
        await new Promise((r) => setTimeout(r, 20)); // hold the key long enough for concurrent requests to queue
        return { object: 'probe_charge', n: executions.count, description: req.body.description, price: req.body.price };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/probe/refusals',
      auth: 'key',
      module: 'run',
      idempotent: true,
      summary: 'probe: always refuses with conflict, counting',
      handler: async () => {
        executions.count++;
        throw new ApiError('conflict', `refusal number ${executions.count}`);
      },
    }),
    route({
      method: 'GET',
      path: '/v1/probe/headers',
      auth: 'key',
      module: 'run',
      idempotent: false,
      summary: 'probe: the request headers a handler sees',
      handler: async (req) => ({ object: 'probe_headers', headers: req.headers }),
    }),
    route({
      method: 'POST',
      path: '/v1/probe/headers',
      auth: 'key',
      module: 'run',
      idempotent: false,
      summary: 'probe: the request headers a handler sees on a POST',
      handler: async (req) => ({ object: 'probe_headers', headers: req.headers }),
    }),
    route({
      method: 'GET',
      path: '/v1/probe/fault',
      auth: 'none',
      module: null,
      idempotent: false,
      summary: 'probe: throws a plain Error',
      handler: async () => {
        throw new Error('secret internals');
      },
    }),
    route({
      method: 'GET',
      path: '/v1/probe/tick',
      auth: 'none',
      module: null,
      idempotent: false,
      summary: 'probe: answers after a turn of the event loop, so requests overlap under load',
      handler: async () => {
        await new Promise((r) => setImmediate(r));
        return { object: 'probe_tick' };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/probe/runs/{run_id}/approve',
      auth: 'key',
      module: 'run',
      idempotent: false,
      summary: 'probe: needs run:approve',
      handler: async (req) => ({ object: 'probe', run_id: req.params.run_id }),
    }),
  ],
  sockets: [
    {
      path: '/v1/probe/stream',
      module: 'match',
      summary: 'probe: echoes frames with the caller organisation',
      async onMessage(frame, ctx) {
        const text = Buffer.from(frame.data).toString('utf8');
        if (text === 'fail') throw new ApiError('conflict', 'probe refusal');
        return JSON.stringify({ echo: text, org: ctx.org, request_id: ctx.requestId });
      },
    },
    {
      path: '/v1/probe/strict',
      module: 'match',
      summary: 'probe: text frames only, small limits; `fail` is refused (4xx), `down` fails (5xx)',
      frames: 'text',
      limits: () => STRICT_LIMITS,
      async onMessage(frame) {
        const text = Buffer.from(frame.data).toString('utf8');
        if (text === 'fail') throw new ApiError('validation_failed', 'probe refusal');
        if (text === 'down') throw new ApiError('unavailable', 'probe outage');
        return JSON.stringify({ echo: text });
      },
    },
  ],
};
