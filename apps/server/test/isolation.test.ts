// Cross-company isolation over every resource with an id, through HTTP (rule: "every query is scoped by
// company id; a row of another company is not found, never a leak"). Four foreign credentials each meet
// a company's rows: another company's live key, the company's own sandbox (test key), another company's
// OAuth access token, and the live key against the sandbox's rows. Each of them gets 404 problem+json
// for every verb on every id, never sees the rows in a list, a search, a lookup or the SAF-T file, has
// its references to them refused, and changes nothing; the owner's same requests then succeed, so
// every 404 was the company scope and not a wrong path.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, checkCvr, SCOPES, today as businessDay } from '@tlr/domain';
import {
  api,
  client,
  connectedApp,
  created,
  deliveries,
  idem,
  ok,
  subscribe,
  testDb,
  twoLinePosting,
  useCompany,
  waitFor,
  webhookReceiver,
  type Api,
  type Reply,
} from './helpers.ts';

// Its own worker sends the webhook deliveries (to a receiver on loopback), so that a delivery has an id.
// A worker sends any file's deliveries and schedules their retries by its own unit: a short one, so that
// it never holds back another file's retries (page-safety.test.ts waits for a dead letter).
const t = useCompany({ name: 'Isolation Ejer ApS', env: { RUN_WORKER: 'true', WEBHOOK_ALLOW_INSECURE_URLS: 'true', WEBHOOK_RETRY_UNIT_MS: '5' } });
let hook: Awaited<ReturnType<typeof webhookReceiver>>;
beforeAll(async () => {
  hook = await webhookReceiver();
});
afterAll(() => hook?.close());

const today = businessDay();
const due = addDays(today, 14);
/** An account number of no seeded chart: only the company that made it has it. */
const OWN_ACCOUNT = '2893';
const path = (id: string) => ({ params: { path: { id } } });

/** A valid CVR number (modulus 11) no other row of the run has, so a lookup by it finds one company's customer. */
function freshCvr(): string {
  for (;;) {
    const n = String(10_000_000 + Math.floor(Math.random() * 89_999_999));
    if (!checkCvr(n)) return n;
  }
}

/** One company's rows of every kind with an id, each made through the API, and the word that names them. */
async function world(c: Api, marker: string) {
  const sub = await subscribe(c, `${hook.url}?m=${marker}`, ['customer.created']);
  const cvr = freshCvr();
  const customer = (await created(c.POST('/customers', { params: idem(), body: { name: `${marker} kunde`, cvr, email: `${marker}@example.dk` } }))).data;
  const billed = (await created(c.POST('/customers', { params: idem(), body: { name: `${marker} faktureret` } }))).data;
  const product = (await created(c.POST('/products', { params: idem(), body: { name: `${marker} vare`, unit_price: 100 } }))).data;
  const supplier = (await created(c.POST('/suppliers', { params: idem(), body: { name: `${marker} leverandør` } }))).data;
  const account = (await created(c.POST('/accounts', { params: idem(), body: { account_number: OWN_ACCOUNT, name: `${marker} konto`, type: 'expense' } })))
    .data;
  const bank = (await ok(c.GET('/accounts', { params: { query: { search: '6470' } } }))).data.find((a) => a.account_number === '6470');
  const voucher = (
    await created(c.POST('/vouchers', { params: idem(), body: { filename: `${marker}.txt`, content_base64: Buffer.from(marker).toString('base64') } }))
  ).data;
  const transaction = (await created(c.POST('/transactions', { params: idem(), body: twoLinePosting(today, OWN_ACCOUNT, '6470', 100, `${marker} postering`) })))
    .data;
  const expense = async () =>
    (await created(c.POST('/expenses', { params: idem(), body: { date: today, amount: 125, vat_amount: 25, description: `${marker} udgift` } }))).data;
  const invoice = async (auto_approve: boolean) =>
    (
      await created(
        c.POST('/invoices', {
          params: idem(),
          body: {
            customer_id: billed.id,
            issue_date: today,
            due_date: due,
            notes: marker,
            auto_approve,
            lines: [{ description: `${marker} linje`, quantity: 1, unit_price: 200 }],
          },
        }),
      )
    ).data;
  const [draft, toApprove, approved, draftExpense, toBook] = [
    await invoice(false),
    await invoice(false),
    await invoice(true),
    await expense(),
    await expense(),
  ];
  const delivery = await waitFor(async () => (await deliveries(c, sub.id)).find((d) => d.status === 'succeeded'));
  if (!bank) throw new Error('no account 6470 in the chart');
  return {
    marker,
    cvr,
    ids: {
      customer: customer.id,
      billed: billed.id,
      product: product.id,
      supplier: supplier.id,
      account: account.id,
      bank: bank.id,
      voucher: voucher.id,
      transaction: transaction.id,
      expense: draftExpense.id,
      toBook: toBook.id,
      draft: draft.id,
      toApprove: toApprove.id,
      approved: approved.id,
      webhook: sub.id,
      delivery: delivery.id,
    },
  };
}
type World = Awaited<ReturnType<typeof world>>;
type Ids = World['ids'];
type Raw = ReturnType<typeof client>;
type ByIdRequest = [label: string, send: (c: Raw, w: Ids) => Promise<Reply<{ code?: string }>>];

