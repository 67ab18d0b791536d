// /bank-accounts: the company's bank accounts and the ledger accounts they reconcile to.
import { BANK_ACCOUNT_LIST, bankAccountSchemas, createBankAccount, DEFAULT_ACCOUNTS, getBankAccount, listBankAccounts, updateBankAccount } from '@tlr/domain';
import { createEndpoint, getEndpoint, listEndpoint, updateEndpoint } from '../crud.ts';
import { router } from '../trpc.ts';

const tag = 'Bank accounts';
// A bank account is the other side of the postings bank reconciliation will make: the transactions
// scopes, as for the exchange-rate table (decision 250).
const read = 'transactions:read';
const write = 'transactions:write';
const ledgerAccountRule =
  'account_number that is not an active asset account of the chart: 400 invalid_request naming account_number; one that already backs another ' +
  'bank account: 409 conflict. bank_reg_number and bank_account_number go together, and a Danish iban must hold them (400 naming the field).';
const { create, update, resource } = bankAccountSchemas;

export const bankAccountsRouter = router({
  list: listEndpoint({
    path: '/bank-accounts',
    tag,
    summary: 'List bank accounts',
    scope: read,
    spec: BANK_ACCOUNT_LIST,
    searchDescription: 'Case-insensitive search in name, IBAN and account number',
    resource,
    run: listBankAccounts,
  }),
  get: getEndpoint({ path: '/bank-accounts/{id}', tag, summary: 'Get a bank account', scope: read, resource, run: getBankAccount }),
  create: createEndpoint({
    path: '/bank-accounts',
    tag,
    summary: 'Create a bank account',
    description: `Defaults: currency DKK, account_number ${DEFAULT_ACCOUNTS.bank} (Bankkonto). ${ledgerAccountRule}`,
    scope: write,
    problems: [409],
    body: create,
    resource,
    run: createBankAccount,
  }),
  update: updateEndpoint({
    path: '/bank-accounts/{id}',
    tag,
    summary: 'Update a bank account',
    description: ledgerAccountRule,
    scope: write,
    problems: [409],
    body: update,
    resource,
    run: updateBankAccount,
  }),
});
