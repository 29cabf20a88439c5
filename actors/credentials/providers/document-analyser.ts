/**
 * Document analysis behind one interface (spec 2.5: five separately scored factors: template, seal,
 * typography, serial structure, plausibility of issuance; reference 2.5 for the indicators of each).
 * The analyser scores; the module decides (policy pack thresholds) what the scores amount to.
 *
 * The sandbox analyser is deterministic. A document whose URL's last path segment is one of
 * DOCUMENT_TEST_FILES gets the scores listed there; any other document scores from a hash of its
 * URL in 0.80..1.00 on every factor (consistent with a genuine exemplar).
 */
import { createHash } from 'node:crypto';

export const FACTORS = ['template', 'seal', 'typography', 'serial_structure', 'plausibility_of_issuance'] as const;
export type Factor = (typeof FACTORS)[number];

export interface FactorScore {
  /** 0 (certainly not genuine) .. 1 (consistent with a genuine exemplar). */
  score: number;
  indicators: string[];
}

export interface AnalyserInput {
  document_url: string;
  credential_kind: string;
}

export interface AnalyserOutput {
  factors: Record<Factor, FactorScore>;
  mocked: boolean;
}

export interface DocumentAnalyser {
  analyse(input: AnalyserInput): Promise<AnalyserOutput>;
}

type Low = Partial<Record<Factor, [number, string]>>;

/** The documented sandbox test documents, by file name (any host, any path before it). */
export const DOCUMENT_TEST_FILES: Record<string, Low> = {
  'genuine.pdf': {},
  'forged.pdf': {
    template: [0.1, 'Layout and border differ from the issuer exemplar of the same year'],
    seal: [0.05, 'Seal is printed flat; no displaced paper fibres'],
    typography: [0.2, 'Mixed fonts and weights within one line of fixed text'],
    serial_structure: [0.1, 'Certificate number breaks the issuer format'],
    plausibility_of_issuance: [0.3, 'Award date precedes plausible admission age'],
  },
  'forged-seal.pdf': { seal: [0.1, 'Registrar signature identical to another document (pasted)'] },
  'bad-serial.pdf': {
    serial_structure: [0.15, 'Candidate number is not 10 digits'],
    plausibility_of_issuance: [0.2, 'Issuance year outside the issuer record coverage'],
  },
  'mixed-fonts.pdf': { typography: [0.45, 'Irregular kerning in the candidate name'] },
  'implausible-issuance.pdf': { plausibility_of_issuance: [0.4, 'Class of degree inconsistent with the stated CGPA'] },
};

const fileOf = (url: string): string => {
  const path = url.split(/[?#]/, 1)[0];
  return path.slice(path.lastIndexOf('/') + 1).toLowerCase();
};

export class SandboxDocumentAnalyser implements DocumentAnalyser {
  async analyse(input: AnalyserInput): Promise<AnalyserOutput> {
    const known = DOCUMENT_TEST_FILES[fileOf(input.document_url)];
    const digest = createHash('sha256').update(input.document_url).digest();
    const factors = {} as Record<Factor, FactorScore>;
    FACTORS.forEach((f, i) => {
      const low = known?.[f];
      factors[f] = low ? { score: low[0], indicators: [low[1]] } : { score: Math.round((0.8 + (digest[i] / 255) * 0.2) * 100) / 100, indicators: [] };
    });
    return { factors, mocked: true };
  }
}