/**
 * Every operation on a row of the world by its id, in an order in which the owner's own requests all
 * succeed (the control). A foreign credential must get 404 for each.
 */
const BY_ID: ByIdRequest[] = [
  ['GET invoice', (c, w) => c.get(`/invoices/${w.draft}`)],
  ['PUT invoice', (c, w) => c.put(`/invoices/${w.draft}`, { notes: 'overtaget' })],
  ['PUT invoice status', (c, w) => c.put(`/invoices/${w.toApprove}/status`, { status: 'approved' })],
  ['POST invoice payment', (c, w) => c.post(`/invoices/${w.approved}/payments`, { amount: 1 })],
  ['GET invoice pdf', (c, w) => c.get(`/invoices/${w.approved}/pdf`)],
  ['DELETE invoice', (c, w) => c.del(`/invoices/${w.draft}`)],
  ...(['customer', 'product', 'supplier'] as const).flatMap((kind): ByIdRequest[] => [
    [`GET ${kind}`, (c, w) => c.get(`/${kind}s/${w[kind]}`)],
    [`PUT ${kind}`, (c, w) => c.put(`/${kind}s/${w[kind]}`, { name: 'Overtaget' })],
    [`DELETE ${kind}`, (c, w) => c.del(`/${kind}s/${w[kind]}`)],
  ]),
  ['GET expense', (c, w) => c.get(`/expenses/${w.expense}`)],
  ['PUT expense', (c, w) => c.put(`/expenses/${w.expense}`, { description: 'Overtaget' })],
  ['PUT expense status', (c, w) => c.put(`/expenses/${w.toBook}/status`, { status: 'booked' })],
  ['DELETE expense', (c, w) => c.del(`/expenses/${w.expense}`)],
  ['GET account', (c, w) => c.get(`/accounts/${w.account}`)],
  ['PUT account', (c, w) => c.put(`/accounts/${w.account}`, { name: 'Overtaget' })],
  ['GET transaction', (c, w) => c.get(`/transactions/${w.transaction}`)],
  ['POST transaction reverse', (c, w) => c.post(`/transactions/${w.transaction}/reverse`, {})],
  ['GET voucher', (c, w) => c.get(`/vouchers/${w.voucher}`)],
  ['GET voucher content', (c, w) => c.get(`/vouchers/${w.voucher}/content`)],
  ['DELETE voucher', (c, w) => c.del(`/vouchers/${w.voucher}`)],
  ['GET webhook deliveries', (c, w) => c.get(`/webhooks/${w.webhook}/deliveries`)],
  ['POST webhook delivery replay', (c, w) => c.call('POST', `/webhooks/${w.webhook}/deliveries/${w.delivery}/replay`)],
  ['POST webhook rotate-secret', (c, w) => c.call('POST', `/webhooks/${w.webhook}/rotate-secret`)],
  ['DELETE webhook', (c, w) => c.del(`/webhooks/${w.webhook}`)],
];

