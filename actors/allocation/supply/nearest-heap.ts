/**
 * The bounded max-heap a nearest query keeps (supply-index.ts): parallel arrays of haversine terms
 * `A` and worker slots `S`, ordered by (a, worker id) so the root is the farthest of the nearest
 * held. Plain functions over the arrays and the index's slot-to-id array: a query allocates no
 * heap object, and ties break by id exactly as a sort by (distance, id) does.
 */

/** (a1, id of s1) sorts before (a2, id of s2). */
export function before(ids: readonly (string | undefined)[], a1: number, s1: number, a2: number, s2: number): boolean {
  return a1 < a2 || (a1 === a2 && cmp(ids[s1]!, ids[s2]!) < 0);
}

export function push(ids: readonly (string | undefined)[], A: number[], S: number[], a: number, s: number): void {
  let i = A.length;
  A.push(a);
  S.push(s);
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!before(ids, A[p], S[p], A[i], S[i])) break;
    swap(A, S, p, i);
    i = p;
  }
}

export function replaceTop(ids: readonly (string | undefined)[], A: number[], S: number[], a: number, s: number): void {
  A[0] = a;
  S[0] = s;
  siftDown(ids, A, S, A.length);
}

/** Moves the root down to its place among the first n entries. */
function siftDown(ids: readonly (string | undefined)[], A: number[], S: number[], n: number): void {
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < n && before(ids, A[m], S[m], A[l], S[l])) m = l;
    if (r < n && before(ids, A[m], S[m], A[r], S[r])) m = r;
    if (m === i) break;
    swap(A, S, m, i);
    i = m;
  }
}

/**
 * Heapsort in place: the max-heap becomes the nearest first (ties by id), the order a sort by
 * (a, id) gives, without a comparator call per comparison.
 */
export function sortHeap(ids: readonly (string | undefined)[], A: number[], S: number[]): void {
  for (let end = A.length - 1; end > 0; end--) {
    swap(A, S, 0, end);
    siftDown(ids, A, S, end);
  }
}

const cmp = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);

function swap(A: number[], S: number[], i: number, j: number): void {
  const a = A[i];
  A[i] = A[j];
  A[j] = a;
  const s = S[i];
  S[i] = S[j];
  S[j] = s;
}
