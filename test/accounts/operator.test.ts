/**
 * Operator CLI (spec 5.3 clients "issued by the maker on request"; 2.2 SupportAccess; 5.8 live keys
 * not self-serve): the real CLI process talks to the running server's operator socket.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperatorSocket } from '../../operator/server.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { storeFamily } from '../../support/stores.ts';

const run = promisify(execFile);
let h: Harness;
let sock: { path: string; close(): Promise<void> };

beforeAll(async () => {
  h = await startHarness();
  sock = await startOperatorSocket(h.platform, join(mkdtempSync(join(tmpdir(), 'op-')), 'operator.sock'));
});
afterAll(async () => {
  await sock.close();
  await h.close();
});

const cli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'operator/cli.ts', ...args], { cwd: join(import.meta.dirname, '..', '..'), env: { ...process.env, OPERATOR_SOCKET: sock.path } });

describe('operator CLI', () => {
  it('the operator socket is reachable only by the server user (mode 0600)', () => {
    expect(statSync(sock.path).mode & 0o777).toBe(0o600);
  });

  it('issue-client issues an OAuth client whose secret mints a token (spec 5.3)', async () => {
    const { stdout } = await cli('issue-client', '--org', h.org, '--name', 'payroll sync', '--scopes', 'run:read iam:read');
    const client = JSON.parse(stdout);
    expect(client).toMatchObject({ id: expect.stringMatching(/^client_/), object: 'oauth_client', scopes: ['run:read', 'iam:read'], client_secret: expect.any(String) });
    const t = await h.request('POST', '/v1/oauth/token', { key: null, body: { grant_type: 'client_credentials', client_id: client.id, client_secret: client.client_secret } });
    expect(t.status).toBe(200);
  });

  it('issue-client refuses a wildcard scope and an unknown organisation', async () => {
    await expect(cli('issue-client', '--org', h.org, '--name', 'x', '--scopes', 'run:*')).rejects.toMatchObject({ code: 1 });
    await expect(cli('issue-client', '--org', 'org_nope', '--name', 'x', '--scopes', 'run:read')).rejects.toMatchObject({ code: 1 });
  });

  it('support-access records an entry listed at GET /v1/support_access (spec 2.2)', async () => {
    const { stdout } = await cli('support-access', '--org', h.org, '--action', 'GET /v1/me', '--purpose', 'ticket 77', '--staff', 'a.bello');
    const entry = JSON.parse(stdout);
    expect(entry.id).toMatch(/^sta_/);
    const list = await h.request('GET', '/v1/support_access');
    expect(list.body.data[0]).toMatchObject({ id: entry.id, action: 'GET /v1/me', purpose: 'ticket 77' });
  });

  it(`rebuild-indexes replays the journal into the list indexes where they live apart from it (cluster), and is refused where the journal writes them (${storeFamily()})`, async () => {
    if (storeFamily() !== 'cluster') {
      await expect(cli('rebuild-indexes')).rejects.toMatchObject({ code: 1, stdout: expect.stringContaining('cluster stores only') });
      return;
    }
    const before = (await h.request('GET', '/v1/api_keys?limit=100')).body.data;
    const { stdout } = await cli('rebuild-indexes');
    expect(JSON.parse(stdout)).toMatchObject({ rebuilt: true, records: expect.any(Number), entries: expect.any(Number) });
    expect(JSON.parse(stdout).entries).toBeGreaterThan(0);
    expect((await h.request('GET', '/v1/api_keys?limit=100')).body.data).toEqual(before);
  });
});
