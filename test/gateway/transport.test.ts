/**
 * Transport rules (STYLE "The transport's rules live in one file"; DESIGN gateway: the native
 * uWebSockets.js build, checked at start). That only gateway/uws.ts imports uWebSockets.js is an
 * import rule: test/architecture/imports.test.ts.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

describe('transport', () => {
  it('refuses to start on the Node.js fallback instead of the native build', async () => {
    const child = run(process.execPath, ['--import', 'tsx', '-e', "import('./gateway/uws.ts').then(() => console.log('loaded'))"], {
      cwd: ROOT,
      env: { ...process.env, UWS_USE_FALLBACK: '1' },
    });
    await expect(child).rejects.toMatchObject({ stderr: expect.stringContaining('runs only on the native build') });
  });

  it('loads the native build here', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '-e', "import('./gateway/uws.ts').then(() => console.log('loaded'))"], { cwd: ROOT });
    expect(stdout.trim()).toBe('loaded');
  });
});
