// The accounts of the chart that postings use when nothing names another, in one place: numbers of the
// chart every company is seeded with (standard-chart.ts: the standard chart and its bank account).

export const DEFAULT_ACCOUNTS = {
  /** 1010 Salg af varer og ydelser: an invoice line's revenue, unless its product names another account. */
  sales: '1010',
  /** 1550 Øvrige andre driftsindtægter: a reminder's fee (decision 290). */
  reminderFee: '1550',
  /** 2810 Andre eksterne omkostninger: an expense's cost, unless it names another account. */
  expense: '2810',
  /** 3490 Renter vedr. tilgodehavender fra salg: a reminder's interest (decision 290). */
  reminderInterest: '3490',
  /** 3610 Valutakursreguleringer: the exchange difference of a payment in another currency than its document's rate. */
  exchangeDifference: '3610',
  /** 6190 Debitorer: what customers owe (invoices, reminders). */
  receivable: '6190',
  /**
   * 6390 Periodeafgrænsningsposter, der kan opretholdes skattemæssigt (prepaid expenses, forudbetalte
   * omkostninger): an accrued expense's cost at booking, moved to its account month by month (decision 820).
   */
  prepaidExpenses: '6390',
  /** 6470 Bankkonto: payments, and the ledger account of a new bank account. */
  bank: '6470',
  /** 7440 Leverandører: what the company owes its suppliers (expenses). */
  payable: '7440',
  /**
   * 8070 Periodeafgrænsningsposter (deferred income, forudfakturerede indtægter): an accrued invoice line's
   * revenue at approval, moved to its account month by month (decision 820).
   */
  deferredIncome: '8070',
  /** 7680 Salgsmoms: output VAT (and the buyer's own VAT under domestic reverse charge). */
  outputVat: '7680',
  /** 7700 Moms af varekøb i udlandet: VAT on goods bought abroad (EU and import). */
  vatOnGoodsAbroad: '7700',
  /** 7720 Moms af ydelseskøb i udlandet: VAT on services bought abroad. */
  vatOnServicesAbroad: '7720',
  /** 7740 Købsmoms: input VAT deducted. */
  inputVat: '7740',
  /** 7760 to 7830: the energy duties refunded (olie- og flaskegasafgift, elafgift, naturgas- og bygasafgift, kulafgift, vandafgift, CO2-afgift). */
  oilAndBottledGasDuty: '7760',
  electricityDuty: '7780',
  naturalGasAndTownGasDuty: '7800',
  coalDuty: '7810',
  waterDuty: '7820',
  co2Duty: '7830',
  /** 7840 Skyldig moms: where a VAT period's settlement moves the VAT and duty accounts. */
  vatSettlement: '7840',
  /** 6940 Overført resultat: where closing a fiscal year moves its result (decision 550). */
  yearResult: '6940',
} as const;
