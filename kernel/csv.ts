/**
 * CSV as the imports read it (RFC 4180): records of strings, with quoted fields, doubled quotes,
 * CRLF or LF line ends and a leading byte-order mark. A quote opens a quoted field only at the
 * field's start; blank lines are skipped. Every import (payroll payees, sourcing leads and
 * requisitions, remittance instruction sets) reads its file through this one parser, so a file
 * one of them reads, the others read alike.
 */

/** The file's records, and why it cannot be read to the end (a quoted field left open), or null. */
export function parseCsv(text: string): { rows: string[][]; error: string | null } {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const endRow = () => {
    row.push(field);
    field = '';
    if (row.length > 1 || row[0] !== '') rows.push(row);
    row = [];
  };
  for (let i = 0; i < src.length; i++) {
    const ch = src[i];
    if (quoted) {
      if (ch !== '"') field += ch;
      else if (src[i + 1] === '"') (field += '"'), i++;
      else quoted = false;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && src[i + 1] === '\n') i++;
      endRow();
    } else field += ch;
  }
  if (quoted) return { rows, error: 'The file ends inside a quoted field.' };
  endRow();
  return { rows, error: null };
}