/** What the owner sees of the world: every row by its id, the lists' totals, the webhook's secret. */
/**
 * A voucher without what the worker's processing fills in (pending -> completed, the text, vendor and
 * display name, once a minute): the snapshot compares what a request could change, not the worker's timing.
 */
const PROCESSED = new Set(['status', 'processed_at', 'extracted_text', 'vendor', 'vendor_supplier_id', 'display_name', 'updated_at']);
const unprocessed = (v: object) => Object.fromEntries(Object.entries(v).filter(([k]) => !PROCESSED.has(k)));

async function snapshot(c: Api, w: Ids) {
  const bytes = await ok(c.GET('/vouchers/{id}/content', { ...path(w.voucher), parseAs: 'arrayBuffer' }));
  const total = async (list: '/invoices' | '/customers' | '/products' | '/suppliers' | '/expenses' | '/accounts' | '/transactions' | '/vouchers') =>
    (await ok(c.GET(list))).meta.total;
  const { rows: secret } = await testDb().pool.query<{ secret_encrypted: string; deleted_at: Date | null }>(
    'SELECT secret_encrypted, deleted_at FROM webhook_subscriptions WHERE id = $1',
    [w.webhook],
  );
  return {
    invoices: await Promise.all([w.draft, w.toApprove, w.approved].map(async (id) => (await ok(c.GET('/invoices/{id}', path(id)))).data)),
    customer: (await ok(c.GET('/customers/{id}', path(w.customer)))).data,
    product: (await ok(c.GET('/products/{id}', path(w.product)))).data,
    supplier: (await ok(c.GET('/suppliers/{id}', path(w.supplier)))).data,
    expenses: await Promise.all([w.expense, w.toBook].map(async (id) => (await ok(c.GET('/expenses/{id}', path(id)))).data)),
    account: (await ok(c.GET('/accounts/{id}', path(w.account)))).data,
    transaction: (await ok(c.GET('/transactions/{id}', path(w.transaction)))).data,
    voucher: unprocessed((await ok(c.GET('/vouchers/{id}', path(w.voucher)))).data),
    content: createHash('sha256').update(Buffer.from(bytes)).digest('hex'),
    webhooks: (await ok(c.GET('/webhooks'))).data,
    deliveries: await deliveries(c, w.webhook),
    secret,
    totals: await Promise.all(
      (['/invoices', '/customers', '/products', '/suppliers', '/expenses', '/accounts', '/transactions', '/vouchers'] as const).map(total),
    ),
  };
}

const LISTS = ['/invoices', '/customers', '/products', '/suppliers', '/expenses', '/accounts', '/transactions', '/vouchers', '/webhooks'];

/** The ids of every row of every list the credential can read, all pages. */
async function listedIds(c: Raw): Promise<string[]> {
  const ids: string[] = [];
  for (const list of LISTS) {
    for (let page = 1; ; page++) {
      const r = await c.get<{ data: { id: string }[]; meta: { total_pages: number } }>(`${list}?per_page=200&page=${page}`);
      if (r.status !== 200) throw new Error(`${list}: ${r.status} ${r.text}`);
      ids.push(...r.body.data.map((row) => row.id));
      if (page >= r.body.meta.total_pages) break;
    }
  }
  return ids;
}

/** What a credential sees of the world without its ids: in lists, in searches for its word, by the lookup, in the SAF-T file. */
async function sight(c: Attacker, w: World) {
  const owned = new Set(Object.values(w.ids));
  const search = { params: { query: { search: w.marker } } };
  return {
    listed: (await listedIds(c.raw)).filter((id) => owned.has(id)).sort(),
    searched: [
      (await ok(c.api.GET('/customers', search))).meta.total,
      (await ok(c.api.GET('/invoices', search))).meta.total,
      (await ok(c.api.GET('/vouchers', search))).meta.total,
    ],
    lookup: (await c.api.GET('/customers/lookup', { params: { query: { cvr: w.cvr } } })).response.status,
    saft: (await ok(c.api.GET('/exports/saft', { parseAs: 'text' }))).includes(w.marker),
  };
}

