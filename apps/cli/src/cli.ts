// The operator CLI `tlr`: parses the command line, opens the database like the server does and calls
// the internal tRPC procedures; owns the usage text, the output formats and the exit codes.
// What a command runs is imported once it is parsed: `tlr --help` and a usage error load none of it.
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import type { Caller } from '@tlr/api';
import type { Config } from '@tlr/config';
import type { Database, DatabaseServer } from '@tlr/db';
import type { BackupInfo, BackupSettings, Cluster } from '@tlr/db/backup';
import type { Books, ObjectReader, VatFrequency } from '@tlr/domain';
import { parseScopes } from '@tlr/domain/credentials/scopes';

export interface Io {
  stdout(s: string): void;
  stderr(s: string): void;
}

type Internal = Pick<Caller, 'internal' | 'oauth' | 'support'>;
type Values = Record<string, string | string[] | boolean | undefined>;

const USAGE = `usage: tlr <command> [flags] [--json]

  company create --name N --owner-email E --owner-password P [--cvr 12345674]
  company list   [--search TEXT]   (name, CVR, owner e-mail, company id or API key prefix)
  company set    --company ID [--fiscal-year-start-month 1-12] [--vat-registered true|false]
                 [--vat-period monthly|quarterly|half_yearly] [--lock-date YYYY-MM-DD|none]
                 [--name N] [--cvr 12345674] [--address-line1 T] [--address-line2 T]
                 [--postal-code T] [--city T] [--country DK] [--email E] [--phone T]
                 [--bank-reg-number 1234] [--bank-account-number 1234567890] [--iban DK50...]
                 [--peppol-id 0184:12345674] [--fi-creditor-number 81234567]
                 ("" clears one; --cvr is checked by the CVR modulus 11 rule, --peppol-id by its scheme's,
                 --fi-creditor-number as 8 digits starting with 8)
  key create     --company ID --name N --scopes a,b|all --mode live|test [--expires-at 2027-01-01T00:00:00Z]
  key revoke     --id ID
  key list       --company ID
  oauth-client create --name N --redirect-uri URL [--redirect-uri URL ...] --scopes a,b|all
                 [--contact EMAIL]   (prints client_id and client_secret; the secret only now)
  oauth-client list
  oauth-client revoke --client-id ID   (ends every grant and token of the client)
  staff create   --email E --password P --role support|admin   (an account of the admin app)
  exchange-rates load --company ID FILE
                 (Danmarks Nationalbank's reference rates, XML, daily, 5-day or history file;
                 stored per 1 unit in the company's exchange-rate table, replacing its rates of those dates)

  backup setup   writes pgBackRest's config, creates the stanza, turns on WAL archiving (docs/operations.md, Backups)
  backup run     [--full|--incr]   (a full or incremental backup into every repository; default incremental)
  backup list    the backups in the repositories
  backup verify  checks WAL archiving reaches every repository and reads every backup and WAL file back
  backup restore --to 2026-11-27T12:00:00Z --target DIR
                 (the database as it was at that time, into a new data folder; never over the live one)

  --json   print exactly one JSON object on stdout
  --help   show this text

The database is DATABASE_URL, or the embedded PostgreSQL under DATA_DIR when it is unset.
Exit codes: 0 ok, 1 failed, 2 usage error.
`;

class UsageError extends Error {}

const str = { type: 'string' } as const;
const global = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } satisfies ParseArgsOptionsConfig;

interface Command {
  options: ParseArgsOptionsConfig;
  required: string[];
  /** The arguments after the command words, by name (`FILE`); none by default. */
  args?: string[];
  /** Checks the flags before any database work (throwing UsageError) and returns the call to make. */
  prepare(v: Values, args: string[]): (api: Internal) => Promise<{ json: object; text: string }>;
}

const s = (v: Values, name: string) => v[name] as string;

interface Out {
  json: object;
  text: string;
}

/**
 * `tlr backup ...`: driven by the backup module (@tlr/db/backup), not by procedures. `list` and `restore`
 * open no database: the database may be what was lost.
 */
