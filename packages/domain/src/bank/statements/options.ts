// How a bank file is to be read: the query parameters of POST /bank-accounts/{id}/statements (one zod
// schema: the procedure's input and the OpenAPI parameters), and the CSV presets of the main Danish
// banks: each the header line of the bank's export and which of its columns are which.
import { z } from 'zod';
import { DATE_FORMATS } from './values.ts';

/** The columns a CSV mapping can name; `date` and `amount` (or `debit`/`credit`) are required. */
export const CSV_COLUMNS = ['date', 'value_date', 'amount', 'debit', 'credit', 'text', 'counterparty', 'reference', 'balance', 'currency'] as const;
export type CsvColumn = (typeof CSV_COLUMNS)[number];
export type CsvMapping = Partial<Record<CsvColumn, string>>;

export interface CsvPreset {
  bank: string;
  /** The header line of the bank's export as best known (docs/bank-statements.md); a file whose header holds all of them is this bank's. */
  headers: readonly string[];
  mapping: CsvMapping;
}

/**
 * The banks' CSV exports (kontoudtog i regneark/CSV), as their online banks write them to the best of
 * our knowledge: semicolon separated, decimal comma, day-first dates (Nordea: year first). A bank that
 * changes its layout is read with a column mapping until the preset follows.
 */
export const CSV_PRESETS = {
  danske_bank: {
    bank: 'Danske Bank',
    headers: ['Dato', 'Tekst', 'Beløb', 'Saldo', 'Status', 'Afstemt'],
    mapping: { date: 'Dato', text: 'Tekst', amount: 'Beløb', balance: 'Saldo' },
  },
  nordea: {
    bank: 'Nordea',
    headers: ['Bogføringsdato', 'Beløb', 'Afsender', 'Modtager', 'Navn', 'Beskrivelse', 'Saldo', 'Valuta', 'Afstemt'],
    mapping: { date: 'Bogføringsdato', amount: 'Beløb', counterparty: 'Navn', text: 'Beskrivelse', balance: 'Saldo', currency: 'Valuta' },
  },
  jyske_bank: {
    bank: 'Jyske Bank',
    headers: ['Dato', 'Valørdato', 'Tekst', 'Beløb', 'Saldo'],
    mapping: { date: 'Dato', value_date: 'Valørdato', text: 'Tekst', amount: 'Beløb', balance: 'Saldo' },
  },
  nykredit: {
    bank: 'Nykredit',
    headers: ['Bogføringsdato', 'Rentedato', 'Tekst', 'Beløb', 'Saldo'],
    mapping: { date: 'Bogføringsdato', value_date: 'Rentedato', text: 'Tekst', amount: 'Beløb', balance: 'Saldo' },
  },
  sydbank: {
    bank: 'Sydbank',
    headers: ['Bogført', 'Rentedato', 'Tekst', 'Beløb', 'Saldo', 'Valuta'],
    mapping: { date: 'Bogført', value_date: 'Rentedato', text: 'Tekst', amount: 'Beløb', balance: 'Saldo', currency: 'Valuta' },
  },
  spar_nord: {
    bank: 'Spar Nord',
    headers: ['Dato', 'Tekst', 'Rentedato', 'Beløb', 'Saldo', 'Reference'],
    mapping: { date: 'Dato', text: 'Tekst', value_date: 'Rentedato', amount: 'Beløb', balance: 'Saldo', reference: 'Reference' },
  },
  arbejdernes_landsbank: {
    bank: 'Arbejdernes Landsbank',
    headers: ['Dato', 'Tekst', 'Udbetaling', 'Indbetaling', 'Saldo'],
    mapping: { date: 'Dato', text: 'Tekst', debit: 'Udbetaling', credit: 'Indbetaling', balance: 'Saldo' },
  },
  lunar: {
    bank: 'Lunar',
    headers: ['Dato', 'Tekst', 'Modpart', 'Beløb', 'Valuta', 'Saldo'],
    mapping: { date: 'Dato', text: 'Tekst', counterparty: 'Modpart', amount: 'Beløb', currency: 'Valuta', balance: 'Saldo' },
  },
} as const satisfies Record<string, CsvPreset>;
export type CsvPresetName = keyof typeof CSV_PRESETS;
export const CSV_PRESET_NAMES = Object.keys(CSV_PRESETS) as [CsvPresetName, ...CsvPresetName[]];

const column = (what: string) =>
  z
    .string()
    .trim()
    .min(1, 'must name a column')
    .max(100)
    .optional()
    .meta({ description: `CSV: the column of ${what}, by its header name (case-insensitive) or its number from 1` });