/** The attacker's rows it refers from, and its totals (which a refused reference must not change). */
async function attackerRows(c: Api) {
  const customer = (await created(c.POST('/customers', { params: idem(), body: { name: 'Egen kunde' } }))).data.id;
  const invoice = async (auto_approve: boolean) =>
    (
      await created(
        c.POST('/invoices', {
          params: idem(),
          body: { customer_id: customer, issue_date: today, due_date: due, auto_approve, lines: [{ description: 'Egen', quantity: 1, unit_price: 10 }] },
        }),
      )
    ).data.id;
  const [draft, approved] = [await invoice(false), await invoice(true)];
  const expense = (await created(c.POST('/expenses', { params: idem(), body: { date: today, amount: 50, book: true } }))).data.id;
  const draftExpense = (await created(c.POST('/expenses', { params: idem(), body: { date: today, amount: 50 } }))).data.id;
  return { draft, approved, expense, draftExpense };
}

async function attackerTotals(c: Api) {
  return Promise.all([
    (await ok(c.GET('/invoices'))).meta.total,
    (await ok(c.GET('/expenses'))).meta.total,
    (await ok(c.GET('/transactions'))).meta.total,
    (await ok(c.GET('/accounts'))).meta.total,
  ]);
}

/** Bodies of the attacker that name a row of the owner: each is refused with 400 naming the field. */
const REFERENCES: [string, (c: Api, own: Awaited<ReturnType<typeof attackerRows>>, w: World) => Promise<{ response: Response; error?: unknown }>, string][] = [
  [
    'invoice line product_id',
    (c, _own, w) => c.POST('/invoices', { params: idem(), body: { issue_date: today, due_date: due, lines: [{ product_id: w.ids.product, quantity: 1 }] } }),
    'lines[0].product_id',
  ],
  ['invoice update customer_id', (c, own, w) => c.PUT('/invoices/{id}', { ...path(own.draft), body: { customer_id: w.ids.customer } }), 'customer_id'],
  [
    'invoice paid account_id',
    (c, own, w) => c.PUT('/invoices/{id}/status', { ...path(own.approved), body: { status: 'paid', account_id: w.ids.bank } }),
    'account_id',
  ],
  [
    'invoice payment account_id',
    (c, own, w) => c.POST('/invoices/{id}/payments', { params: { path: { id: own.approved }, ...idem() }, body: { amount: 1, account_id: w.ids.bank } }),
    'account_id',
  ],
  [
    'expense supplier_id',
    (c, _own, w) => c.POST('/expenses', { params: idem(), body: { date: today, amount: 10, supplier_id: w.ids.supplier } }),
    'supplier_id',
  ],
  ['expense account_number', (c) => c.POST('/expenses', { params: idem(), body: { date: today, amount: 10, account_number: OWN_ACCOUNT } }), 'account_number'],
  ['expense update supplier_id', (c, own, w) => c.PUT('/expenses/{id}', { ...path(own.draftExpense), body: { supplier_id: w.ids.supplier } }), 'supplier_id'],
  ['expense update voucher_id', (c, own, w) => c.PUT('/expenses/{id}', { ...path(own.draftExpense), body: { voucher_id: w.ids.voucher } }), 'voucher_id'],
  [
    'expense paid account_id',
    (c, own, w) => c.PUT('/expenses/{id}/status', { ...path(own.expense), body: { status: 'paid', account_id: w.ids.bank } }),
    'account_id',
  ],
  [
    'transaction account_number',
    (c) => c.POST('/transactions', { params: idem(), body: twoLinePosting(today, OWN_ACCOUNT, '6470', 10) }),
    'lines[0].account_number',
  ],
];

