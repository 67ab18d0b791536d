#!/usr/bin/env node
// Stands in for Prisma's native schema engine, which the CLI would download and this machine cannot.
// The CLI spawns it (PRISMA_SCHEMA_ENGINE_BINARY) and speaks line-delimited JSON-RPC 2.0 over stdio;
// every call is forwarded to the official engine compiled to WebAssembly (@prisma/schema-engine-wasm),
// which reaches PostgreSQL through the driver adapter in ./pg-adapter.mjs.
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import pg from 'pg';
import * as bindings from '@prisma/schema-engine-wasm/schema_engine_bg';
import { createAdapterFactory, databaseName, onServer, quoteIdent } from './pg-adapter.mjs';

const debugEnabled = process.env.PRISMA_BRIDGE_DEBUG === '1';
const debug = (...args) => debugEnabled && console.error('[schema-engine-bridge]', ...args);

// Same argv as the native binary: [--datamodels FILE]... [--datasource JSON] [cli COMMAND] [--version].
function parseArgs(argv) {
  const args = { datamodels: [], datasource: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--datamodels') args.datamodels.push(argv[++i]);
    else if (arg === '--datasource') args.datasource = JSON.parse(argv[++i]);
    else if (arg === '--enabled-preview-features' || arg === '--extension-types')
      i++; // no Wasm equivalent
    else if (arg === '--version' || arg === '-V') args.version = true;
    else if (arg === 'cli') args.cli = argv[++i];
  }
  return args;
}

// Instantiate the module by hand: importing the package's entry uses Node's experimental Wasm-ESM
// integration, which prints a warning on stderr (where the CLI looks for engine errors).
async function loadWasm() {
  const wasmUrl = new URL(import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg').replace(/\.js$/, '.wasm'));
  const { instance } = await WebAssembly.instantiate(await readFile(wasmUrl), { './schema_engine_bg.js': bindings });
  bindings.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  return bindings;
}

// The engine reports a Rust panic's message through this global before throwing `unreachable`.
let panicMessage;
globalThis.PRISMA_WASM_PANIC_REGISTRY = { set_message: (message) => (panicMessage = message) };

// The JSON-RPC error shape the CLI reads (data.message, data.error_code, data.is_panic).
function rpcError(error, errorRegistry) {
  if (panicMessage) {
    return { code: 4466, message: panicMessage, data: { is_panic: true, message: panicMessage, backtrace: null } };
  }
  // Wasm errors end with a Rust span trace ("   0: module::span ... at file.rs:N"): noise to a user,
  // except for the name of the migration that failed, which the native engine states.
  // Errors thrown in the adapter's JavaScript reach us as "External error id#N": put their text back.
  const [text, trace = ''] = String(error?.message ?? error).split(/\n(?= {2,}0: \S+::)/);
  const migration = /migration_name="([^"]+)"/.exec(trace)?.[1];
  const message = `${text}${migration && !text.includes(migration) ? `\nMigration name: ${migration}` : ''}`.replace(
    /External error id#(\d+)/g,
    (ref, id) => errorRegistry?.consumeError(Number(id))?.error?.message ?? ref,
  );
  const data = { is_panic: false, message, meta: error?.meta ?? null };
  if (typeof error?.code === 'string') data.error_code = error.code;
  return { code: 4466, message: 'An error happened. Check the data field for details.', data };
}

// `prisma migrate dev|reset|deploy` run `cli create-database|drop-database|can-connect-to-database`
// as one-off processes and read failures from stderr as JSON log lines (skipping the first line).
async function runCliCommand(command, url) {
  const name = databaseName(url);
  const quoted = quoteIdent(name);
  try {
    if (command === 'can-connect-to-database') {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.end();
    } else if (command === 'create-database') {
      await onServer(url, `CREATE DATABASE ${quoted}`);
    } else if (command === 'drop-database') {
      await onServer(url, `DROP DATABASE ${quoted}`);
    } else {
      throw new Error(`Unknown cli command: ${command}`);
    }
    process.stdout.write(`${JSON.stringify({ message: `${command}: ok`, database: name })}\n`);
    return 0;
  } catch (error) {
    const { hostname: host, port } = new URL(url);
    const [errorCode, message] =
      error.code === '3D000'
        ? ['P1003', `Database \`${name}\` does not exist on the database server at \`${host}:${port || 5432}\`.`]
        : error.code === '42P04'
          ? ['P1009', `Database \`${name}\` already exists on the database server at \`${host}:${port || 5432}\``]
          : error.code === 'ECONNREFUSED' || error.code === 'ENOTFOUND'
            ? ['P1001', `Can't reach database server at \`${host}:${port || 5432}\``]
            : error.code === '28P01' || error.code === '28000'
              ? ['P1000', `Authentication failed against database server at \`${host}\`.`]
              : [undefined, error.message];
    const line = (level, fields) => JSON.stringify({ timestamp: new Date().toISOString(), level, fields, target: 'schema_engine::logger' });
    process.stderr.write(`${line('INFO', { message: `cli ${command}` })}\n`);
    process.stderr.write(`${line('ERROR', { message, error_code: errorCode })}\n`);
    return 1;
  }
}

