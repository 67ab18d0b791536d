// The integers of the API, each with the range it really has (decision 164): a bare z.int() documents
// ±9007199254740991, which says nothing to a reader and makes generators pick 64-bit types.
import { z } from 'zod';
import { MAX_VOUCHER_BYTES } from './vouchers/rules.ts';
import { MAX_ATTEMPTS } from './webhooks/rules.ts';

/**
 * The top of a 32-bit signed integer (PostgreSQL `integer`), the bound of every count and sequence
 * number: a company posting one entry a second would need 68 years to reach it.
 */
export const INT32_MAX = 2_147_483_647;

/** A count: of rows (meta.total, meta.total_pages), of milliseconds. */
export const count = () => z.int().min(0).max(INT32_MAX);
/** A 1-based number: a page, a SystemID, a document number. */
export const ordinal = () => z.int().min(1).max(INT32_MAX);
/** A line's 1-based position in its invoice or posting (stored as a PostgreSQL smallint). */
export const lineNumber = () => z.int().min(1).max(32_767);
/** A calendar month, 1 = January. */
export const month = () => z.int().min(1).max(12);
/** Days of payment terms, as the customer and supplier inputs accept them. */
export const paymentTermsDays = () => z.int().min(0).max(365);
/** Bytes of a stored voucher document: empty uploads and uploads over 10 MB are refused. */
export const fileSize = () => z.int().min(1).max(MAX_VOUCHER_BYTES);
/** Delivery attempts made since the delivery was created or last replayed. */
export const deliveryAttempts = () => z.int().min(0).max(MAX_ATTEMPTS);
/** An HTTP status as a webhook receiver sent it: three digits, whatever they are. */
export const receivedStatus = () => z.int().min(0).max(999);