type Attacker = { api: Api; raw: Raw };
type Owner = Awaited<ReturnType<typeof t.another>>['company'];
const clients = (credential: string): Attacker => ({ api: api(t.svc.url, credential), raw: client(t.svc.url, credential) });

/** Who meets the rows, and where the rows are: each case a fresh owner company (the custom account number is once per chart). */
const CASES: [string, 'live' | 'sandbox', (owner: Owner) => Promise<Attacker>][] = [
  ["another company's live key", 'live', async () => clients((await t.another('Fremmed Nøgle ApS')).key)],
  ["the company's own sandbox (a test key)", 'live', async (owner) => clients((await owner.key(SCOPES, 'test')).key)],
  [
    "another company's OAuth access token",
    'live',
    async () => clients((await connectedApp(t.svc.url, (await t.another('Fremmed Partner ApS')).company, SCOPES)).tokens.access_token),
  ],
  ["the company's live key on its sandbox's rows", 'sandbox', async (owner) => clients((await owner.key(SCOPES, 'live')).key)],
];

/** The status, content type and problem code of an answer, named by what was sent. */
const outcome = (label: string, r: Reply<{ code?: string }>) => ({ label, status: r.status, type: r.headers.get('content-type'), code: r.body.code });
const notFound = (label: string) => ({ label, status: 404, type: expect.stringMatching(/^application\/problem\+json/), code: 'not_found' });

describe("a foreign credential meets a company's rows", () => {
  it.each(CASES)(
    '%s: 404 for every id, in no list, references refused, nothing changed',
    async (_name, where, attackerOf) => {
      const owner = (await t.another('Isolation Ejer ApS')).company;
      const ownerKey = async () => (await owner.key(SCOPES, where === 'live' ? 'live' : 'test')).key;
      const ownerApi = async () => api(t.svc.url, await ownerKey());
      const w = await world(await ownerApi(), `iso${Date.now()}`);
      const attacker = await attackerOf(owner);
      const before = await snapshot(await ownerApi(), w.ids);

      for (const [label, send] of BY_ID) expect(outcome(label, await send(attacker.raw, w.ids))).toEqual(notFound(label));
      // The owner's delivery under the attacker's own subscription.
      const mine = await subscribe(attacker.api, `${hook.url}?m=attacker`, ['invoice.paid']);
      const mixed = await attacker.raw.call('POST', `/webhooks/${mine.id}/deliveries/${w.ids.delivery}/replay`);
      expect(outcome('replay through an own subscription', mixed)).toEqual(notFound('replay through an own subscription'));

      // Lists, searches, the lookup and the SAF-T file: the owner sees its rows there, the attacker none.
      const { delivery: _unlisted, ...listable } = w.ids;
      expect(await sight(clients(await ownerKey()), w)).toEqual({ listed: Object.values(listable).sort(), searched: [2, 3, 1], lookup: 200, saft: true });
      expect(await sight(attacker, w)).toEqual({ listed: [], searched: [0, 0, 0], lookup: 404, saft: false });

      // The attacker's bodies naming the owner's rows.
      const own = await attackerRows(attacker.api);
      const totals = await attackerTotals(attacker.api);
      for (const [label, send, field] of REFERENCES) {
        const r = await send(attacker.api, own, w);
        expect({ label, status: r.response.status, error: r.error }).toEqual({
          label,
          status: 400,
          error: expect.objectContaining({ code: 'invalid_request', field }),
        });
      }
      expect(await attackerTotals(attacker.api)).toEqual(totals);

      expect(await snapshot(await ownerApi(), w.ids)).toEqual(before);
      // The control: the owner's own requests, the same ones, succeed.
      const self = client(t.svc.url, await ownerKey());
      for (const [label, send] of BY_ID)
        expect({ label, status: (await send(self, w.ids)).status }).toEqual({ label, status: expect.toSatisfy((s: number) => s >= 200 && s < 300) });
    },
    60_000,
  );
});
