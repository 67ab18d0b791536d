// Property-based fuzzing driven by the served OpenAPI document: for every operation, requests with
// path, query and body values drawn from the documented shapes and from hostile ones (wrong types,
// boundaries, huge and tiny numbers, NUL and odd Unicode, impossible dates, deep nesting, broken JSON).
// Whatever is sent, the answer is never a 5xx, and every error is an RFC 9457 problem.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { forgetRateLimits, idem, ok, useCompany, type Problem } from './helpers.ts';
import { operationsOf, parametersOf, servedDocument, type OpenApiDocument, type OpenApiOperation, type OpenApiSchema } from './openapi-document.ts';

const t = useCompany({ name: 'Fuzz ApS' });
let doc: OpenApiDocument;
let test: string;
let ids: string[] = [];

beforeAll(async () => {
  test = (await t.company.key(undefined, 'test')).key;
  doc = await servedDocument(t.svc.url);
  // Real ids, so that some generated requests reach past the "not found" of an unknown id.
  const customer = (await ok(t.api.POST('/customers', { params: idem(), body: { name: 'Fuzz kunde' } }))).data;
  const product = (await ok(t.api.POST('/products', { params: idem(), body: { name: 'Fuzz vare', unit_price: 10 } }))).data;
  const posted = (
    await ok(
      t.api.POST('/transactions', {
        params: idem(),
        body: {
          date: '2026-03-02',
          lines: [
            { account_number: '6470', debit: 5 },
            { account_number: '1010', credit: 5 },
          ],
        },
      }),
    )
  ).data;
  const accounts = (await ok(t.api.GET('/accounts', { params: { query: { per_page: 1 } } }))).data;
  ids = [customer.id, product.id, posted.id, ...accounts.map((a) => a.id)];
  expect(ids).toHaveLength(4);
});

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'a\udc00b',
  '\uffff',
  '🍞'.repeat(50),
  'x'.repeat(5000),
  'ÆØÅ æøå',
  '<script>',
  "'; DROP TABLE customers; --",
  '%00',
  '0',
  '-1',
  '1e309',
  '-0',
  'NaN',
  'Infinity',
  'null',
  'true',
  'false',
  '[]',
  '{}',
  '0000-01-01',
  '0000-00-00',
  '2026-02-30',
  '2026-13-01',
  '0099-12-31',
  '0999-12-31',
  '1899-12-31',
  '1900-01-01',
  '9998-12-31',
  '9999-12-31',
  '10000-01-01',
  '2026-1-1',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '999999999999999.99',
  '1000000000000000',
  '0.001',
  '12345678',
  '1'.repeat(400),
];
const HOSTILE_NUMBERS = [0, -0, 1, -1, 0.5, 0.001, 0.005, 1e-320, 99.999, 2 ** 31, 2 ** 53 + 2, 1e15, 999999999999999.9, 1e308, -1e308, 123456789.123];

const hostileString = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }));
const hostileNumber = fc.oneof(fc.constantFrom(...HOSTILE_NUMBERS), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer());
const hostileScalar = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));
const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, hostileScalar, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(hostileString, tie('value'), { maxKeys: 3 })),
})).value;

/** The schema itself, or the component schema its `$ref` names. */
const resolve = (schema: OpenApiSchema | undefined): OpenApiSchema =>
  (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop() ?? ''] : schema) ?? {};

