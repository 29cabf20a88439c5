/** Payout rails behind the provider interface (spec 2.11; reference 3.1-3.4). */
export type { NameEnquiry, Rail, SendAnswer, StatementEntry, StatusAnswer, TestAccount, Transfer } from './rail.ts';
export { SANDBOX_TEST_ACCOUNTS, SandboxRail, sandboxRails, type SandboxRailOptions } from './sandbox.ts';
