// The SAF-T Header and MasterFiles elements (accounts, customers, suppliers, tax table), built with
// xmlbuilder2 as fragments in the schema's element order. Texts are cut to the schema's lengths.
import { fragment } from 'xmlbuilder2';
import { API_VERSION } from '@tlr/config';
import { balanceSide, compactId, fit, isCvr, saftAccountType, SAFT_TEXT, type SaftPeriod } from './rules.ts';

export type XmlObject = { [name: string]: string | XmlObject | XmlObject[] };

export const xml = (obj: XmlObject) => fragment(obj).end();

/** Version of the schema, as its annotation gives it (AuditFileVersion follows that annotation). */
const AUDIT_FILE_VERSION = '1.0';
/** Our chart is the standard chart of 31 January 2023 (Erhvervsstyrelsen), as published in Odoo's l10n_dk. */
const STANDARD_ACCOUNT_VERSION = '20230131';

export interface SaftCompany {
  id: string;
  name: string;
  cvr: string | null;
  currency: string;
  vat_registered: boolean;
  fiscal_year_start_month: number;
}

const country = (c: string | null | undefined) => (c && /^[A-Za-z]{2}$/.test(c.trim()) ? c.trim().toUpperCase() : 'DK');

/** CVR when the number is a Danish CVR, otherwise RegistrationNumber (the schema needs one of them). */
const registration = (cvr: string | null | undefined, required: boolean): XmlObject => {
  if (isCvr(cvr)) return { CVR: cvr };
  if (cvr || required) return { RegistrationNumber: fit(cvr, SAFT_TEXT.middle1) };
  return {};
};

export function headerXml(company: SaftCompany, period: SaftPeriod, createdOn: string): string {
  return xml({
    Header: {
      AuditFileVersion: AUDIT_FILE_VERSION,
      AuditFileCountry: 'DK',
      AuditFileDateCreated: createdOn,
      SoftwareCompanyName: 'tlr',
      SoftwareID: 'tlr bookkeeping API',
      SoftwareVersion: API_VERSION,
      Company: {
        ...registration(company.cvr, true),
        Name: fit(company.name, SAFT_TEXT.middle2),
        // The company profile has no address or bank account yet: the schema's mandatory elements
        // are present and empty (docs/decisions/saf-t-export.md).
        Address: { StreetName: '', City: '', PostalCode: '', Country: 'DK' },
        ...(company.vat_registered && isCvr(company.cvr)
          ? { TaxRegistration: { TaxRegistrationNumber: company.cvr, TaxType: 'VAT', TaxAuthority: 'Skattestyrelsen', Country: 'DK' } }
          : {}),
        BankAccount: { IBANNumber: '' },
      },
      DefaultCurrencyCode: company.currency,
      SelectionCriteria: { SelectionStartDate: period.from, SelectionEndDate: period.to },
      TaxAccountingBasis: 'Invoice Accounting',
      TaxEntity: fit(company.name, SAFT_TEXT.middle2),
    },
  });
}

export interface SaftAccount {
  account_number: string;
  name: string;
  type: string;
  standard_account_id: string;
  created: string;
  /** Signed (debit positive) balances with 2 decimals. */
  opening: string;
  closing: string;
}

function accountXml(a: SaftAccount): XmlObject {
  const opening = balanceSide(a.opening);
  const closing = balanceSide(a.closing);
  return {
    AccountID: fit(a.account_number, SAFT_TEXT.middle2),
    AccountDescription: fit(a.name, SAFT_TEXT.long),
    ...(a.standard_account_id ? { StandardAccountID: fit(a.standard_account_id, SAFT_TEXT.middle1) } : {}),
    AccountType: saftAccountType(a.type),
    AccountCreationDate: a.created,
    [`Opening${opening.side}Balance`]: opening.amount,
    [`Closing${closing.side}Balance`]: closing.amount,
  };
}

export function generalLedgerAccountsXml(accounts: readonly SaftAccount[]): string {
  return xml({
    GeneralLedgerAccounts: {
      NameOfStandardAccount: 'Standardkontoplanen',
      VersionOfStandardAccount: STANDARD_ACCOUNT_VERSION,
      Account: accounts.map(accountXml),
    },
  });
}

export interface SaftParty {
  id: string;
  name: string;
  cvr: string;
  email: string;
  phone: string;
  contact_person: string;
  address_line1: string;
  address_line2: string;
  postal_code: string;
  city: string;
  country: string;
  bank_reg_number?: string;
  bank_account_number?: string;
  iban?: string;
}

