/**
 * The heartbeat policy pack (spec 2.8, 9): thresholds are data, versioned YYYY.MM.N, identified by
 * the sha256 of their canonical JSON. An active version never changes; a new threshold is a new
 * file. This module only reads and checks packs; the rules that use them live in supply/: validation.ts,
 * presence.ts, supply-index.ts and socket.ts (the socket's budgets, enforced by the gateway).
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PolicyPack {
  name: 'allocation_heartbeat_policy';
  version: string;
  heartbeat: {
    clock_skew_tolerance_seconds: number;
    retention_window_seconds: number;
    max_accuracy_metres: number;
    max_plausible_speed_metres_per_second: number;
    max_readings_per_batch: number;
    /** Accepted readings remembered per worker for duplicate and movement checks. */
    recent_readings_kept: number;
  };
  presence: { stale_after_seconds: number; ghost_after_seconds: number };
  supply: { h3_resolution: number; region_resolution: number; max_query_radius_metres: number; max_query_limit: number };
  /**
   * Budgets of one heartbeat WebSocket connection, which the gateway enforces (from 2026.11.1;
   * a pack without them leaves the socket unbudgeted, as it was).
   */
  socket?: {
    /** Frames answered with an error before the connection is closed. */
    bad_frames_per_connection: number;
    /** Frames a connection may send per second. */
    frames_per_second: number;
  };
  /**
   * Proof of service (from 2026.11.2; spec 3: arrival needs geofence entry and the start passcode,
   * completion the completion passcode, dwell and telemetry continuity).
   */
  assignment?: {
    /** Time inside the geofence, from arrival to completion, below which completion is an exception. */
    min_dwell_seconds: number;
    /** The longest gap between readings from arrival to completion that still counts as continuous. */
    max_telemetry_gap_seconds: number;
    passcode_digits: number;
    /** Added to the geofence radius for a reading's position (GPS error). */
    geofence_slack_metres: number;
  };
}

export interface LoadedPolicy {
  pack: PolicyPack;
  /** sha256:<hex> of the canonical form (keys sorted, no whitespace). */
  hash: string;
}

const VERSION = /^\d{4}\.(0[1-9]|1[0-2])\.[1-9]\d*$/;
const dir = join(dirname(fileURLToPath(import.meta.url)), 'policy');

export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Throws on a pack that is not well formed: a bad pack must never become active. */
export function checkPack(raw: unknown): LoadedPolicy {
  const p = raw as PolicyPack;
  const problems: string[] = [];
  if (p?.name !== 'allocation_heartbeat_policy') problems.push('name');
  if (typeof p?.version !== 'string' || !VERSION.test(p.version)) problems.push('version (YYYY.MM.N)');
  const positive = (path: string, x: unknown, integer = false) => {
    if (typeof x !== 'number' || !(x > 0) || !Number.isFinite(x) || (integer && !Number.isInteger(x))) problems.push(path);
  };
  const h = p?.heartbeat;
  positive('heartbeat.clock_skew_tolerance_seconds', h?.clock_skew_tolerance_seconds);
  positive('heartbeat.retention_window_seconds', h?.retention_window_seconds);
  positive('heartbeat.max_accuracy_metres', h?.max_accuracy_metres);
  positive('heartbeat.max_plausible_speed_metres_per_second', h?.max_plausible_speed_metres_per_second);
  positive('heartbeat.max_readings_per_batch', h?.max_readings_per_batch, true);
  positive('heartbeat.recent_readings_kept', h?.recent_readings_kept, true);
  positive('presence.stale_after_seconds', p?.presence?.stale_after_seconds);
  positive('presence.ghost_after_seconds', p?.presence?.ghost_after_seconds);
  if (p?.presence && !(p.presence.ghost_after_seconds > p.presence.stale_after_seconds)) problems.push('presence.ghost_after_seconds > stale_after_seconds');
  const s = p?.supply;
  if (!Number.isInteger(s?.h3_resolution) || s.h3_resolution < 0 || s.h3_resolution > 15) problems.push('supply.h3_resolution');
  if (!Number.isInteger(s?.region_resolution) || s.region_resolution < 0 || s.region_resolution > (s?.h3_resolution ?? 0)) problems.push('supply.region_resolution');
  positive('supply.max_query_radius_metres', s?.max_query_radius_metres);
  positive('supply.max_query_limit', s?.max_query_limit, true);
  if (p?.socket !== undefined) {
    positive('socket.bad_frames_per_connection', p.socket?.bad_frames_per_connection, true);
    positive('socket.frames_per_second', p.socket?.frames_per_second, true);
  }
  if (p?.assignment !== undefined) {
    positive('assignment.min_dwell_seconds', p.assignment?.min_dwell_seconds);
    positive('assignment.max_telemetry_gap_seconds', p.assignment?.max_telemetry_gap_seconds);
    positive('assignment.passcode_digits', p.assignment?.passcode_digits, true);
    if (!(p.assignment?.geofence_slack_metres >= 0)) problems.push('assignment.geofence_slack_metres');
  }
  if (problems.length) throw new Error(`policy pack refused: ${problems.join(', ')}`);
  return { pack: Object.freeze(p), hash: 'sha256:' + createHash('sha256').update(canonicalJson(p)).digest('hex') };
}

/** Every pack shipped in policy/, by version. */
export function loadPolicies(): Map<string, LoadedPolicy> {
  const out = new Map<string, LoadedPolicy>();
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.json'))) {
    const loaded = checkPack(JSON.parse(readFileSync(join(dir, f), 'utf8')));
    if (`${loaded.pack.version}.json` !== f) throw new Error(`policy file ${f} holds version ${loaded.pack.version}`);
    out.set(loaded.pack.version, loaded);
  }
  return out;
}

export const ACTIVE_POLICY_VERSION = '2026.11.2';

export function activePolicy(version = ACTIVE_POLICY_VERSION): LoadedPolicy {
  const p = loadPolicies().get(version);
  if (!p) throw new Error(`no allocation policy pack ${version}`);
  return p;
}
