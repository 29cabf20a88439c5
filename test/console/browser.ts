/**
 * Headless Chromium for the console's browser tests: Debian's `chromium` (CHROMIUM_PATH overrides),
 * driven by playwright-core. Locally the tests are skipped with a message when it is missing;
 * under CI=true a missing browser is a failure (as NATS and Redis are for the cluster tests).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
export const mustHaveChromium = process.env.CI === 'true';
/** Screenshots of the console land here (kept out of git; CI attaches the folder). */
export const OUTPUT = fileURLToPath(new URL('../../test-output/console/', import.meta.url));

if (!haveChromium && !mustHaveChromium) console.warn(`[console] no Chromium at ${CHROMIUM}: the browser tests are skipped (apt-get install -y chromium; CI=true makes this a failure).`);

export async function launch(): Promise<Browser> {
  if (!haveChromium) throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium package (.ci/run does).`);
  mkdirSync(OUTPUT, { recursive: true });
  // SwiftShader gives WebGL (MapLibre) without a GPU
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'] });
}