interface BackupCommand {
  options: ParseArgsOptionsConfig;
  required: string[];
  needsDatabase: boolean;
  /** Refused with the missing step unless backups are set up (all but `backup setup`). */
  needsSetup: boolean;
  /** `db`: the service's database, migrated (only when needsDatabase). */
  prepare(v: Values): (settings: BackupSettings, cluster: Cluster, config: Config, db?: Database) => Promise<Out>;
}

const size = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const describeBackup = (b: BackupInfo) =>
  `${b.label}  ${b.type.padEnd(4)}  ${b.started_at} .. ${b.finished_at}  database ${size(b.database_size)}, in the repository ${size(b.repo_size)}`;

const backupCommands: Record<string, BackupCommand> = {
  'backup setup': {
    options: {},
    required: [],
    needsDatabase: true,
    needsSetup: false,
    prepare: () => async (settings, cluster) => {
      const { setupBackups } = await import('@tlr/db/backup');
      const r = await setupBackups(settings, cluster);
      const restart = r.restartNeeded ? '\nWAL archiving starts when PostgreSQL starts again: restart tlr (npm start) now.' : '';
      return { json: r, text: `pgBackRest config: ${r.config}\narchive_command: ${r.archiveCommand}${restart}` };
    },
  },
  'backup run': {
    options: { full: { type: 'boolean' }, incr: { type: 'boolean' } },
    required: [],
    needsDatabase: true,
    needsSetup: true,
    prepare(v) {
      if (v.full && v.incr) throw new UsageError('give --full or --incr, not both');
      return async (settings, cluster, _config, db) => {
        const [{ runBackup }, { recordedBackupRun }] = await Promise.all([import('@tlr/db/backup'), import('@tlr/domain')]);
        const type = v.full ? 'full' : 'incr';
        // Recorded like the scheduler's runs (the books for the restore drill, the health page's last run).
        const b = await recordedBackupRun(db!.prisma, db!.pool, type, () => runBackup(settings, cluster, type));
        return { json: b, text: `backup ${describeBackup(b)}` };
      };
    },
  },
  'backup list': {
    options: {},
    required: [],
    needsDatabase: false,
    needsSetup: true,
    prepare: () => async (settings) => {
      const { listBackups } = await import('@tlr/db/backup');
      const backups = await listBackups(settings);
      return { json: { backups }, text: backups.length ? backups.map(describeBackup).join('\n') : 'no backups' };
    },
  },
  'backup verify': {
    options: {},
    required: [],
    needsDatabase: true,
    needsSetup: true,
    prepare: () => async (settings, cluster, config, db) => {
      const [{ BackupError, checkBackups }, { createObjectStore }] = await Promise.all([import('@tlr/db/backup'), import('@tlr/storage')]);
      await checkBackups(settings, cluster);
      const store = createObjectStore(config);
      const drill = await restoreDrill(settings, cluster, db!, store).finally(() => store.close());
      const text = [
        'WAL archiving reaches every repository; every backup and WAL file reads back with its checksum',
        `restore drill of backup ${drill.label}: ${drill.problems.length ? `FAILED\n  ${drill.problems.join('\n  ')}` : 'the trial balances recorded at backup time, gapless numbers, every voucher matches its SHA-256'}`,
      ].join('\n');
      if (drill.problems.length) throw new BackupError(text);
      return { json: { ok: true, drill }, text };
    },
  },
  'backup restore': {
    options: { to: str, target: str },
    required: ['to', 'target'],
    needsDatabase: false,
    needsSetup: true,
    prepare(v) {
      const to = parseTimestamp(s(v, 'to'), '--to');
      const target = s(v, 'target');
      if (/^postgres(ql)?:\/\//.test(target)) {
        throw new UsageError(
          '--target: pgBackRest restores a data folder, not into a running server; restore into a folder on the database host and start PostgreSQL on it (docs/operations.md, Backups)',
        );
      }
      return async (settings, cluster) => {
        const { restoreBackup } = await import('@tlr/db/backup');
        await restoreBackup(settings, cluster.dataDir, to, target);
        return {
          json: { target, to: to.toISOString() },
          text: `restored the database as it was at ${to.toISOString()} into ${target}; start PostgreSQL on it (DATA_DIR with the folder as pg) to replay the WAL up to that time`,
        };
      };
    },
  },
};

