// The CSV form of a report (Accept: text/csv): RFC 4180, comma-separated, CRLF line ends, a header row,
// UTF-8. Amounts are written as JSON writes them (a point as the decimal mark, no grouping), so a CSV
// column and the JSON field hold the same text. A text cell that a spreadsheet would run as a formula
// (it starts with =, +, -, @, a tab or a carriage return) is prefixed with an apostrophe (OWASP's advice
// against CSV injection); numbers are never prefixed. Pure; decision 545.

export type CsvCell = string | number | boolean | null | undefined;

export interface CsvTable {
  /** The file name offered in Content-Disposition, without directory parts. */
  filename: string;
  columns: readonly string[];
  rows: readonly (readonly CsvCell[])[];
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell as CSV text: quoted when it holds a comma, a quote or a line break. */
export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The whole table: the header row and one row per record, each ended by CRLF. */
export function toCsv(table: Pick<CsvTable, 'columns' | 'rows'>): string {
  const line = (cells: readonly CsvCell[]) => `${cells.map(csvCell).join(',')}\r\n`;
  return line(table.columns) + table.rows.map(line).join('');
}
