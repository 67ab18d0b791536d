// What a newcomer's first malformed requests get back: a problem that says what to send, and a log
// line that says which rule refused it.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@tlr/config';
import { startService, type Service } from '../src/service.ts';
import { api, client, databaseUrl, idem, newCompany, runSettings } from './helpers.ts';

const logLines: Record<string, unknown>[] = [];
let svc: Service;
let key: string;

beforeAll(async () => {
  // The service's own logger, writing its JSON lines here instead of stdout.
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  const config = loadConfig({ ...runSettings(), DATABASE_URL: databaseUrl(), PORT: '0', HOST: '127.0.0.1', RUN_WORKER: 'false', LOG_LEVEL: 'info' });
  svc = await startService(config, pino({ level: 'info' }, sink));
  key = (await (await newCompany()).key()).key;
});
afterAll(() => svc.stop());

// Malformed on purpose: bodies the typed client would not send, through the untyped one.
const raw = (method: string, path: string, body: string | undefined, headers: Record<string, string> = {}) =>
  client(svc.url, key).call(method, path, { ...(body === undefined ? {} : { raw: body }), headers: { ...idem().header, ...headers } });

describe('request bodies', () => {
  it('415 says to send application/json and quotes the type that was sent', async () => {
    const r = await raw('POST', '/customers', 'name=x', { 'Content-Type': 'text/plain' });
    expect(r.status).toBe(415);
    expect(r.body).toMatchObject({ code: 'unsupported_media_type', field: 'Content-Type' });
    expect(r.body.detail).toBe('Send the request body as JSON with Content-Type: application/json (it was "text/plain").');
  });

  it('an array, a string or null as the body is "the body must be a JSON object"', async () => {
    for (const [body, what] of [
      ['[{"name":"x"}]', 'an array'],
      ['"x"', 'a string'],
      ['null', 'null'],
      ['42', 'a number'],
    ] as const) {
      const r = await raw('POST', '/customers', body, { 'Content-Type': 'application/json' });
      expect(r.status, body).toBe(400);
      expect(r.body, body).toMatchObject({ code: 'invalid_request', field: 'body', detail: `The request body must be a JSON object, not ${what}.` });
    }
  });

  it('an empty body where fields are required says so; where none are (sandbox reset, a reversal), it is accepted', async () => {
    const r = await raw('POST', '/customers', undefined);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'body', detail: 'The request body must be a JSON object; it is empty.' });
    const put = await raw('PUT', '/customers/00000000-0000-4000-8000-000000000000', undefined);
    // every field of an update is optional: an empty update of a missing customer is a 404, not a 400
    expect(put.status).toBe(404);
  });

  it('a missing required field "is required"; a wrong type says what it must be', async () => {
    // Malformed on purpose (no date, lines not an array, a null name): the untyped client.
    const r = await client(svc.url, key).post('/transactions', { lines: 'x' });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'date', message: 'is required' },
        { field: 'lines', message: 'must be an array' },
      ]),
    );
    const n = await client(svc.url, key).post('/customers', { name: null });
    expect(n.body.errors).toEqual([{ field: 'name', message: 'must not be null' }]);
  });
});

describe('request log', () => {
  it('a refused request logs its problem code and field; a served one logs neither', async () => {
    const bad = await api(svc.url, key).POST('/customers', { params: idem(), body: { name: 'X', cvr: '12' } });
    const good = await api(svc.url, key).GET('/customers');
    await new Promise((r) => setTimeout(r, 50));
    const lineOf = (answer: { response: Response }) =>
      logLines.find((l) => l.request_id === answer.response.headers.get('x-request-id') && l.msg === 'request');
    expect(lineOf(bad)).toMatchObject({ status: 400, code: 'invalid_request', field: 'cvr' });
    const ok = lineOf(good);
    expect(ok).toMatchObject({ status: 200 });
    expect(ok).not.toHaveProperty('code');
    const unauthorized = await api(svc.url).GET('/customers');
    await new Promise((r) => setTimeout(r, 50));
    expect(lineOf(unauthorized)).toMatchObject({ status: 401, code: 'unauthorized' });
  });
});
