/**
 * `npm start`'s launcher: runs main.ts as one bundled module, built again only when a source it was
 * built from has changed. Node 20 runs no TypeScript of its own; loading every module of the
 * platform through a loader's hooks is most of a start's time, and a restart after a crash is a
 * start (docs/architecture.md "Stores", "What a restart costs"). esbuild is the compiler tsx runs
 * for each file; here it runs once for all of them, with every package left to Node.
 *
 * Plain JavaScript, since it is what makes TypeScript runnable. A source that finds its files
 * through `import.meta.url` (rule packs, the console's assets, a native module's require) is given
 * its own file's URL, so a bundled module reads the same files as an unbundled one.
 *
 * Several processes may start at once (a cluster's nodes on one machine): each writes whole files
 * under names of its own and renames them into place, so none ever loads a half-written bundle.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, statSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = join(ROOT, 'node_modules', '.cache', 'workforce-start');
const OUT = join(OUT_DIR, 'main.mjs');
const MANIFEST = join(OUT_DIR, 'manifest.json');
/** Changes whenever the build below changes what it makes from the same sources. */
const RECIPE = 'esm node20 packages-external file-urls 1';

/** A source file as the manifest remembers it: a changed size or modification time is a changed file. */
const stampOf = (file) => {
  const s = statSync(join(ROOT, file));
  return `${s.mtimeMs}:${s.size}`;
};

/** The bundle, when it was built by this recipe and esbuild from sources none of which has changed since. */
function builtBundle(esbuildVersion) {
  try {
    const m = JSON.parse(readFileSync(MANIFEST, 'utf8'));
    if (m.recipe !== RECIPE || m.esbuild !== esbuildVersion || !existsSync(OUT)) return undefined;
    for (const [file, stamp] of Object.entries(m.inputs)) if (stampOf(file) !== stamp) return undefined;
    return OUT;
  } catch {
    return undefined; // no manifest yet, or a source it names is gone
  }
}

/** Writes `text` whole under a name of this process's own, then renames it to `file`. */
function writeWhole(file, text) {
  const own = `${file}.${process.pid}.tmp`;
  writeFileSync(own, text);
  renameSync(own, file);
}

async function bundle(esbuild) {
  // Each source's stamp is taken before it is read, so a file edited during the build makes the
  // next start build again rather than keep a bundle of its older text.
  const inputs = {};
  const fileUrls = {
    name: 'file-urls',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        inputs[relative(ROOT, args.path)] = stampOf(relative(ROOT, args.path));
        const source = await readFile(args.path, 'utf8');
        const contents = source.includes('import.meta.url') ? source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)) : source;
        return { contents, loader: 'ts' };
      });
    },
  };
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ['main.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: OUT,
    sourcemap: 'linked',
    write: false,
    logLevel: 'warning',
    plugins: [fileUrls],
  });
  mkdirSync(OUT_DIR, { recursive: true });
  // the map before the module that names it, the manifest last: a reader that finds the manifest finds both
  for (const f of [...result.outputFiles].sort((a, b) => Number(b.path.endsWith('.map')) - Number(a.path.endsWith('.map')))) writeWhole(f.path, f.contents);
  writeWhole(MANIFEST, JSON.stringify({ recipe: RECIPE, esbuild: esbuild.version, inputs }));
  return OUT;
}

const esbuild = await import('esbuild');
const entry = builtBundle(esbuild.version) ?? (await bundle(esbuild));
// What this build is (kernel/read-model-checkpoints.ts: read models kept at a stop are taken back
// only by the build that kept them): the bundle's text and the locked packages it leaves to Node.
process.env.WORKFORCE_BUILD_ID = createHash('sha256').update(readFileSync(entry)).update(readFileSync(join(ROOT, 'package-lock.json'))).digest('hex').slice(0, 32);
await import(pathToFileURL(entry).href);