/** `tlr company set` flags of the seller profile; each is the settings field with - for _. */
const PROFILE_FLAGS = [
  'name',
  'cvr',
  'address-line1',
  'address-line2',
  'postal-code',
  'city',
  'country',
  'email',
  'phone',
  'bank-reg-number',
  'bank-account-number',
  'iban',
  'peppol-id',
  'fi-creditor-number',
] as const;
const flags = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, str]));

const commands: Record<string, Command> = {
  'company create': {
    options: { name: str, 'owner-email': str, 'owner-password': str, cvr: str },
    required: ['name', 'owner-email', 'owner-password'],
    prepare: (v) => async (api) => {
      const cvr = v.cvr as string | undefined;
      const r = await api.internal.createCompany({
        name: s(v, 'name'),
        ownerEmail: s(v, 'owner-email'),
        ownerPassword: s(v, 'owner-password'),
        ...(cvr !== undefined ? { cvr } : {}),
      });
      return { json: r, text: `created company ${r.company_id} (owner user ${r.user_id})` };
    },
  },
  'company list': {
    options: { search: str },
    required: [],
    prepare: (v) => async (api) => {
      const companies = await api.internal.listCompanies(v.search === undefined ? {} : { search: s(v, 'search') });
      const lines = companies.map(
        (c) => `${c.id}  ${(c.cvr ?? '').padEnd(8)}  ${c.owner_email}  ${c.name}${c.sandbox_id ? `  (sandbox ${c.sandbox_id})` : ''}`,
      );
      return { json: { companies }, text: lines.length ? lines.join('\n') : 'no companies' };
    },
  },
  'company set': {
    options: { company: str, 'fiscal-year-start-month': str, 'vat-registered': str, 'vat-period': str, 'lock-date': str, ...flags(PROFILE_FLAGS) },
    required: ['company'],
    prepare(v) {
      const month = v['fiscal-year-start-month'] === undefined ? undefined : Number(s(v, 'fiscal-year-start-month'));
      if (month !== undefined && !(Number.isInteger(month) && month >= 1 && month <= 12))
        throw new UsageError('--fiscal-year-start-month must be a month number from 1 to 12');
      const registered = v['vat-registered'];
      if (registered !== undefined && registered !== 'true' && registered !== 'false') throw new UsageError('--vat-registered must be true or false');
      const lock = v['lock-date'] === undefined ? undefined : s(v, 'lock-date') === 'none' ? null : s(v, 'lock-date');
      // The profile's rules (CVR and IBAN check digits, registration number, e-mail) are the procedure's, as for PUT /settings/company.
      const profile = Object.fromEntries(PROFILE_FLAGS.filter((f) => v[f] !== undefined).map((f) => [f.replaceAll('-', '_'), s(v, f)]));
      if (month === undefined && registered === undefined && v['vat-period'] === undefined && lock === undefined && Object.keys(profile).length === 0) {
        throw new UsageError(
          `company set needs at least one of --fiscal-year-start-month, --vat-registered, --vat-period, --lock-date, ${PROFILE_FLAGS.map((f) => `--${f}`).join(', ')}`,
        );
      }
      return async (api) => {
        const settings = await api.internal.updateCompany({
          companyId: s(v, 'company'),
          ...(month !== undefined ? { fiscal_year_start_month: month } : {}),
          ...(registered !== undefined ? { vat_registered: registered === 'true' } : {}),
          // Checked by the procedure (a 400 naming the allowed values), like every other flag.
          ...(v['vat-period'] !== undefined ? { vat_period_frequency: s(v, 'vat-period') as VatFrequency } : {}),
          ...(lock !== undefined ? { lock_date: lock } : {}),
          ...profile,
        });
        const years = settings.fiscal_years.map((y) => `${y.start_date}..${y.end_date} (${y.vat_periods.length} VAT periods)`).join(', ');
        const c = settings.company;
        const address = [c.address_line1, c.address_line2, `${c.postal_code} ${c.city}`.trim(), c.country].filter(Boolean).join(', ');
        const bank = [c.bank_reg_number && `reg. ${c.bank_reg_number} konto ${c.bank_account_number}`, c.iban && `IBAN ${c.iban}`].filter(Boolean).join(', ');
        return {
          json: settings,
          text: [
            `company ${settings.company_id}: VAT ${settings.vat_registered ? 'registered' : 'not registered'}, ${settings.vat_period_frequency} VAT periods, lock date ${settings.lock_date ?? 'none'}; fiscal years ${years}`,
            `seller: ${c.name}${c.cvr ? ` (CVR ${c.cvr})` : ''}${address ? `, ${address}` : ''}${bank ? `; ${bank}` : '; no bank details'}${c.peppol_id ? `; Peppol id ${c.peppol_id}` : ''}${c.fi_creditor_number ? `; FI creditor number ${c.fi_creditor_number}` : ''}`,
          ].join('\n'),
        };
      };
    },
  },
  'key create': {
    options: { company: str, name: str, scopes: str, mode: str, 'expires-at': str },
    required: ['company', 'name', 'scopes', 'mode'],
    prepare(v) {
      const scopes = scopesFlag(s(v, 'scopes'));
      const mode = s(v, 'mode');
      if (mode !== 'live' && mode !== 'test') throw new UsageError(`--mode must be live or test, got "${mode}"`);
      const expiresAt = v['expires-at'] === undefined ? undefined : parseTimestamp(s(v, 'expires-at'));
      return async (api) => {
        const { id, key, ...view } = await api.internal.createApiKey({
          companyId: s(v, 'company'),
          name: s(v, 'name'),
          scopes,
          mode,
          ...(expiresAt ? { expiresAt } : {}),
        });
        const text = [
          `created ${view.mode} API key ${id} "${view.name}" for company ${view.company_id}${view.mode === 'test' ? ' (the sandbox)' : ''}`,
          `scopes: ${view.scopes.join(', ')}`,
          `expires: ${view.expires_at ?? 'never'}`,
          `key (shown only now, store it safely): ${key}`,
        ].join('\n');
        return { json: { id, key, ...view }, text };
      };
    },
  },
  'key revoke': {
    options: { id: str },
    required: ['id'],
    prepare: (v) => async (api) => {
      const view = await api.internal.revokeApiKey({ id: s(v, 'id') });
      return { json: view, text: `revoked API key ${view.id} "${view.name}" at ${view.revoked_at}` };
    },
  },
  'key list': {
    options: { company: str },
    required: ['company'],
    prepare: (v) => async (api) => {
      const keys = await api.internal.listApiKeys({ companyId: s(v, 'company') });
      const lines = keys.map((k) => {
        const state = k.revoked_at ? `revoked ${k.revoked_at}` : k.expires_at ? `expires ${k.expires_at}` : 'active';
        return `${k.id}  ${k.mode.padEnd(4)}  ${k.key_prefix}  ${state}  ${k.scopes.length} scope(s)  ${k.name}`;
      });
      return { json: { keys }, text: lines.length ? lines.join('\n') : 'no API keys' };
    },
  },
  'oauth-client create': {
    options: { name: str, 'redirect-uri': { type: 'string', multiple: true }, scopes: str, contact: str },
    required: ['name', 'redirect-uri', 'scopes'],
    prepare(v) {
      const scopes = scopesFlag(s(v, 'scopes'));
      return async (api) => {
        const { client_secret, ...client } = await api.oauth.createClient({
          name: s(v, 'name'),
          redirectUris: v['redirect-uri'] as string[],
          scopes,
          ...(v.contact !== undefined ? { contact: s(v, 'contact') } : {}),
        });
        const text = [
          `created OAuth client "${client.name}"`,
          `client_id: ${client.client_id}`,
          `redirect URIs: ${client.redirect_uris.join(' ')}`,
          `scopes: ${client.scopes.join(' ')}`,
          `client_secret (shown only now, give it to the partner safely): ${client_secret}`,
        ].join('\n');
        return { json: { ...client, client_secret }, text };
      };
    },
  },
  'staff create': {
    options: { email: str, password: str, role: str },
    required: ['email', 'password', 'role'],
    prepare(v) {
      const role = s(v, 'role');
      if (role !== 'support' && role !== 'admin') throw new UsageError(`--role must be support or admin, got "${role}"`);
      return async (api) => {
        const staff = await api.support.createStaff({ email: s(v, 'email'), password: s(v, 'password'), role });
        return { json: staff, text: `created ${staff.role} staff user ${staff.id} ${staff.email}; they sign in at /admin` };
      };
    },
  },
  'exchange-rates load': {
    options: { company: str },
    required: ['company'],
    args: ['FILE'],
    prepare:
      (v, [file]) =>
      async (api) => {
        const loaded = await api.internal.loadExchangeRates({ companyId: s(v, 'company'), xml: await readFile(file!, 'utf8') });
        const { dates } = loaded;
        // A day file lists its date; a history file of years, its range.
        const which =
          dates.length <= 10 ? dates.map((d) => `${d.date} (${d.rates})`).join(', ') : `${dates.length} dates from ${dates[0]!.date} to ${dates.at(-1)!.date}`;
        const skipped = loaded.skipped.map((x) => `${x.code} (${x.reason})`).join(', ');
        return {
          json: loaded,
          text: `loaded ${loaded.rates} exchange rate(s) into company ${loaded.company_id}${dates.length ? `: ${which}` : ''}${skipped ? `; skipped ${skipped}` : ''}`,
        };
      },
  },
  'oauth-client list': {
    options: {},
    required: [],
    prepare: () => async (api) => {
      const clients = await api.oauth.listClients({});
      const lines = clients.map(
        (c) => `${c.client_id}  ${c.revoked_at ? `revoked ${c.revoked_at}` : 'active'}  ${c.scopes.length} scope(s)  ${c.name}  ${c.redirect_uris.join(' ')}`,
      );
      return { json: { clients }, text: lines.length ? lines.join('\n') : 'no OAuth clients' };
    },
  },
  'oauth-client revoke': {
    options: { 'client-id': str },
    required: ['client-id'],
    prepare: (v) => async (api) => {
      const client = await api.oauth.revokeClient({ clientId: s(v, 'client-id') });
      return { json: client, text: `revoked OAuth client ${client.client_id} "${client.name}" at ${client.revoked_at}; its grants and tokens no longer work` };
    },
  },
};

