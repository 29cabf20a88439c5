/** The roster entry operation the routes call (spec 4.8): a change of its employment dates. */
import type { Caller, Platform } from '../../kernel/index.ts';
import { RosterEntry, type RosterPatch } from './roster-entry.ts';

export function updateRosterEntry(p: Platform, c: Caller, id: string, body: RosterPatch): Promise<unknown> {
  return p.system.ask(RosterEntry, id, 'update', body, c);
}
