/**
 * Audit bundle (engagements). Spec 4.5 names POST and GET .../audit_bundles; the shape is not
 * shown (docs/gaps.md#engagements). A bundle is assembled once and never changes: every record,
 * journal event and seal of one engagement, with the organisation's seal chain up to its latest
 * seal, so it can be verified offline with SHA-256 alone (reference 3.7: Evidence Act s.84
 * computer-generated evidence wants an exportable record).
 *
 * status     command   condition  event                     next
 * ---------  --------  ---------  ------------------------  ---------
 * (none)     assemble  -          audit_bundle.assembled    assembled
 * assembled  assemble  -          -                         assembled
 */
import { defineActor, type IndexEntry, sortKeyTime } from '../../runtime/index.ts';
import { assertNever, recordView } from '../../kernel/index.ts';
import { AUDIT_BUNDLE_PREFIX } from './ids.ts';

export interface BundleState {
  id: string;
  org: string;
  engagement_id: string;
  livemode: boolean;
  bundle_hash: string;
  contents: Record<string, unknown> | null;
  assembled_at: number;
}

type BundleEvent = { type: 'audit_bundle.assembled'; engagement_id: string; livemode: boolean; bundle_hash: string; contents: Record<string, unknown> };

export const AuditBundle = defineActor({
  kind: 'engagements_audit_bundle',
  prefix: AUDIT_BUNDLE_PREFIX,
  creates: ['assemble'],
  initial: (id: string, org: string): BundleState => ({ id, org, engagement_id: '', livemode: false, bundle_hash: '', contents: null, assembled_at: 0 }),
  decide: {
    assemble(_s: BundleState, cmd: Omit<BundleEvent, 'type'>, ctx): BundleEvent[] {
      return ctx.version > 0 ? [] : [{ type: 'audit_bundle.assembled', ...cmd }];
    },
  },
  evolve(s: BundleState, e: BundleEvent, meta): BundleState {
    switch (e.type) {
      case 'audit_bundle.assembled':
        return { ...s, engagement_id: e.engagement_id, livemode: e.livemode, bundle_hash: e.bundle_hash, contents: e.contents, assembled_at: meta.at };
      default:
        return assertNever(e.type);
    }
  },
  view: (s: BundleState) => (recordView('audit_bundle', s.id, s.livemode, false, {
    engagement_id: s.engagement_id,
    assembled_at: new Date(s.assembled_at).toISOString(),
    bundle_hash: s.bundle_hash,
    ...s.contents,
  })),
  indexes: (s: BundleState): IndexEntry[] => [{ list: `engagement:${s.engagement_id}`, sortKey: sortKeyTime(s.assembled_at) }],
});
