// A bank account's fields, once: the create and update bodies, the resource the API answers with (its
// OpenAPI component), and the domain's input and view types derived from them.
import type { z } from 'zod';
import { accountNumber, bankAccountNumber, bankRegNumber, currency, date, dateOut, iban, requiredText } from '../fields.ts';
import { masterDataSchemas } from '../master-data.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';

const fields = {
  name: requiredText(200).meta({ example: 'Driftskonto' }),
  bank_reg_number: bankRegNumber().optional().meta({ description: 'Registreringsnummer, 4 digits; given together with bank_account_number', example: '0040' }),
  bank_account_number: bankAccountNumber()
    .optional()
    .meta({ description: 'Kontonummer, up to 10 digits; given together with bank_reg_number', example: '0440116243' }),
  iban: iban().optional().meta({
    description:
      'Stored without spaces; checked by its mod-97 check digits. A Danish IBAN must hold bank_reg_number and bank_account_number when they are given',
    example: 'DK5000400440116243',
  }),
  currency: currency().optional().meta({ description: "The account's currency (valuta, ISO 4217); default DKK", example: 'DKK' }),
  account_number: accountNumber()
    .optional()
    .meta({
      description: `The ledger account the bank account reconciles to: an active asset account of the chart, backing no other bank account; default ${DEFAULT_ACCOUNTS.bank} Bankkonto`,
      example: DEFAULT_ACCOUNTS.bank,
    }),
  opening_balance_date: date().nullable().optional().meta({ description: "The day the account's opening balance is stated for; null for none" }),
};

export const bankAccountSchemas = masterDataSchemas('BankAccount', fields, { opening_balance_date: dateOut().nullable() });

export type BankAccountInput = z.output<typeof bankAccountSchemas.create>;
export type BankAccountUpdate = z.output<typeof bankAccountSchemas.update>;
export type BankAccountView = z.input<typeof bankAccountSchemas.resource>;