function scopesFlag(text: string) {
  const parsed = parseScopes(text);
  if ('unknown' in parsed)
    throw new UsageError(
      `--scopes: unknown scope(s) ${parsed.unknown.join(', ')}; give "all" or a comma-separated list such as customers:read,customers:write`,
    );
  return parsed.scopes;
}

// Date accepts many non-ISO shapes, reads a zone-less time as local time and rolls 2027-02-30 over
// into March; an expiry must be exactly what the operator meant.
function parseTimestamp(text: string, flagName = '--expires-at'): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i.exec(text);
  const d = new Date(text);
  const day = m && new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (!m || !day || Number.isNaN(d.getTime()) || day.getUTCMonth() !== Number(m[2]) - 1 || day.getUTCDate() !== Number(m[3])) {
    throw new UsageError(`${flagName} must be an ISO 8601 timestamp with a time zone, e.g. 2027-01-01T00:00:00Z, got "${text}"`);
  }
  return d;
}

// Error fields come as procedure input names or domain field names; the operator knows only the flags.
const flagOf: Record<string, string> = {
  companyId: '--company',
  company: '--company',
  ownerEmail: '--owner-email',
  owner_email: '--owner-email',
  ownerPassword: '--owner-password',
  owner_password: '--owner-password',
  expiresAt: '--expires-at',
  expires_at: '--expires-at',
  name: '--name',
  cvr: '--cvr',
  peppol_id: '--peppol-id',
  fi_creditor_number: '--fi-creditor-number',
  scopes: '--scopes',
  mode: '--mode',
  id: '--id',
  clientId: '--client-id',
  redirectUris: '--redirect-uri',
  redirect_uris: '--redirect-uri',
  contact: '--contact',
  email: '--email',
  password: '--password',
  role: '--role',
};
const flag = (field: string) => flagOf[field] ?? field;