const redact = (url) => {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return `\`${parsed}\``;
  } catch {
    return 'the datasource URL';
  }
};

// The CLI's method names, where they differ from the Wasm engine's.
const METHOD_ALIASES = { getDatabaseVersion: 'version' };

async function serve({ datamodels, datasource }) {
  const { SchemaEngine } = await loadWasm();
  const { factory, cleanup } = createAdapterFactory(datasource);
  const files = await Promise.all(datamodels.map(async (path) => [path, await readFile(path, 'utf8')]));
  // The Wasm engine queries the database as it starts, even for commands that need none (a diff of two
  // schema files). Keep a failed start for the requests to report, rather than dying without an answer.
  const starting = SchemaEngine.new({ datamodels: files.length ? files : undefined }, (log) => debug('engine:', log), factory).catch((error) => {
    error.message += `\n(The WebAssembly schema engine connects to ${redact(datasource.url)} as it starts, whatever the command.)`;
    throw error;
  });
  starting.catch(() => {});

  // Rust `None` may surface as `undefined`; the CLI tests for `null` (e.g. createMigration's script).
  const send = (message) => process.stdout.write(`${JSON.stringify(message, (_k, v) => (v === undefined ? null : v))}\n`);

  // The native engine prints `migrate diff` output by asking the client to, with a `print` request.
  let nextPrintId = 1;
  const printed = new Map();
  const print = (content) =>
    new Promise((resolve) => {
      const id = `print-${nextPrintId++}`;
      printed.set(id, resolve);
      send({ jsonrpc: '2.0', method: 'print', params: { content }, id });
    });

  async function call(method, params) {
    if (method === 'createDatabase') {
      const url = params?.datasource?.url ?? datasource.url;
      await onServer(url, `CREATE DATABASE ${quoteIdent(databaseName(url))}`);
      return { databaseName: databaseName(url) };
    }
    const name = METHOD_ALIASES[method] ?? method;
    const engine = await starting;
    if (typeof engine[name] !== 'function' || name === 'free' || name === 'constructor') {
      throw Object.assign(new Error(`Method not supported by the Wasm schema engine: ${method}`), { rpcCode: -32601 });
    }
    const result = await engine[name](params);
    if (name === 'diff' && result?.stdout) {
      await print(result.stdout);
      return { ...result, stdout: null };
    }
    return result ?? {};
  }

  // The Wasm engine borrows itself mutably per call: run requests one at a time, in order.
  let queue = Promise.resolve();
  const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
  input.on('line', (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return line.trim() && send({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    }
    if (message.method === undefined) return (printed.get(message.id)?.(), printed.delete(message.id));
    queue = queue.then(async () => {
      debug('->', message.method, JSON.stringify(message.params ?? null).slice(0, 500));
      const started = performance.now();
      try {
        const result = await call(message.method, message.params);
        debug('<-', message.method, `${Math.round(performance.now() - started)}ms`);
        send({ jsonrpc: '2.0', result, id: message.id });
      } catch (error) {
        debug('<- error', message.method, error);
        const rpc = error.rpcCode ? { code: error.rpcCode, message: error.message } : rpcError(error, factory.errorRegistry);
        send({ jsonrpc: '2.0', error: rpc, id: message.id });
        if (panicMessage) shutdown(101); // the Wasm instance is unusable after a panic (not awaited: it waits for us)
      }
    });
  });

  let shuttingDown;
  async function shutdown(code = 0) {
    shuttingDown ??= (async () => {
      await queue.catch(() => {});
      await cleanup();
      process.exit(code);
    })();
    return shuttingDown;
  }
  // The CLI ends the engine with SIGTERM (SIGKILL 2s later), or by closing stdin.
  input.on('close', () => shutdown(0));
  process.on('SIGTERM', () => shutdown(0));
  process.on('SIGINT', () => shutdown(130));
}

const args = parseArgs(process.argv.slice(2));
if (args.version) {
  const { version } = await loadWasm();
  console.log(`schema-engine-cli ${version()}`);
} else if (args.cli) {
  process.exitCode = await runCliCommand(args.cli, args.datasource.url);
} else {
  await serve(args);
}
