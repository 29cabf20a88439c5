/**
 * Requests from the chaos bench to the node processes it started: keep-alive per port, and
 * `through`, which sends one request to a live node and, after a 5xx or a failed connection, sends
 * the same request (the same Idempotency-Key, when it carries one) to the next live node, as a
 * load balancer in front of the cluster would, until it has an answer below 500 or the deadline.
 */
import { Agent } from 'node:http';
import type { Proc } from '../../support/chaos/index.ts';
import { jsonCall, type JsonReply } from '../../support/node-http.ts';

const REQUEST_TIMEOUT_MS = 20_000;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const agents = new Map<number, Agent>();

export function call(port: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<JsonReply> {
  let agent = agents.get(port);
  if (!agent) agents.set(port, (agent = new Agent({ keepAlive: true, maxSockets: 64 })));
  return jsonCall(port, method, path, headers, body, { agent, timeoutMs: REQUEST_TIMEOUT_MS });
}

/** Drops every kept connection (at the end of a scenario, so no socket keeps the process alive). */
export function closeAgents(): void {
  for (const a of agents.values()) a.destroy();
  agents.clear();
}

export interface Through {
  reply: JsonReply;
  /** Attempts that met a 5xx or a failed connection before the answer. */
  retries: number;
}

/**
 * One request through the live nodes of `procs`, starting at `start`, moving on after a 5xx or a
 * failed connection, for up to `deadlineMs`; past the deadline the last answer (or a 599) is given.
 */
export async function through(procs: readonly Proc[], start: number, method: string, path: string, headers: Record<string, string>, body?: unknown, deadlineMs = 180_000): Promise<Through> {
  const until = performance.now() + deadlineMs;
  let last: JsonReply = { status: 599, body: { error: 'no live node answered' }, headers: {} };
  for (let attempt = 0; ; attempt++) {
    const live = procs.filter((p) => p.up);
    if (live.length === 0) return { reply: last, retries: attempt };
    const p = live[(start + attempt) % live.length];
    try {
      last = await call(p.port, method, path, headers, body);
      if (last.status < 500) return { reply: last, retries: attempt };
    } catch (e) {
      last = { status: 599, body: { error: (e as Error).message }, headers: {} };
    }
    if (performance.now() > until) return { reply: last, retries: attempt };
    await sleep(Math.min(500, 25 * (attempt + 1)));
  }
}

/** `through` with an API key, giving the reply only. */
export async function ask(procs: readonly Proc[], apiKey: string, method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<JsonReply> {
  const headers: Record<string, string> = { 'service-api-key': apiKey, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) };
  return (await through(procs, Math.floor(Math.random() * 3), method, path, headers, body)).reply;
}
