/**
 * The occupation nearest a job title, with how sure that is (spec 2.7: occupation_code "inferred
 * from the title when absent"; every inference is listed in inferred_fields until confirmed, so a
 * guess is never taken for the caller's word). A title holding one of an occupation's keywords
 * names it outright (confidence 1); any other title is compared, as letter trigrams, with every
 * occupation's name, label and keywords, and the closest wins with the similarity as its
 * confidence. Nothing is left uninferred: a title like no occupation still gets the nearest, at a
 * confidence that says so.
 */
/** What an occupation of the taxonomy offers to compare a title with (taxonomy.ts Occupation). */
export interface Comparable {
  name: string;
  isco_label: string;
  keywords: string[];
}

export interface NearestOccupation<O extends Comparable> {
  occupation: O;
  /** 1 for a keyword in the title; otherwise the trigram similarity (Dice, 0 to 1), to two places. */
  confidence: number;
}

/** Letter trigrams of each word, the word padded so its start and end count. */
function trigrams(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().split(/[^a-z0-9]+/)) {
    if (!w) continue;
    const p = ` ${w} `;
    for (let i = 0; i + 3 <= p.length; i++) out.add(p.slice(i, i + 3));
  }
  return out;
}

function dice(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const g of a) if (b.has(g)) shared++;
  return (2 * shared) / (a.size + b.size);
}

/** Each taxonomy's phrases as trigram sets, made once per list of occupations. */
const phrasesOf = new WeakMap<readonly Comparable[], Array<{ occupation: Comparable; grams: Set<string> }>>();

function phrases(occupations: readonly Comparable[]) {
  let p = phrasesOf.get(occupations);
  if (!p) {
    p = occupations.flatMap((o) => [o.name, o.isco_label, ...o.keywords].map((text) => ({ occupation: o, grams: trigrams(text) })));
    phrasesOf.set(occupations, p);
  }
  return p;
}

/**
 * The occupation nearest `title`: `named` (the one whose keyword the title holds, taxonomy.ts
 * occupationOf) when there is one, else the closest of `occupations`; undefined only when there are none.
 */
export function nearestOccupation<O extends Comparable>(occupations: readonly O[], named: O | undefined, title: string): NearestOccupation<O> | undefined {
  if (named) return { occupation: named, confidence: 1 };
  const grams = trigrams(title);
  let best: NearestOccupation<O> | undefined;
  for (const { occupation, grams: g } of phrases(occupations) as Array<{ occupation: O; grams: Set<string> }>) {
    const score = dice(grams, g);
    if (!best || score > best.confidence) best = { occupation, confidence: score };
  }
  // below a keyword's certainty however alike the words: only a keyword names an occupation outright
  return best && { occupation: best.occupation, confidence: Math.min(0.99, Math.round(best.confidence * 100) / 100) };
}
