// GET /api/v1/docs: the human API reference, Redoc's standalone bundle rendering /api/v1/openapi.json,
// public like the document itself. Every byte comes from this server (the bundle from node_modules,
// under a content-hashed path cached for a year); the page's Content-Security-Policy admits only them.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import express, { type NextFunction, type Request, type Response } from 'express';

const DOCS_PATH = '/api/v1/docs';
const ASSETS_PATH = `${DOCS_PATH}/assets`;
const SPEC_PATH = '/api/v1/openapi.json';

/**
 * Two changes to Redoc's standalone bundle as served, each to a string that must occur exactly once (a
 * new Redoc version that moved one fails loudly on the first request instead of loosening the page).
 */
const BUNDLE_PATCHES = [
  {
    // A "powered by" logo fetched from the vendor's CDN, with no option to leave it out: given an empty
    // data: URL the image fails, Redoc drops it (its onError) and the page never reaches outside.
    find: '"https://cdn.redoc.ly/redoc/logo-mini.svg"',
    replace: '"data:,"',
  },
  {
    // Webpack's nonce for the <style> elements the bundle adds, set before its first one (the scrollbar
    // CSS is added while the bundle loads, before Redoc.init could pass one): the nonce of the <script>
    // element that loaded it, so styles need no 'unsafe-inline'.
    find: 'r.nc=void 0;',
    replace: 'r.nc=document.currentScript&&document.currentScript.nonce||void 0;',
  },
];

/** Starts Redoc on the page's container; static, so it is cached like the bundle. */
const INIT_SCRIPT = `// tlr API reference: Redoc over the OpenAPI document (apps/server/src/http/docs-page.ts).
(function () {
  var root = document.getElementById('redoc');
  window.Redoc.init(root.getAttribute('data-spec-url'), { sanitize: true, nativeScrollbars: true, expandResponses: '200,201' }, root);
})();
`;

interface Asset {
  path: string;
  body: Buffer;
  /** Compressed once (the bundle: 1.1 MB, 0.33 MB gzipped); there is no compression middleware. */
  gzipped: Buffer;
}

function asset(name: string, ext: string, body: Buffer): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { path: `${ASSETS_PATH}/${name}.${hash}.${ext}`, body, gzipped: gzipSync(body) };
}

let loaded: { bundle: Asset; init: Asset } | undefined;
/** Read once, on the first request: the bundle is 1.1 MB that a server not asked for its docs never needs. */
function assets() {
  if (!loaded) {
    const file = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
    let source = readFileSync(file, 'utf8');
    for (const { find, replace } of BUNDLE_PATCHES) {
      if (source.split(find).length !== 2) throw new Error(`redoc.standalone.js does not contain ${find} exactly once; review BUNDLE_PATCHES in docs-page.ts`);
      source = source.replace(find, () => replace);
    }
    loaded = {
      bundle: asset('redoc.standalone', 'js', Buffer.from(source)),
      init: asset('docs', 'js', Buffer.from(INIT_SCRIPT)),
    };
  }
  return loaded;
}

const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Only this page's own scripts and styles (by nonce), the document by fetch, Redoc's search worker. */
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    'worker-src blob:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function page(_req: Request, res: Response) {
  const { bundle, init } = assets();
  const nonce = randomBytes(18).toString('base64');
  res.setHeader('Content-Security-Policy', contentSecurityPolicy(nonce));
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.type('html').send(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tlr API reference</title>
<link rel="icon" href="data:,">
<style nonce="${nonce}">body { margin: 0; }</style>
</head>
<body>
<noscript>The reference needs JavaScript. The OpenAPI document itself is at <a href="${SPEC_PATH}">${SPEC_PATH}</a>.</noscript>
<div id="redoc" data-spec-url="${html(SPEC_PATH)}"></div>
<script nonce="${nonce}" src="${bundle.path}"></script>
<script nonce="${nonce}" src="${init.path}"></script>
</body>
</html>
`);
}

function serveAsset(req: Request, res: Response, next: NextFunction) {
  const { bundle, init } = assets();
  const found = [bundle, init].find((a) => a.path === `${ASSETS_PATH}/${req.params.file}`);
  if (!found) return next();
  // The name carries the content's hash, so the file never changes under it.
  res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  res.setHeader('Vary', 'Accept-Encoding');
  res.type('text/javascript');
  if (!req.acceptsEncodings('gzip')) return res.send(found.body);
  res.setHeader('Content-Encoding', 'gzip');
  res.send(found.gzipped);
}

/** Mounted at /api/v1/docs, before the route guard (which answers unknown /api/v1 paths with 404). */
export function docsPage() {
  const router = express.Router();
  router.get('/', page);
  router.get('/assets/:file', serveAsset);
  return router;
}

/** GET /docs: where a newcomer looks first. */
export function redirectToDocs(_req: Request, res: Response) {
  res.redirect(301, DOCS_PATH);
}
