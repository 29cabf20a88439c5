/** Face of payroll's payee imports (spec 4.8 /v1/payroll/imports) for the rest of the area. */
export { PayrollImport, type ImportFacts, type ImportState, type ImportStatus } from './import.ts';
export { MAX_IMPORT_ROWS, refKey, runImport, type ImportBody } from './imports.ts';
