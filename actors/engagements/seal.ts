/**
 * The instrument seal (spec 2.6 Instrument.seal: hash prefixed with the algorithm name,
 * previous_hash, sealed_at, algorithm). The hash is over the canonical instrument: the sealed
 * document (what the parties agreed and who assented, never its status), the previous seal of the
 * organisation's chain and the sealing time, as canonical JSON (kernel canonicalJson: keys sorted
 * at every depth, no whitespace). The first seal of an organisation names GENESIS as previous_hash.
 * Anyone holding the document and the chain recomputes every seal with SHA-256 alone (audit
 * bundles carry both, for offline checks).
 */
import { sha256 } from '../../kernel/index.ts';

export const SEAL_ALGORITHM = 'sha256';
export const GENESIS = `sha256:${'0'.repeat(64)}`;

export interface Seal {
  hash: string;
  previous_hash: string;
  sealed_at: string;
  algorithm: typeof SEAL_ALGORITHM;
}

export interface AssentRecord {
  id: string;
  object: 'instrument_assent';
  instrument_id: string;
  party: 'worker' | 'engaging_party';
  subject_ref: string;
  passport_id: string;
  channel: string;
  /** sha256 of the sealed document as drafted when the party assented (what they saw). */
  document_hash: string;
  assented_at: string;
}

/** The fields of an instrument a seal covers. */
export interface SealedFields {
  id: string;
  livemode: boolean;
  engagement_id: string;
  engaging_party_ref: string;
  worker_ref: string;
  classification: string;
  starts_on: string;
  ends_on: string | null;
  template_code: string;
  clauses: Array<{ clause_code: string; clause_version: string }>;
  clause_library_version: string;
  rule_pack_version: string;
  legal_approval_reference: string;
  supersedes: string | null;
  expires_at: number | null;
  assents: AssentRecord[];
}

/** The canonical instrument document a seal is computed over. */
export function sealedDocument(s: SealedFields) {
  return {
    object: 'instrument',
    id: s.id,
    livemode: s.livemode,
    engagement_id: s.engagement_id,
    engaging_party_ref: s.engaging_party_ref,
    worker_ref: s.worker_ref,
    classification: s.classification,
    starts_on: s.starts_on,
    ends_on: s.ends_on,
    template_code: s.template_code,
    clauses: s.clauses.map((c) => ({ clause_code: c.clause_code, clause_version: c.clause_version })),
    clause_library_version: s.clause_library_version,
    rule_pack_version: s.rule_pack_version,
    legal_approval_reference: s.legal_approval_reference,
    supersedes: s.supersedes,
    expires_at: s.expires_at === null ? null : new Date(s.expires_at).toISOString(),
    assents: s.assents.map((a) => ({ party: a.party, subject_ref: a.subject_ref, passport_id: a.passport_id, channel: a.channel, document_hash: a.document_hash, assented_at: a.assented_at })),
  };
}

export type SealedDocument = ReturnType<typeof sealedDocument>;

/**
 * The document rebuilt with its keys in canonical order (sorted by UTF-16 code units at every
 * depth, as canonicalJson sorts them), so JSON.stringify of it is its canonical JSON: the same
 * bytes as canonicalJson(doc) (undefined members left out, as both leave them) at a fraction of
 * the cost, since sealing is on the request path of execute. The test of seal.ts holds this
 * equal to canonicalJson and fails if the document gains a field not listed here.
 */
export function orderedDocument(d: SealedDocument): SealedDocument {
  return {
    assents: d.assents.map((a) => ({ assented_at: a.assented_at, channel: a.channel, document_hash: a.document_hash, party: a.party, passport_id: a.passport_id, subject_ref: a.subject_ref })),
    classification: d.classification,
    clause_library_version: d.clause_library_version,
    clauses: d.clauses.map((c) => ({ clause_code: c.clause_code, clause_version: c.clause_version })),
    ends_on: d.ends_on,
    engagement_id: d.engagement_id,
    engaging_party_ref: d.engaging_party_ref,
    expires_at: d.expires_at,
    id: d.id,
    legal_approval_reference: d.legal_approval_reference,
    livemode: d.livemode,
    object: d.object,
    rule_pack_version: d.rule_pack_version,
    starts_on: d.starts_on,
    supersedes: d.supersedes,
    template_code: d.template_code,
    worker_ref: d.worker_ref,
  } as SealedDocument;
}

/** The canonical JSON of the sealed document (equal to canonicalJson(doc)). */
export const canonicalDocument = (doc: SealedDocument): string => JSON.stringify(orderedDocument(doc));

/** The hash of the document as drafted, before any assent (what a party assents to). */
export const draftHash = (s: SealedFields): string => sha256(canonicalDocument({ ...sealedDocument(s), assents: [] }));

/** The text a seal hashes: canonical { algorithm, instrument, previous_hash, sealed_at } (keys already in order). */
export const sealText = (doc: SealedDocument, previousHash: string, sealedAt: string): string =>
  JSON.stringify({ algorithm: SEAL_ALGORITHM, instrument: orderedDocument(doc), previous_hash: previousHash, sealed_at: sealedAt });

/** The seal hash: sha256 over canonical { algorithm, instrument, previous_hash, sealed_at }. */
export const sealHash = (doc: SealedDocument, previousHash: string, sealedAt: string): string => sha256(sealText(doc, previousHash, sealedAt));