async function failureMessage(e: unknown): Promise<string> {
  const [{ StartupError }, { BackupError }, { toProblem }] = await Promise.all([import('@tlr/db/server'), import('@tlr/db/backup'), import('@tlr/api')]);
  if (e instanceof StartupError || e instanceof BackupError) return e.message; // says what to change already
  const p = toProblem(e);
  if (p.errors?.length) return p.errors.map((x) => `${flag(x.field)}: ${x.message}`).join('; ');
  if (p.code !== 'internal_error') return p.field ? `${flag(p.field)}: ${p.detail}` : p.detail;
  // Not the operator's mistake (database down, a bug): the original message is what helps.
  const cause = e instanceof Error && e.cause !== undefined ? e.cause : e;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * The restore drill: the last succeeded run's backup restored into a fresh folder,
 * started on a free port, and its books checked against those recorded at backup time; then removed.
 */
async function restoreDrill(settings: BackupSettings, cluster: Cluster, db: Database, store: ObjectReader): Promise<{ label: string; problems: string[] }> {
  const [{ BackupError, restoreBackup }, { startEmbeddedPostgres }, { createDatabase, freePort, withDatabase }, { checkBooks }] = await Promise.all([
    import('@tlr/db/backup'),
    import('@tlr/db/embedded'),
    import('@tlr/db'),
    import('@tlr/domain'),
  ]);
  const [run] = await db.prisma.$queryRaw<{ label: string; books: Books }[]>`
    SELECT label, books FROM backup_runs WHERE status = 'succeeded' ORDER BY started_at DESC LIMIT 1`;
  if (!run) throw new BackupError('no succeeded backup run to restore for the drill: run `tlr backup run` first');
  const target = join(settings.dir, `drill-${Date.now()}`);
  try {
    await restoreBackup(settings, cluster.dataDir, { label: run.label }, target);
    const pg = await startEmbeddedPostgres(target, await freePort());
    const restored = createDatabase(withDatabase(pg.url, new URL(cluster.url).pathname.slice(1) || 'tlr'), 2);
    try {
      return { label: run.label, problems: await checkBooks(restored.pool, run.books, store) };
    } finally {
      await restored.close();
      await pg.stop();
    }
  } finally {
    rmSync(target, { recursive: true, force: true });
  }
}

/**
 * The cluster a backup command works on; with `needsSetup`, its stanza made for the current config (as the
 * server does at start) and otherwise a BackupError naming the missing step, never pgBackRest's own.
 */
async function backupClusterFor(config: Config, server: DatabaseServer, db: Database, needsSetup: boolean): Promise<Cluster> {
  const { backupCluster, backupSettings, ensureStanza, pgbackrestInstalled, requireBackupSetup } = await import('@tlr/db/backup');
  const settings = backupSettings(config);
  const cluster = backupCluster(config, server);
  if (cluster && !needsSetup) return cluster;
  if (cluster && pgbackrestInstalled()) await ensureStanza(settings, cluster);
  const archiveMode = (await db.pool.query<{ mode: string }>(`SELECT current_setting('archive_mode') AS mode`)).rows[0]?.mode;
  requireBackupSetup(settings, cluster, { embedded: server.embedded, archiveMode });
  return cluster!; // set up only with a cluster
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

export async function runCli(argv: string[], io: Io, env: Record<string, string | undefined> = process.env): Promise<number> {
  const fail = (code: 1 | 2, message: string, hint = code === 2) => {
    io.stderr(`tlr: ${oneLine(message)}\n`);
    if (hint) io.stderr(`run "tlr --help" for usage\n`);
    return code;
  };

  let values: Values;
  let call: ReturnType<Command['prepare']> | undefined;
  let backup: (Pick<BackupCommand, 'needsDatabase' | 'needsSetup'> & { run: ReturnType<BackupCommand['prepare']> }) | undefined;
  try {
    // A first, lenient pass only finds the command words, so that the second pass can be strict with
    // exactly that command's flags.
    const all = Object.assign({}, global, ...[...Object.values(commands), ...Object.values(backupCommands)].map((c) => c.options)) as ParseArgsOptionsConfig;
    const loose = parseArgs({ args: argv, options: all, allowPositionals: true, strict: false });
    if (loose.values.help) {
      io.stdout(USAGE);
      return 0;
    }
    const name = loose.positionals.slice(0, 2).join(' ');
    if (!name) {
      io.stderr(USAGE);
      return 2;
    }
    const found = commands[name] ?? backupCommands[name];
    if (!found) return fail(2, `unknown command "${name}"`);
    const strict = parseArgs({ args: argv, options: { ...global, ...found.options }, allowPositionals: true, strict: true });
    const args = strict.positionals.slice(2);
    const names = ('args' in found && found.args) || [];
    if (args.length > names.length) return fail(2, `unexpected argument "${args[names.length]}"`);
    values = strict.values;
    const missing = [...found.required.filter((f) => values[f] === undefined).map((f) => `--${f}`), ...names.slice(args.length)];
    if (missing.length) return fail(2, `${name} needs ${missing.join(', ')}`);
    if ('needsDatabase' in found) backup = { run: found.prepare(values), needsDatabase: found.needsDatabase, needsSetup: found.needsSetup };
    else call = found.prepare(values, args);
  } catch (e) {
    // parseArgs goes on about positionals after '--', which only confuses a typo'd flag.
    const unknown = (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
    return fail(2, unknown ? (e as Error).message.replace(/\. To specify .*$/s, '') : (e as Error).message);
  }

  const { ConfigError, loadConfig } = await import('@tlr/config');
  let config;
  try {
    config = loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return fail(2, e.message, false); // a setting, not the command line
    throw e;
  }

  const verbose = config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace';
  const print = ({ json, text }: Out) => io.stdout(values.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
  let server: DatabaseServer | undefined;
  let db: Database | undefined;
  try {
    const embedded = !config.DATABASE_URL;
    if (backup && !backup.needsDatabase) {
      const { backupCluster, backupSettings, requireBackupSetup } = await import('@tlr/db/backup');
      const settings = backupSettings(config);
      const cluster = backupCluster(config, { embedded, dataDir: join(config.DATA_DIR, 'pg'), url: config.DATABASE_URL ?? '' });
      requireBackupSetup(settings, cluster, { embedded });
      print(await backup.run(settings, cluster!, config));
      return 0;
    }
    const [{ applyMigrations, createDatabase, resolveDatabaseServer }, { archivingFromStart, backupSettings }] = await Promise.all([
      import('@tlr/db'),
      import('@tlr/db/backup'),
    ]);
    server = await resolveDatabaseServer({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      embeddedPort: config.EMBEDDED_PG_PORT,
      log: (m) => verbose && io.stderr(`[embedded-postgres] ${m}\n`),
      // An embedded PostgreSQL this command starts archives as the server's does (decision 422).
      embedded: { beforeStart: archivingFromStart(backupSettings(config)) },
    });
    await applyMigrations(server.url);
    db = createDatabase(server.url, config.DB_POOL_SIZE);
    if (backup) {
      print(await backup.run(backupSettings(config), await backupClusterFor(config, server, db, backup.needsSetup), config, db));
      return 0;
    }
    const { createCaller } = await import('@tlr/api');
    (await import('@tlr/domain')).setPasswordHashCost(config.PASSWORD_HASH_COST);
    print(await call!(createCaller(db, { type: 'operator' }, { oauthAllowLocalhost: config.OAUTH_ALLOW_HTTP_LOCALHOST })));
    return 0;
  } catch (e) {
    return fail(1, await failureMessage(e));
  } finally {
    await db?.close().catch(() => {});
    if (server) {
      // A no-op when we joined a server someone else started (a running `npm start`).
      const { closeAfterCommand } = await import('@tlr/db');
      await closeAfterCommand(server, config.DATA_DIR).catch(() => {});
    }
  }
}
