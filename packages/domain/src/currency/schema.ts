// An exchange rate's fields, once: the items of PUT /exchange-rates, and the resource the API answers
// with (its OpenAPI component); the domain's types come from them.
import { z } from 'zod';
import { amountOut, currency, date, dateOut, exchangeRate, timestamp } from '../fields.ts';

/** Where a stored rate came from: PUT /exchange-rates, or `tlr exchange-rates load` of a Nationalbanken file. */
export const EXCHANGE_RATE_SOURCES = ['api', 'nationalbanken'] as const;
export type ExchangeRateSource = (typeof EXCHANGE_RATE_SOURCES)[number];

/** Rates in one PUT: a month of Nationalbanken's ~30 currencies fits; a history file is loaded with the CLI. */
export const MAX_RATES_PER_PUT = 1000;

export const exchangeRateInput = z.strictObject({
  currency: currency().meta({ description: 'Valuta: the ISO 4217 code the rate is for; not DKK, whose rate is always 1', example: 'EUR' }),
  date: date().meta({ description: 'Kursdato: the day the rate is quoted for' }),
  rate: exchangeRate().meta({
    description: 'Valutakurs, DKK pr. enhed (per 1 unit, not per 100); Nationalbankens referencekurs 746,12 is 7.4612',
    example: 7.4612,
  }),
});

export const putExchangeRatesBody = z.strictObject({
  rates: z.array(exchangeRateInput).min(1).max(MAX_RATES_PER_PUT),
});

export const exchangeRateResource = z
  .object({
    id: z.guid(),
    currency: z.string().meta({ description: 'Valuta (ISO 4217)', example: 'EUR' }),
    date: dateOut().meta({ description: 'Kursdato' }),
    rate: amountOut('Valutakurs, DKK pr. enhed (per 1 unit of the currency)'),
    source: z
      .enum(EXCHANGE_RATE_SOURCES)
      .meta({ description: "api (PUT /exchange-rates) or nationalbanken (Nationalbankens referencekurs, loaded with the operator's CLI)" }),
    created_at: timestamp(),
    updated_at: timestamp().meta({ description: 'When the rate or its source last changed' }),
  })
  .meta({ id: 'ExchangeRate' });

export type ExchangeRateInput = z.output<typeof exchangeRateInput>;
export type ExchangeRateView = z.input<typeof exchangeRateResource>;
