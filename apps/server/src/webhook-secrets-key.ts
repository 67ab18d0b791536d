// The webhook secrets key kept in DATA_DIR when WEBHOOK_SECRETS_KEY is unset (webhooks.ts). A module of
// its own, with nothing of the domain: the start-up drill runs it in six processes at once.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from '@tlr/db/server';

/**
 * The key file is made once, atomically: written whole under a temporary name and linked into place,
 * so servers starting together all end with the first one's key and none reads a half-written file.
 */
export function webhookSecretsKey(dataDir: string): Buffer {
  const path = join(dataDir, 'webhook-secrets.key');
  let text: string;
  try {
    mkdirSync(dataDir, { recursive: true });
    if (!existsSync(path)) {
      const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}`;
      writeFileSync(temp, randomBytes(32).toString('base64'), { mode: 0o600 });
      try {
        linkSync(temp, path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      } finally {
        unlinkSync(temp);
      }
    }
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new StartupError(
      `cannot keep the webhook secrets key in ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); set WEBHOOK_SECRETS_KEY (openssl rand -base64 32) or make DATA_DIR writable`,
    );
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32)
    throw new StartupError(`${path} must hold 32 bytes in base64; delete it to have a new one made (existing webhook secrets then need rotating)`);
  return key;
}
