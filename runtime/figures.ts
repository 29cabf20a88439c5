/**
 * Figures the areas add to the metrics (docs/gaps.md#metrics): each source reads tallies it keeps
 * itself when the metrics are scraped, so counting costs the area an addition and nothing per
 * event here. The gateway formats them (gateway/metrics.ts); the runtime knows no area.
 */

export interface Figure {
  /** A Prometheus metric name (`platform_...`). */
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  /** Few values per label: never an organisation or record id. */
  labels?: Readonly<Record<string, string>>;
  value: number;
}

export type FigureSource = () => Figure[] | Promise<Figure[]>;

export class FigureBoard {
  private readonly sources = new Map<string, FigureSource>();

  /** Adds a source under a name of its own; returns its removal. */
  add(name: string, source: FigureSource): () => void {
    this.sources.set(name, source);
    return () => {
      if (this.sources.get(name) === source) this.sources.delete(name);
    };
  }

  /** Every source's figures; a source that fails gives none rather than failing the scrape. */
  async read(): Promise<Figure[]> {
    const all = await Promise.all([...this.sources.values()].map((s) => Promise.resolve().then(s).catch((): Figure[] => [])));
    return all.flat();
  }
}

/** The runtime's own figures (gateway/metrics.ts reads them at a scrape). */
export interface RuntimeFigures {
  resident: number;
  passivations: number;
  mailboxDepth: number;
  turnsInFlight: number;
  uncommittedTurns: number;
  /** Group appends to the journal, and their seconds in all (a flush is one append). */
  journalAppends: number;
  journalAppendSeconds: number;
  remindersFired: number;
  /** Firings that failed and were put off to retry. */
  remindersPostponed: number;
}
