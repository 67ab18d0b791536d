// The operator CLI as plain JavaScript, so that `tlr` starts without transpiling TypeScript (decision 421):
// apps/cli/src/main.ts and the workspace sources it imports, bundled once by esbuild (tsx's own) and
// again whenever one of them changed. Packages from node_modules stay outside the bundle, imported from
// where they are. Plain ESM, no dependencies of its own, Node 20+.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = 'apps/cli/src/main.ts';
/** Builds by the digest of their inputs; `inputs.json` lists the last build's inputs. */
export const CACHE = join(root, 'node_modules', '.cache', 'tlr-cli');
const INPUTS = join(CACHE, 'inputs.json');
/** Besides the sources: what changes how they resolve or build. */
const ALWAYS = ['pnpm-lock.yaml', 'scripts/cli-bundle.mjs', 'tsconfig.base.json'];

/** The digest of the inputs as they are now (size and modification time: no file is read). */
function digest(inputs) {
  const h = createHash('sha256');
  for (const f of [...ALWAYS, ...inputs]) {
    const st = statSync(join(root, f), { throwIfNoEntry: false });
    h.update(`${f}\0${st ? `${st.size}:${st.mtimeMs}` : 'missing'}\n`);
  }
  return h.digest('hex').slice(0, 16);
}

/**
 * Bare imports: a workspace package (its real path outside node_modules) is bundled; any other is left
 * to Node at its absolute URL, resolved from the importing file as Node would (pnpm gives each package its
 * own dependencies). Each source keeps its own import.meta.url, dirname and filename, which it uses to
 * find files beside it (migrations, XSDs, the embedded PostgreSQL's binaries).
 */
const keepLocations = {
  name: 'tlr-keep-locations',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'tlr-inner') return undefined;
      const r = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'tlr-inner' });
      if (r.errors.length || r.external || !r.path.includes(`${sep}node_modules${sep}`)) return r;
      return { path: pathToFileURL(r.path).href, external: true };
    });
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const contents = readFileSync(args.path, 'utf8')
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents, loader: 'ts' };
    });
  },
};

async function build() {
  // tsx's own esbuild, found from where pnpm put tsx.
  const esbuild = createRequire(join(realpathSync(join(root, 'node_modules', 'tsx')), 'package.json'))('esbuild');
  mkdirSync(CACHE, { recursive: true });
  const tmp = join(CACHE, `.build-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { main: ENTRY },
    bundle: true,
    // Chunks: what a command imports once it is parsed loads only then (`tlr --help` loads none).
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: tmp,
    outExtension: { '.js': '.mjs' },
    metafile: true,
    logLevel: 'error',
    plugins: [keepLocations],
  });
  const inputs = Object.keys(result.metafile.inputs)
    .filter((f) => !f.includes(':'))
    .map((f) => relative(root, join(root, f)));
  const dir = join(CACHE, digest(inputs));
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // a concurrent build put the same there first
  }
  writeFileSync(`${INPUTS}.${process.pid}`, JSON.stringify(inputs));
  renameSync(`${INPUTS}.${process.pid}`, INPUTS);
  return dir;
}

/** Builds older than a day that no run can still be loading chunks from. */
function prune(keep) {
  for (const name of readdirSync(CACHE)) {
    const path = join(CACHE, name);
    if (path !== keep && /^[0-9a-f]{16}$/.test(name) && Date.now() - statSync(path).mtimeMs > 86_400_000) rmSync(path, { recursive: true, force: true });
  }
}

/** The bundle's entry for the sources as they are: built first when one of them changed since. */
export async function cliBundle() {
  const last = existsSync(INPUTS) ? JSON.parse(readFileSync(INPUTS, 'utf8')) : undefined;
  const current = last && join(CACHE, digest(last));
  if (current && existsSync(join(current, 'main.mjs'))) return join(current, 'main.mjs');
  const dir = await build();
  prune(dir);
  return join(dir, 'main.mjs');
}
