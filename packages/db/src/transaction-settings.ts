// Settings a transaction starts with, sent with its BEGIN (one round trip, not one more per setting):
// the control trail's actor is named this way for every transaction a procedure or a job opens.
// The settings are set LOCAL: they end with the transaction, so a pooled
// connection never carries one transaction's settings into the next.
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

/** The SQL that follows BEGIN for the transactions begun in the current async context. */
const pending = new AsyncLocalStorage<string>();

/** A custom setting's name (`tlr.actor`), written into the SQL as it is. */
const SETTING_NAME = /^[a-z_]+\.[a-z_]+$/;

/**
 * Runs `fn` so that every transaction it begins (Prisma's interactive transactions, a pool client's
 * BEGIN) starts with `settings` set LOCAL, in the same message as its BEGIN.
 */
export function withTransactionSettings<T>(settings: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const sql = Object.entries(settings)
    .map(([name, value]) => {
      if (!SETTING_NAME.test(name)) throw new Error(`not a custom setting's name: ${name}`);
      // SET, not SELECT set_config(): a SET takes no snapshot, so a transaction may still set its
      // isolation level after it (Prisma sends SET TRANSACTION ISOLATION LEVEL after BEGIN).
      return `SET LOCAL ${name} = ${pg.escapeLiteral(value)}`;
    })
    .join('; ');
  return pending.run(sql, fn);
}

type QueryText = string | { text?: string; values?: unknown[] };

/**
 * The pool's client: a transaction's BEGIN carries the pending settings. BEGIN goes by the simple
 * query protocol (no parameters, so several statements in one message); the settings are escaped
 * literals. Any other query passes unchanged.
 */
export class SettingsClient extends pg.Client {
  override query(...args: unknown[]): never {
    const first = args[0] as QueryText;
    const text = typeof first === 'string' ? first : first?.text;
    if (text === 'BEGIN' && !(typeof first === 'object' && first.values?.length)) {
      const settings = pending.getStore();
      if (settings) args[0] = typeof first === 'string' ? `BEGIN; ${settings}` : { ...first, text: `BEGIN; ${settings}` };
    }
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}
