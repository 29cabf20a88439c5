/**
 * kernel parseCsv (kernel/csv.ts): the one reader every import's CSV goes through (payroll
 * payees, sourcing leads and requisitions, remittance instruction sets), RFC 4180.
 */
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../kernel/index.ts';

describe('parseCsv (RFC 4180)', () => {
  it('quoted fields keep commas, doubled quotes and line breaks; a BOM and CRLF are read; blank lines skipped', () => {
    const { rows, error } = parseCsv('\ufeffa,b,c\r\n"x, y","say ""hi""","two\nlines"\r\n\r\n1,2,3');
    expect(error).toBeNull();
    expect(rows).toEqual([['a', 'b', 'c'], ['x, y', 'say "hi"', 'two\nlines'], ['1', '2', '3']]);
  });

  it('a last line without a line end is read; empty fields are kept; a lone CR ends a line', () => {
    expect(parseCsv('a,,c\rd,e,\n,f').rows).toEqual([['a', '', 'c'], ['d', 'e', ''], ['', 'f']]);
    expect(parseCsv('').rows).toEqual([]);
    expect(parseCsv('\n\r\n').rows).toEqual([]);
  });

  it('a quote opens a quoted field only at its start; elsewhere it is a character', () => {
    expect(parseCsv('a"b",c\n"x"y,z').rows).toEqual([['a"b"', 'c'], ['xy', 'z']]);
  });

  it('a file ending inside a quoted field is reported, and the open record is not read', () => {
    const { rows, error } = parseCsv('a,b\n1,"2\n3');
    expect(error).toMatch(/quoted/);
    expect(rows).toEqual([['a', 'b']]);
  });
});
