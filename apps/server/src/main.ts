// `npm start`: the API and the background worker in one process.
import { ConfigError, loadConfig } from '@tlr/config';
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
try {
  const service = await startService(config, logger);
  logger.info({ url: `${service.url}/api/v1` }, 'tlr is listening');
  process.stdout.write(`tlr API: ${service.url}/api/v1  (OpenAPI: ${service.url}/api/v1/openapi.json)\n`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      service.stop().then(
        () => process.exit(0),
        (e) => {
          logger.error({ err: e }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
} catch (e) {
  logger.fatal({ err: e }, 'tlr could not start');
  process.exit(1);
}
