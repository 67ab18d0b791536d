// /dimensions: the company's dimensions (afdelinger, projekter) and their values; /budgets: budgets per
// fiscal year (docs/dimensions.md; decisions 580 to 587, 810 to 814).
import {
  BUDGET_LIST,
  budgetCreate,
  budgetLinesBody,
  budgetResource,
  budgetUpdate,
  createBudget,
  createDimension,
  DIMENSION_LIST,
  dimensionCreate,
  dimensionResource,
  dimensionUpdate,
  getBudget,
  getDimension,
  listBudgets,
  listDimensions,
  putBudgetLines,
  updateBudget,
  updateDimension,
} from '@tlr/domain';
import { createEndpoint, getEndpoint, listEndpoint, updateEndpoint } from '../crud.ts';
import { router } from '../trpc.ts';

// Dimensions and budgets belong to the chart's settings: the accounts scopes (decisions 580, 811).
const read = 'accounts:read';
const write = 'accounts:write';

export const dimensionsRouter = router({
  list: listEndpoint({
    path: '/dimensions',
    tag: 'Dimensions',
    summary: 'List dimensions',
    scope: read,
    spec: DIMENSION_LIST,
    searchDescription: 'Case-insensitive search in name and description',
    resource: dimensionResource,
    run: listDimensions,
  }),
  get: getEndpoint({ path: '/dimensions/{id}', tag: 'Dimensions', summary: 'Get a dimension', scope: read, resource: dimensionResource, run: getDimension }),
  create: createEndpoint({
    path: '/dimensions',
    tag: 'Dimensions',
    summary: 'Create a dimension',
    description:
      'A name unique in the company (409 conflict otherwise) and its values. required_account_numbers: accounts on which every new journal line must carry a value of it (400 dimension_required naming the line and the dimension).',
    scope: write,
    problems: [409],
    body: dimensionCreate,
    resource: dimensionResource,
    run: createDimension,
  }),
  update: updateEndpoint({
    path: '/dimensions/{id}',
    tag: 'Dimensions',
    summary: 'Update a dimension',
    description:
      'values adds new codes, renames existing ones and retires them (retired: true) or takes them back (false); a value is never deleted, and a retired value stays on the lines posted with it while new lines are refused it (400 dimension_value_retired). The name is fixed.',
    scope: write,
    body: dimensionUpdate,
    resource: dimensionResource,
    run: updateDimension,
  }),
});

export const budgetsRouter = router({
  list: listEndpoint({
    path: '/budgets',
    tag: 'Budgets',
    summary: 'List budgets',
    scope: read,
    spec: BUDGET_LIST,
    searchDescription: 'Case-insensitive search in the name',
    resource: budgetResource,
    run: listBudgets,
  }),
  get: getEndpoint({ path: '/budgets/{id}', tag: 'Budgets', summary: 'Get a budget', scope: read, resource: budgetResource, run: getBudget }),
  create: createEndpoint({
    path: '/budgets',
    tag: 'Budgets',
    summary: 'Create a budget',
    description: 'For one fiscal year, named by its first day; lines may be given here or put later.',
    scope: write,
    body: budgetCreate,
    resource: budgetResource,
    run: createBudget,
  }),
  update: updateEndpoint({
    path: '/budgets/{id}',
    tag: 'Budgets',
    summary: 'Rename a budget',
    scope: write,
    body: budgetUpdate,
    resource: budgetResource,
    run: updateBudget,
  }),
  putLines: updateEndpoint({
    path: '/budgets/{id}/lines',
    tag: 'Budgets',
    summary: "Put a budget's lines",
    description:
      'Bulk put: the lines given replace every line of the budget (an empty list clears it). Each line is a revenue or expense account, a month of the budget’s year and an amount; an account and month given twice: 400 naming the line.',
    scope: write,
    body: budgetLinesBody,
    resource: budgetResource,
    run: putBudgetLines,
  }),
});
