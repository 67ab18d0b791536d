import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './index.ts';

describe('configuration', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 3000, RUN_WORKER: true, LOG_LEVEL: 'info', DB_POOL_SIZE: 10 });
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('names every bad value in one message', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', DB_POOL_SIZE: '0' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['PORT', 'DATABASE_URL', 'LOG_LEVEL', 'DB_POOL_SIZE']) expect(message).toContain(name);
    expect(message).toContain('"eighty"');
  });

  it('treats an empty DATABASE_URL as unset', () => {
    expect(loadConfig({ DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
  });
});