/** A value of the schema's shape, or (one time in three, at every level) something hostile. */
function valueFor(schema: OpenApiSchema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  const variants = s.anyOf ?? s.oneOf;
  let shaped: fc.Arbitrary<unknown>;
  if (variants) shaped = fc.oneof(...variants.map((v) => valueFor(v, depth + 1)));
  else if (s.enum) shaped = fc.constantFrom(...s.enum);
  else if (s.type === 'object' || s.properties) shaped = objectFor(s, depth);
  else if (s.type === 'array') shaped = fc.array(valueFor(s.items ?? {}, depth + 1), { maxLength: depth > 2 ? 1 : 4 });
  else if (s.type === 'number' || s.type === 'integer') shaped = hostileNumber;
  else if (s.type === 'boolean') shaped = fc.boolean();
  else if (s.format === 'date')
    shaped = fc.oneof(
      fc.constantFrom('2026-03-02', '2026-02-30', '0000-01-01', '9998-12-31', '1900-01-01'),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
    );
  else if (s.format === 'uuid' || /uuid/i.test(s.pattern ?? '')) shaped = fc.oneof(fc.constantFrom(...ids), fc.uuid());
  else shaped = hostileString;
  return depth > 4 ? shaped : fc.oneof({ weight: 2, arbitrary: shaped }, { weight: 1, arbitrary: hostileValue });
}

function objectFor(s: OpenApiSchema, depth: number): fc.Arbitrary<unknown> {
  const props = Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, valueFor(v, depth + 1)]));
  const required = s.required ?? [];
  return fc
    .tuple(fc.record(props, { requiredKeys: required.filter((k) => k in props) }), fc.dictionary(hostileString, hostileScalar, { maxKeys: 1 }))
    .map(([known, extra]) => ({ ...extra, ...known }));
}

