/** The instrument seal's canonical form (spec 2.6 Instrument.seal; actors/engagements/seal.ts). */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../kernel/index.ts';
import { canonicalDocument, draftHash, orderedDocument, sealedDocument, type SealedFields, sealHash, sealText } from '../../actors/engagements/seal.ts';

const fields = (over: Partial<SealedFields> = {}): SealedFields => ({
  id: 'rail_instrument_abc',
  livemode: false,
  engagement_id: 'rail_engagement_abc',
  engaging_party_ref: 'employer "Ọkọ́" \u2028 \\ 1',
  worker_ref: 'worker_\u00e9\u{1F600}',
  classification: 'employment',
  starts_on: '2026-01-05',
  ends_on: null,
  template_code: 'ng_contract_of_employment',
  clauses: [{ clause_code: 'parties', clause_version: '1' }, { clause_code: 'wages', clause_version: '2' }],
  clause_library_version: '2026.11.1',
  rule_pack_version: '2026.11.1',
  legal_approval_reference: 'unreviewed',
  supersedes: null,
  expires_at: Date.parse('2026-02-05T00:00:00Z'),
  assents: [
    { id: 'rail_assent_1', object: 'instrument_assent', instrument_id: 'rail_instrument_abc', party: 'engaging_party', subject_ref: 's1', passport_id: 'idn_passport_1', channel: 'api', document_hash: 'sha256:aa', assented_at: '2026-01-05T10:00:00.000Z' },
    { id: 'rail_assent_2', object: 'instrument_assent', instrument_id: 'rail_instrument_abc', party: 'worker', subject_ref: 's2', passport_id: 'idn_passport_2', channel: 'self_serve', document_hash: 'sha256:bb', assented_at: '2026-01-05T11:00:00.000Z' },
  ],
  ...over,
});

const sha = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;

describe('the seal is sha256 over canonical JSON (keys sorted at every depth, no whitespace)', () => {
  it('the sealed document serialises to exactly canonicalJson, with or without nulls, variations and assents', () => {
    for (const f of [fields(), fields({ ends_on: '2026-12-31', supersedes: 'rail_instrument_old', expires_at: null, livemode: true }), fields({ assents: [], clauses: [] })]) {
      const doc = sealedDocument(f);
      expect(canonicalDocument(doc)).toBe(canonicalJson(doc));
      expect(sealText(doc, 'sha256:prev', '2026-01-06T00:00:00.000Z')).toBe(canonicalJson({ algorithm: 'sha256', instrument: doc, previous_hash: 'sha256:prev', sealed_at: '2026-01-06T00:00:00.000Z' }));
      expect(sealHash(doc, 'sha256:prev', '2026-01-06T00:00:00.000Z')).toBe(sha(canonicalJson({ algorithm: 'sha256', instrument: doc, previous_hash: 'sha256:prev', sealed_at: '2026-01-06T00:00:00.000Z' })));
      expect(draftHash(f)).toBe(sha(canonicalJson({ ...doc, assents: [] })));
    }
  });

  it('the canonical order covers every field of the sealed document (a new field must be placed in it)', () => {
    const doc = sealedDocument(fields());
    const ordered = orderedDocument(doc);
    expect(Object.keys(ordered)).toEqual(Object.keys(doc).sort());
    expect(Object.keys(ordered.assents[0])).toEqual(Object.keys(doc.assents[0]).sort());
    expect(Object.keys(ordered.clauses[0])).toEqual(Object.keys(doc.clauses[0]).sort());
  });
});
