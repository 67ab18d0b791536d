// The VAT return as a document for Skattestyrelsen's VAT API (a draft return, momsangivelse
// foreløbig): the company's CVR (SE-nummer), the period and every field in whole kroner. Only the
// document is made here; nothing is sent. docs/vat-return.md describes the format field by field.
import { create } from 'xmlbuilder2';
import type { VatReturnField } from './codes.ts';
import type { VatReturnView } from './filed-returns.ts';

/** Each field of the return: its element in the document and its name on Skattestyrelsen's form. */
export const VAT_RETURN_ELEMENTS: readonly { field: VatReturnField; element: string; label: string }[] = [
  { field: 'output_vat', element: 'SalgsMomsBeloeb', label: 'Salgsmoms' },
  { field: 'vat_on_goods_purchased_abroad', element: 'MomsVarekoebUdlandBeloeb', label: 'Moms af varekøb i udlandet (både EU og lande uden for EU)' },
  { field: 'vat_on_services_purchased_abroad', element: 'MomsYdelseskoebUdlandBeloeb', label: 'Moms af ydelseskøb i udlandet med omvendt betalingspligt' },
  { field: 'input_vat', element: 'KoebsMomsBeloeb', label: 'Købsmoms' },
  { field: 'oil_and_bottled_gas_duty', element: 'OlieAfgiftBeloeb', label: 'Olie- og flaskegasafgift' },
  { field: 'electricity_duty', element: 'ElAfgiftBeloeb', label: 'Elafgift' },
  { field: 'natural_gas_and_town_gas_duty', element: 'GasAfgiftBeloeb', label: 'Naturgas- og bygasafgift' },
  { field: 'coal_duty', element: 'KulAfgiftBeloeb', label: 'Kulafgift' },
  { field: 'co2_duty', element: 'CO2AfgiftBeloeb', label: 'CO2-afgift' },
  { field: 'water_duty', element: 'VandAfgiftBeloeb', label: 'Vandafgift' },
  { field: 'box_a_goods', element: 'RubrikAVarerBeloeb', label: 'Rubrik A - varer: værdien uden moms af varekøb i andre EU-lande' },
  { field: 'box_a_services', element: 'RubrikAYdelserBeloeb', label: 'Rubrik A - ydelser: værdien uden moms af ydelseskøb i andre EU-lande' },
  {
    field: 'box_b_goods_reported',
    element: 'RubrikBVarerIndberetningBeloeb',
    label: 'Rubrik B - varer: salg til andre EU-lande, indberettes til EU-salg uden moms',
  },
  { field: 'box_b_goods_not_reported', element: 'RubrikBVarerIkkeIndberetningBeloeb', label: 'Rubrik B - varer: salg til andre EU-lande, indberettes ikke' },
  { field: 'box_b_services', element: 'RubrikBYdelserBeloeb', label: 'Rubrik B - ydelser: salg til andre EU-lande' },
  { field: 'box_c', element: 'RubrikCBeloeb', label: 'Rubrik C: andre varer og ydelser leveret uden afgift' },
  { field: 'net_vat', element: 'AfgiftTilsvarBeloeb', label: 'Afgiftstilsvar' },
];

export const VAT_RETURN_NAMESPACE = 'urn:tlr:dk:skat:momsangivelse:foreloebig:1';

/** The draft return of `r` for the company with CVR `cvr`, as XML. */
export function vatReturnXml(r: VatReturnView, cvr: string): string {
  const doc = create({ version: '1.0', encoding: 'UTF-8' }).ele(VAT_RETURN_NAMESPACE, 'MomsangivelseForeloebig');
  doc.ele('AngiverVirksomhedSENummer').txt(cvr);
  const period = doc.ele('Angivelsesperiode');
  period.ele('PeriodeFraDato').txt(r.start_date);
  period.ele('PeriodeTilDato').txt(r.end_date);
  doc.ele('Angivelsesfrist').txt(r.deadline);
  const fields = doc.ele('Angivelsesfelter');
  for (const e of VAT_RETURN_ELEMENTS) fields.ele(e.element).txt(String(r.fields[e.field]));
  return doc.end({ prettyPrint: true });
}
