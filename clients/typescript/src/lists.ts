/**
 * A list call: awaited, the first page; iterated, every record of every page in order, asking for
 * the next page `starting_after` the last record's id only when the one before is used up
 * (docs/gaps.md#gateway lists: pages newest first, `has_more` says whether another follows).
 */
import type { Call, Transport } from './transport.js';
import type { ListResult, Page } from './types.js';

export function listResult<T extends { id?: string }, P extends Page<T>>(transport: Transport, call: Call): ListResult<T, P> {
  let first: Promise<P> | undefined;
  const firstPage = (): Promise<P> => (first ??= transport.request<P>(call));
  return {
    then: (onfulfilled, onrejected) => firstPage().then(onfulfilled, onrejected),
    async *[Symbol.asyncIterator]() {
      let page = await firstPage();
      for (;;) {
        yield* page.data;
        const last = page.data[page.data.length - 1];
        if (!page.has_more || !last?.id) return;
        page = await transport.request<P>({ ...call, query: { ...call.query, starting_after: last.id } });
      }
    },
  };
}