/** Request bodies as text: JSON of the shape, or text no JSON encoder would write. */
function bodyText(schema: OpenApiSchema | undefined): fc.Arbitrary<string | undefined> {
  const json = (schema ? valueFor(schema) : hostileValue).map((v) => JSON.stringify(v) ?? 'null');
  const weird = fc.constantFrom(
    `{"name":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    '{"name":"\\ud800"}',
    '{"name":"a\\u0000b"}',
    `{"amount":1${'0'.repeat(400)}}`,
    '{"unit_price":999999999999999.99,"name":"x"}',
    '{"date":"2026-02-30","lines":[]}',
    '{',
    '',
    '[]',
    '"text"',
    'null',
  );
  return fc.oneof({ weight: 5, arbitrary: json }, { weight: 2, arbitrary: weird }, { weight: 1, arbitrary: fc.constant(undefined) });
}

function requestFor(method: string, op: OpenApiOperation) {
  const params = parametersOf(doc, op);
  const pathValue = fc.oneof(fc.constantFrom(...ids), fc.uuid(), hostileString);
  const query = fc.array(
    fc.oneof(
      ...params
        .filter((p) => p.in === 'query')
        .map((p) =>
          fc.tuple(
            fc.constant(p.name),
            fc.oneof(
              valueFor(p.schema ?? {}).map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))),
              hostileString,
            ),
          ),
        ),
      fc.tuple(hostileString, hostileString),
    ),
    { maxLength: 4 },
  );
  const content = op.requestBody?.content['application/json']?.schema;
  return fc.record({
    segments: fc.array(pathValue, { minLength: 3, maxLength: 3 }),
    query,
    body: ['post', 'put', 'patch', 'delete'].includes(method) ? bodyText(content) : fc.constant(undefined),
    idempotencyKey: fc.oneof(fc.uuid(), hostileString, fc.constant(undefined)),
    contentType: fc.constantFrom('application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded'),
  });
}

/** A path segment; a lone surrogate goes as the bytes of one (invalid UTF-8), which no encoder writes. */
const encodeSegment = (v: string) => (v.isWellFormed() ? encodeURIComponent(v) : `%ED%A0%80${encodeURIComponent(v.toWellFormed())}`);
const safeHeader = (v: string) => v.replace(/[^\x20-\x7e]/g, '');

/**
 * Requests per operation: FUZZ_RUNS when set; else 100 in CI (`CI` set, as `.ci/run` runs) and
 * 50 on a developer's machine, where the suite is run between changes.
 */
const RUNS = Number(process.env.FUZZ_RUNS) || (process.env.CI ? 100 : 50);

describe('fuzzing every operation of the OpenAPI document', () => {
  it('never answers 5xx, and every error is problem+json', async () => {
    const operations = operationsOf(doc)
      .filter(({ method }) => ['get', 'post', 'put', 'delete', 'patch'].includes(method))
      // A path with a server of its own (the OAuth endpoints under {app_url}/api) is sent there.
      .map(({ path, method, op, item }) => ({ path, method, op, base: item.servers?.[0]?.url ?? `${t.svc.url}/api/v1` }));
    expect(operations.filter((o) => o.base.endsWith('/api')).map((o) => o.path)).toEqual(['/oauth/token', '/oauth/revoke']);
    expect(operations.length).toBeGreaterThan(15);
    const failures: string[] = [];
    let sent = 0;
    let sentOauth = 0;
    let sentApi = 0;
    // Four operations at a time: a request mostly waits on PostgreSQL, so one at a time left the server idle.
    const waiting = [...operations];
    const lane = async () => {
      for (let next = waiting.shift(); next; next = waiting.shift()) await fuzzOperation(next);
    };
    const fuzzOperation = async ({ path, method, op, base }: (typeof operations)[number]) => {
      // RFC 6749 endpoints answer their own error JSON ({ error, error_description }); 429 is the service's problem.
      const oauth = !base.endsWith('/api/v1');
      const key = path === '/sandbox/reset' ? test : t.key;
      await fc.assert(
        fc.asyncProperty(requestFor(method, op), async (r) => {
          // Fuzzing sends thousands of requests; the rate limit is tested elsewhere. Counted per kind, as the
          // lanes interleave: the OAuth endpoints' own limit is far lower than the API's.
          sent++;
          if (oauth ? ++sentOauth % 8 === 0 : ++sentApi % 80 === 0) await forgetRateLimits();
          let i = 0;
          const concrete = path.replace(/\{[^}]+\}/g, () => encodeSegment(r.segments[i++]!));
          const qs = new URLSearchParams(r.query as [string, string][]).toString();
          const headers: Record<string, string> = { 'X-API-Key': key };
          if (r.body !== undefined) headers['Content-Type'] = r.contentType;
          if (r.idempotencyKey !== undefined) headers['Idempotency-Key'] = safeHeader(r.idempotencyKey);
          const res = await fetch(`${base}${concrete}${qs ? `?${qs}` : ''}`, {
            method: method.toUpperCase(),
            headers,
            ...(r.body !== undefined ? { body: r.body } : {}),
          });
          const text = await res.text();
          const where = `${method.toUpperCase()} ${concrete}?${qs} ${r.body?.slice(0, 200) ?? ''} -> ${res.status} ${text.slice(0, 300)}`;
          // This server has no SKAT_* settings: filing a well-formed period answers the 503 the VAT filing
          // order asks for (skat_not_configured, naming the setting), an operator's fault, not the request's.
          const notConfigured = res.status === 503 && text.includes('"code":"skat_not_configured"');
          if (res.status >= 500 && !notConfigured) failures.push(where);
          if (oauth && res.status >= 400 && res.status !== 429) {
            const error = /^application\/json/.test(res.headers.get('content-type') ?? '') ? (JSON.parse(text) as { error?: unknown }).error : undefined;
            if (typeof error !== 'string') failures.push(`not an RFC 6749 error: ${where}`);
          } else if (res.status >= 400) {
            if (!/^application\/problem\+json/.test(res.headers.get('content-type') ?? '')) failures.push(`not problem+json: ${where}`);
            else {
              const p = JSON.parse(text) as Partial<Record<keyof Problem, unknown>>;
              if (
                typeof p.code !== 'string' ||
                p.status !== res.status ||
                typeof p.detail !== 'string' ||
                typeof p.title !== 'string' ||
                typeof p.type !== 'string'
              )
                failures.push(`bad problem: ${where}`);
            }
          }
          return true;
        }),
        { numRuns: path === '/exports/saft' ? Math.ceil(RUNS / 5) : RUNS },
      );
    };
    await Promise.all([lane(), lane(), lane(), lane()]);
    expect(failures.slice(0, 20)).toEqual([]);
    expect(sent).toBeGreaterThan(15 * RUNS);
  }, 480_000);
});
