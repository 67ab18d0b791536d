// /exchange-rates: the company's exchange-rate table (valutakurser). PUT stores a batch by currency and
// date, overwriting what the company had; GET lists it. Rates are DKK per 1 unit.
import { z } from 'zod';
import { EXCHANGE_RATE_LIST, exchangeRateResource, listExchangeRates, MAX_RATES_PER_PUT, putExchangeRates, putExchangeRatesBody } from '@tlr/domain';
import { currencyFilter } from '../schemas/list-query.ts';
import { listEndpoint, metaOf } from '../crud.ts';
import { authedProcedure, router } from '../trpc.ts';

const tag = 'Exchange rates';
const path = '/exchange-rates';
// Writing the rates that documents are converted with is a change of the books' figures, as posting is:
// the transactions scopes (decision 193).
export const exchangeRatesRouter = router({
  list: listEndpoint({
    path,
    tag,
    summary: 'List exchange rates',
    description: 'currency filters on one currency. rate is the valutakurs in DKK pr. enhed (per 1 unit).',
    scope: 'transactions:read',
    spec: EXCHANGE_RATE_LIST,
    searchDescription: 'Case-insensitive search in the currency code',
    filters: currencyFilter,
    resource: exchangeRateResource,
    run: listExchangeRates,
  }),
  put: authedProcedure
    .meta(
      metaOf(
        {
          path,
          tag,
          summary: 'Store exchange rates',
          description:
            `Stores up to ${MAX_RATES_PER_PUT} rates at once, all or none: valutakurs, DKK pr. enhed (per 1 unit; Nationalbankens referencekurs ` +
            'EUR 746,12 per 100 is 7.4612) per currency and date. A currency and date the company has already is overwritten, so the call is ' +
            'idempotent by nature and takes no Idempotency-Key. Answers the stored rates in the order given. DKK (always 1) and a currency and ' +
            'date given twice are refused with 400 invalid_request naming rates[i].',
          scope: 'transactions:write',
        },
        'PUT',
      ),
    )
    .input(putExchangeRatesBody)
    .output(z.object({ data: z.array(exchangeRateResource) }))
    .mutation(async ({ ctx, input }) => ({ data: await putExchangeRates(ctx.tx, ctx.scope, input.rates) })),
});
