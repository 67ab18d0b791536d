// The served OpenAPI document as people and generators meet it: Spectral (spectral:oas) and Redocly
// (recommended) find nothing in it, every integer has realistic bounds, and every 4xx the public
// documents declare is one they really answer. The linters run in process, offline: nothing is
// downloaded and nothing phones home.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { Document, Spectral, type RulesetDefinition } from '@stoplight/spectral-core';
import Parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService } from './helpers.ts';
import { operationOf, operationsOf, type OpenApiDocument } from './openapi-document.ts';
import type { Service } from '../src/service.ts';

/**
 * The one rule left out (decision 165): Redocly's no-server-example.com flags a `servers` URL on
 * localhost or example.com. The document names the origin the request reached (or PUBLIC_BASE_URL),
 * so a document fetched from a development server on localhost names localhost, as it should.
 */
const REDOCLY_RULES_OFF = { 'no-server-example.com': 'off' } as const;

const ROOT = join(import.meta.dirname, '..', '..', '..');
const LINT_CACHE = join(ROOT, 'node_modules', '.cache', 'openapi-lint');

let svc: Service;
let text: string;
let doc: OpenApiDocument;

/** GET over HTTP with a Host header of our choosing: the document as a client of that host gets it. */
function fetchAs(host: string, path: string): Promise<string> {
  const { port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { Host: host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`${res.statusCode}: ${body}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * A linter's findings for a document, computed once per document, linter versions and rules: a pass over
 * the whole document takes Spectral about 6 s of CPU, and the document changes far less often than the
 * suite runs. The key is the document's text, the lockfile (every linter's version) and this file (the
 * rules and how they are called); the findings are kept under node_modules/.cache, so a fresh clone (CI)
 * lints for real (decision 744).
 */
async function cachedFindings(linter: string, source: string, rules: unknown, lint: () => Promise<string[]>): Promise<string[]> {
  const key = createHash('sha256')
    .update(readFileSync(join(ROOT, 'pnpm-lock.yaml')))
    .update(readFileSync(import.meta.filename))
    .update(JSON.stringify([linter, rules]))
    // The document names the origin it was fetched from: the port is this run's.
    .update(source.replaceAll(`:${new URL(svc.url).port}/`, ':PORT/'))
    .digest('hex');
  const file = join(LINT_CACHE, `${linter}-${key}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as string[];
  const findings = await lint();
  mkdirSync(LINT_CACHE, { recursive: true });
  writeFileSync(file, JSON.stringify(findings));
  return findings;
}

const spectralFindings = (source: string): Promise<string[]> => cachedFindings('spectral', source, 'spectral:oas recommended', () => spectralRun(source));

async function spectralRun(source: string): Promise<string[]> {
  const spectral = new Spectral();
  // `extends: spectral:oas` of a .spectral.yaml: the ruleset's recommended rules. (Its declared type
  // differs from spectral-core's in ways that do not matter here: the CLI passes it the same way.)
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
  const results = await spectral.run(new Document(source, Parsers.Json, 'openapi.json'));
  return results.map((r) => `spectral ${['error', 'warn', 'info', 'hint'][r.severity]} ${r.code} at ${r.path.join('.')}: ${r.message}`);
}

/** Redocly's problems, each as `redocly <severity> <rule> at <pointer>: <message>`. */
function redoclyProblems(source: string, rules: Record<string, 'off' | 'warn' | 'error'>): Promise<string[]> {
  return cachedFindings('redocly', source, rules, async () => {
    const config = await createConfig({ extends: ['recommended'], rules });
    const problems: NormalizedProblem[] = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    return problems.map((p) => `redocly ${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`);
  });
}
/** A finding's severity and rule: `redocly warn info-license at ...` -> ['warn', 'info-license']. */
const severityAndRule = (finding: string) => finding.split(' ').slice(1, 3) as [string, string];

beforeAll(async () => {
  svc = await startTestService();
  const res = await fetch(`${svc.url}/api/v1/openapi.json`);
  expect(res.status).toBe(200);
  text = await res.text();
  doc = JSON.parse(text) as OpenApiDocument;
});
afterAll(() => svc?.stop());

// A linter's pass over the whole document takes about 15 s of CPU; while the suite's other files hold both
// cores, several times that.
const LINT_TIMEOUT = 150_000;

describe('the served document passes the linters', () => {
  it(
    'Spectral spectral:oas: 0 errors, 0 warnings',
    async () => {
      const findings = await spectralFindings(text);
      if (findings.length) console.error(findings.join('\n'));
      expect(findings.filter((f) => /^spectral (error|warn) /.test(f))).toEqual([]);
      // Not vacuous: an operation without a description or with an undeclared tag is reported.
      const broken = structuredClone(doc);
      const list = operationOf(broken, '/customers', 'get');
      delete list.description;
      list.tags = ['Nowhere'];
      const codes = (await spectralFindings(JSON.stringify(broken))).map((f) => f.split(' ')[2]);
      expect(codes).toEqual(expect.arrayContaining(['operation-description', 'operation-tag-defined']));
    },
    LINT_TIMEOUT,
  );

  it(
    'Redocly recommended: 0 errors, 0 warnings, with only no-server-example.com turned off',
    async () => {
      const problems = await redoclyProblems(text, REDOCLY_RULES_OFF);
      if (problems.length) console.error(problems.join('\n'));
      expect(problems.filter((p) => ['error', 'warn'].includes(severityAndRule(p)[0]))).toEqual([]);
      // Not vacuous: the legacy Error schema unreferenced, or a license-less info, is reported.
      const broken = structuredClone(doc);
      delete broken.components.schemas.Problem?.not;
      delete broken.info.license;
      const rules = (await redoclyProblems(JSON.stringify(broken), REDOCLY_RULES_OFF)).map((p) => severityAndRule(p)[1]);
      expect(rules).toEqual(expect.arrayContaining(['no-unused-components', 'info-license']));
    },
    LINT_TIMEOUT,
  );

  it(
    'the exception is exactly that rule: the document fetched as localhost finds only the localhost servers',
    async () => {
      const { port } = new URL(svc.url);
      const local = await fetchAs(`localhost:${port}`, '/api/v1/openapi.json');
      expect((JSON.parse(local) as OpenApiDocument).servers).toEqual([{ url: `http://localhost:${port}/api/v1` }]);
      expect(await redoclyProblems(local, REDOCLY_RULES_OFF)).toEqual([]);
      const withRule = await redoclyProblems(local, {});
      expect(withRule.length).toBeGreaterThan(0);
      expect(new Set(withRule.map((p) => severityAndRule(p)[1]))).toEqual(new Set(['no-server-example.com']));
    },
    LINT_TIMEOUT,
  );
});

describe('for people and generators', () => {
  it('every integer, in inputs, outputs, parameters and headers, has realistic bounds', () => {
    const faults: string[] = [];
    let integers = 0;
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`));
      if (!node || typeof node !== 'object') return;
      const o = node as { type?: unknown; minimum?: unknown; maximum?: unknown };
      const isInteger = o.type === 'integer' || (Array.isArray(o.type) && o.type.includes('integer'));
      if (isInteger) {
        integers++;
        if (typeof o.minimum !== 'number' || typeof o.maximum !== 'number') faults.push(`${at}: no minimum or maximum`);
        else if (Math.max(Math.abs(o.minimum), Math.abs(o.maximum)) >= Number.MAX_SAFE_INTEGER) faults.push(`${at}: ${o.minimum}..${o.maximum}`);
      }
      for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
    };
    walk(doc, '#');
    expect(faults).toEqual([]);
    expect(integers).toBeGreaterThan(20);
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    // The bounds say what is true.
    const schemas = doc.components.schemas;
    expect(schemas.Voucher?.properties?.file_size).toMatchObject({ minimum: 1, maximum: 10 * 1024 * 1024 });
    expect(schemas.WebhookDelivery?.properties?.attempts).toMatchObject({ minimum: 0, maximum: 8 });
    expect(schemas.Problem?.properties?.status).toMatchObject({ minimum: 400, maximum: 503 });
    expect(doc.components.headers['X-RateLimit-Limit']?.schema).toMatchObject({ minimum: 100, maximum: 100 });
    const tokenLimited = operationOf(doc, '/oauth/token', 'post').responses['429']?.headers?.['X-RateLimit-Limit'];
    expect(tokenLimited?.schema).toMatchObject({ minimum: 10, maximum: 10 });
  });

  it('tags: one catalogue with a description per tag, in which every operation finds its tag', () => {
    const declared = doc.tags.map((t) => t.name);
    expect(new Set(declared).size).toBe(declared.length);
    for (const t of doc.tags) expect(t.description?.length, t.name).toBeGreaterThan(20);
    const used = new Set(operationsOf(doc).flatMap(({ op }) => op.tags ?? []));
    expect([...used].sort()).toEqual([...declared].sort());
  });

  it('info names a contact and a license', () => {
    expect(doc.info.contact).toMatchObject({ name: expect.any(String), email: expect.stringMatching(/@/) });
    expect(doc.info.license).toMatchObject({ name: expect.any(String), identifier: expect.any(String) });
  });
});

describe('the public documents declare only the 4xx they answer', () => {
  /** What makes the server answer each 4xx before any route: the request is refused by Node's HTTP parser. */
  const raw = (path: string, headerLine: string) =>
    new Promise<string>((resolve, reject) => {
      const { port } = new URL(svc.url);
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n${headerLine}\r\n\r\n`));
      let out = '';
      socket.on('data', (d) => (out += d.toString()));
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
    });
  const TRIGGERS: Record<string, (path: string) => Promise<string>> = {
    // A NUL byte in a header value is not HTTP.
    '400': (path) => raw(path, 'X-Note: a\u0000b'),
    // Headers over 16 KB.
    '431': (path) => raw(path, `X-Note: ${'x'.repeat(20_000)}`),
  };

  for (const path of ['/openapi.json', '/']) {
    it(`GET ${path}`, async () => {
      const op = operationOf(doc, path, 'get');
      const declared = Object.keys(op.responses).filter((s) => s.startsWith('4'));
      expect(declared.length).toBeGreaterThan(0);
      for (const status of declared) {
        const trigger = TRIGGERS[status];
        expect(trigger, `a way to make GET ${path} answer ${status}`).toBeDefined();
        const answer = await trigger!(`/api/v1${path}`);
        expect(answer, status).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
        expect(answer, status).toMatch(/content-type: application\/problem\+json/i);
        expect(op.responses[status]?.content?.['application/problem+json']?.schema).toEqual({ $ref: '#/components/schemas/Problem' });
      }
    });
  }
});