export const SEPARATORS = { ';': ';', ',': ',', tab: '\t' } as const;

/** The query of an import; every parameter but file_name and other_accounts is for CSV (a camt file says what it is). */
export const bankImportQuery = z.strictObject({
  file_name: z.string().trim().max(255).optional().meta({ description: "The file's name, kept with the statement; default the Content-Disposition filename" }),
  preset: z
    .enum(CSV_PRESET_NAMES, { error: `must be one of ${CSV_PRESET_NAMES.join(', ')}` })
    .optional()
    .meta({
      description:
        "CSV: the bank's export layout (docs/bank-statements.md). Without it and without date_column, the header line chooses the preset, or else its column names (Dato, Bogført, Tekst, Beløb, Ind/Ud, Saldo …) say which column is which",
    }),
  encoding: z.enum(['utf-8', 'windows-1252', 'iso-8859-1'], { error: 'must be utf-8, windows-1252 or iso-8859-1' }).optional().meta({
    description:
      'CSV: the text encoding; default UTF-8 (a BOM is dropped), or Windows-1252 when the file is not valid UTF-8. iso-8859-1 (Latin-1, what some banks name their export) is read as Windows-1252, its superset for every letter a bank writes',
  }),
  separator: z
    .enum(Object.keys(SEPARATORS) as [keyof typeof SEPARATORS], { error: 'must be ;, , or tab' })
    .optional()
    .meta({ description: 'CSV: the field separator; default: ; if the first line has one, else tab if it has one, else ,' }),
  decimal_separator: z.enum([',', '.'], { error: 'must be , or .' }).optional().meta({
    description:
      'CSV: the decimal separator of amounts (with , the thousands are separated by ., with . by ,). Default: a decimal comma, else a decimal point where the comma cannot read an amount (1234.50); a file that needs both is refused',
  }),
  header_rows: z
    .string()
    .regex(/^\d{1,2}$/, 'must be a whole number from 0 to 20')
    .transform(Number)
    .refine((n) => n <= 20, 'must be a whole number from 0 to 20')
    .optional()
    .meta({ description: 'CSV: lines before the first line of data, the last of them the column names; default 1. With 0, columns are named by number' }),
  date_format: z
    .enum(DATE_FORMATS, { error: `must be one of ${DATE_FORMATS.join(', ')}` })
    .optional()
    .meta({
      description:
        'CSV: how dates are written; default any of dd-mm-yyyy, dd.mm.yyyy, dd/mm/yyyy, yyyy-mm-dd, yyyy/mm/dd and the compact yyyymmdd, ddmmyyyy, ddmmyy (day first, 20yy)',
    }),
  other_accounts: z.enum(['refuse', 'skip'], { error: 'must be refuse or skip' }).optional().meta({
    description:
      'camt.053/camt.054: what a statement of another account than this bank account does (by its IBAN or account number): refuse, the default, refuses the file naming it; skip leaves it out of this import (import the file into that account too). Never merged',
  }),
  date_column: column('the booking date (required without a preset)'),
  value_date_column: column('the value date (rentedato)'),
  amount_column: column('the signed amount (or give debit_column and credit_column)'),
  debit_column: column('money out, as a positive amount'),
  credit_column: column('money in, as a positive amount'),
  text_column: column('the text'),
  counterparty_column: column("the counterparty's name"),
  reference_column: column('the payment reference (FI payment id, end-to-end id)'),
  balance_column: column('the running balance after the line (checked line by line)'),
  currency_column: column('the currency (must be the bank account currency)'),
});
export type BankImportOptions = z.output<typeof bankImportQuery>;

/** The parameters for XML files only. */
const XML_ONLY = new Set(['other_accounts']);
/** The CSV parameters given, for a camt file to refuse by name. */
export const csvOnlyOptions = (o: BankImportOptions) =>
  Object.keys(o).filter((k) => k !== 'file_name' && !XML_ONLY.has(k) && o[k as keyof BankImportOptions] !== undefined);
/** The camt parameters given, for a CSV file to refuse by name. */
export const xmlOnlyOptions = (o: BankImportOptions) => Object.keys(o).filter((k) => XML_ONLY.has(k) && o[k as keyof BankImportOptions] !== undefined);

/** The column mapping the parameters name (`date_column` -> date, ...). */
export function mappingOf(o: BankImportOptions): CsvMapping {
  const out: CsvMapping = {};
  for (const c of CSV_COLUMNS) {
    const v = o[`${c}_column`];
    if (v !== undefined) out[c] = v;
  }
  return out;
}
