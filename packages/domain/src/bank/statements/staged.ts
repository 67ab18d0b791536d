// A bank file as it arrives, staged to a temporary file before any transaction opens (files/staged-upload.ts):
// the import then reads it at disk speed inside its transaction, whatever the speed of the client that sent it.
import { stageUpload, type StagedUpload } from '../../files/staged-upload.ts';

export { readStaged } from '../../files/staged-upload.ts';

/** What a bank file may weigh: a year of a busy account in camt.053 is some tens of MB. */
export const MAX_BANK_FILE_BYTES = 200 * 1024 * 1024;

export type BankFileKind = 'camt053' | 'csv';

export interface StagedBankFile extends StagedUpload {
  kind: BankFileKind;
  /** The Content-Disposition filename, if the request had one. */
  dispositionName: string;
}

/** Writes the body to a temporary file chunk by chunk; throws UploadTooLarge past `limit` bytes. */
export async function stageBankFile(
  body: AsyncIterable<Uint8Array>,
  kind: BankFileKind,
  opts: { limit?: number; dispositionName?: string } = {},
): Promise<StagedBankFile> {
  const staged = await stageUpload(body, { limit: opts.limit ?? MAX_BANK_FILE_BYTES, prefix: 'tlr-bank-' });
  return { ...staged, kind, dispositionName: opts.dispositionName ?? '' };
}
