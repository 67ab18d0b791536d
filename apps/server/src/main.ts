// `npm start`: the API and the background worker in one process.
import { ConfigError, loadConfig } from '@tlr/config';
import { StartupError } from '@tlr/db/server';
import { createLogger, startService } from './service.ts';

let config;
try {
  config = loadConfig();
} catch (e) {
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(2);
  }
  throw e;
}
const logger = createLogger(config);
let service;
try {
  service = await startService(config, logger);
} catch (e) {
  // A cause the operator can fix is one line that says what to change; anything else is a bug, logged whole.
  if (e instanceof StartupError) process.stderr.write(`tlr: ${e.message}\n`);
  else logger.fatal({ err: e }, 'tlr could not start');
  process.exit(1);
}
logger.info({ url: `${service.url}/api/v1` }, 'tlr is listening');
process.stdout.write(`tlr API: ${service.url}/api/v1  (OpenAPI: ${service.url}/api/v1/openapi.json)\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // Not once: a terminal's Ctrl-C arrives more than once (directly, and relayed by tlr.mjs and tsx), and a
  // signal without a listener would end the process in the middle of the shutdown. stop() runs once.
  process.on(signal, () => {
    service.stop().then(
      () => process.exit(0),
      (e) => {
        logger.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
