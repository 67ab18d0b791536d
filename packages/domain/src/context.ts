// Who a domain command acts for: the company whose books it touches (the sandbox for a test key) and
// whether those are real books (livemode), which every recorded event carries.
export interface CompanyScope {
  companyId: string;
  livemode: boolean;
}
