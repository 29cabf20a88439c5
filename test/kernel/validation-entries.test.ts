/**
 * kernel errorEntry and fieldError (kernel/base/errors.ts): the entry areas build for a refused
 * value, and the refusal of one field. An entry that names no field has no field key, so a
 * snapshot or a strict comparison sees the same object an area built by hand.
 */
import { describe, expect, it } from 'vitest';
import { errorEntry, fieldError, validationError } from '../../kernel/index.ts';

describe('errorEntry and fieldError', () => {
  it('builds an error entry at index 1 unless told, with no field key when it names none', () => {
    expect(errorEntry('/url', 'invalid_format', 'Not a URL.')).toStrictEqual({ index: 1, severity: 'error', code: 'invalid_format', detail: 'Not a URL.', field: '/url' });
    expect(errorEntry('/rows/2', 'required', 'x is required.', 3)).toStrictEqual({ index: 3, severity: 'error', code: 'required', detail: 'x is required.', field: '/rows/2' });
    expect(Object.hasOwn(errorEntry(undefined, 'csv_unreadable', 'Bad CSV.', 4), 'field')).toBe(false);
  });

  it('refuses one field as validation_failed with a report of one entry, its detail the message unless given', () => {
    const e = fieldError('/expires_at', 'not_in_future', 'expires_at is in the past.');
    expect(e).toStrictEqual(validationError([errorEntry('/expires_at', 'not_in_future', 'expires_at is in the past.')], 1));
    expect(e.code).toBe('validation_failed');
    expect(e.message).toBe('expires_at is in the past.');
    expect(e.details?.validation).toStrictEqual({ entry_count: 1, error_count: 1, warning_count: 0, entries: [errorEntry('/expires_at', 'not_in_future', 'expires_at is in the past.')] });
    expect(fieldError('/note', 'note_required', 'note is required.', 'A note says why.').message).toBe('A note says why.');
  });
});
