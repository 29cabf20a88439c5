/**
 * Transport rules (STYLE "The transport's rules live in one file"; DESIGN gateway: the native
 * uWebSockets.js build, checked at start).
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('transport', () => {
  it('only gateway/uws.ts and the bench baseline import uWebSockets.js', () => {
    const importers = sources(ROOT)
      .filter((f) => /(from|import|require)\s*\(?\s*['"]uWebSockets\.js['"]/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(importers.sort()).toEqual(['bench/support/bare-server.ts', 'gateway/uws.ts']);
  });

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