/** AddressStructure: the street is required by the schema, so it may be empty. */
export function addressXml(a: Pick<SaftParty, 'address_line1' | 'address_line2' | 'postal_code' | 'city' | 'country'>): XmlObject {
  return {
    StreetName: fit(a.address_line1, SAFT_TEXT.middle2),
    ...(a.address_line2 ? { AdditionalAddressDetail: fit(a.address_line2, SAFT_TEXT.middle2) } : {}),
    City: fit(a.city, SAFT_TEXT.middle1),
    PostalCode: fit(a.postal_code, SAFT_TEXT.short),
    Country: country(a.country),
  };
}

/** CompanyStructureContent of a customer or supplier, after its ID. */
function partyContent(p: SaftParty): XmlObject {
  // Identifiers are left out rather than cut when they do not fit: a shortened e-mail address or
  // telephone number would be wrong, not just short.
  const phone = p.phone.replace(/\s+/g, '');
  const contact: XmlObject = {
    ...(p.contact_person ? { ContactPerson: { FirstName: 'NotUsed', LastName: fit(p.contact_person, SAFT_TEXT.middle2) } } : {}),
    ...(phone && phone.length <= SAFT_TEXT.short ? { Telephone: phone } : {}),
    ...(p.email && p.email.length <= SAFT_TEXT.middle2 ? { Email: fit(p.email, SAFT_TEXT.middle2) } : {}),
  };
  const iban = (p.iban ?? '').replace(/\s+/g, '');
  const bank: XmlObject | undefined =
    iban && iban.length <= SAFT_TEXT.middle1
      ? { IBANNumber: iban }
      : p.bank_account_number && p.bank_reg_number
        ? { BankAccountNumber: fit(p.bank_account_number, SAFT_TEXT.middle1), SortCode: fit(p.bank_reg_number, SAFT_TEXT.short) }
        : undefined;
  return {
    ...registration(p.cvr, false),
    Name: fit(p.name, SAFT_TEXT.middle2),
    Address: addressXml(p),
    ...(Object.keys(contact).length ? { Contact: contact } : {}),
    ...(bank ? { BankAccount: bank } : {}),
  };
}

/** A batch of Customer (or Supplier) elements; the caller writes the enclosing Customers element. */
export function partiesXml(kind: 'Customer' | 'Supplier', parties: readonly SaftParty[]): string {
  if (parties.length === 0) return '';
  return xml({ [kind]: parties.map((p) => ({ [`${kind}ID`]: compactId(p.id), ...partyContent(p) })) });
}

export interface SaftVatCode {
  code: string;
  name: string;
  rate: string;
}

export function taxTableXml(codes: readonly SaftVatCode[], effectiveDate: string): string {
  if (codes.length === 0) throw new Error('SAF-T needs at least one VAT code in the tax table');
  return xml({
    TaxTable: {
      TaxTableEntry: {
        TaxType: 'VAT',
        Description: 'VAT',
        TaxCodeDetails: codes.map((c) => ({
          TaxCode: fit(c.code, SAFT_TEXT.code),
          EffectiveDate: effectiveDate,
          Description: fit(c.name, SAFT_TEXT.long),
          TaxPercentage: c.rate,
          Country: 'DK',
        })),
      },
    },
  });
}

/** A dimension value as AnalysisTypeTable lists it (decision 586). */
export interface SaftAnalysisEntry {
  /** AnalysisType: the dimension's code in the file (at most 9 characters). */
  type: string;
  /** AnalysisTypeDescription: the dimension's name. */
  typeName: string;
  /** AnalysisID: the value's code. */
  id: string;
  /** AnalysisIDDescription: the value's name. */
  name: string;
}

/** MasterFiles/AnalysisTypeTable: one entry per dimension value (none: no element). */
export function analysisTypeTableXml(entries: readonly SaftAnalysisEntry[]): string {
  if (!entries.length) return '';
  return xml({
    AnalysisTypeTable: {
      AnalysisTypeTableEntry: entries.map((e) => ({
        AnalysisType: e.type,
        AnalysisTypeDescription: fit(e.typeName, SAFT_TEXT.long),
        AnalysisID: fit(e.id, SAFT_TEXT.middle1),
        AnalysisIDDescription: fit(e.name, SAFT_TEXT.long),
      })),
    },
  });
}

/**
 * The AnalysisType of each dimension (by id), given in creation order: its name when it fits the
 * schema's 9 characters and no other dimension took it, else DIM and its place (DIM3). Pure.
 */
export function analysisTypes(dimensions: readonly { id: string; name: string }[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  dimensions.forEach((d, i) => {
    const code = d.name.length <= 9 && !/^DIM\d+$/.test(d.name) && !taken.has(d.name) ? d.name : `DIM${i + 1}`;
    taken.add(code);
    out.set(d.id, code);
  });
  return out;
}
