// GET /audit-trail: the company's control trail (kontrolspor), with the list parameters and its filters.
import { CONTROL_TRAIL_LIST, controlTrailEntry, controlTrailFilters, listControlTrail, type ListParams } from '@tlr/domain';
import { metaOf } from '../crud.ts';
import { list } from '../schemas/envelopes.ts';
import { listQuery } from '../schemas/list-query.ts';
import { authedProcedure, router } from '../trpc.ts';

export const controlTrailRouter = router({
  list: authedProcedure
    .meta(
      metaOf(
        {
          path: '/audit-trail',
          tag: 'Audit trail',
          summary: "List the company's control trail",
          description:
            "One page of the company's registrations and changes, with the contract's list parameters and `meta`: newest first unless `order` is asc, " +
            'ties broken by the entry number. Each entry says who (`registered_by`), when by the database clock (`registered_at`), from which request ' +
            '(`request_id`), what (`resource_type`, `resource_id`) and how (`action`, and for an update `changes`). Support staff actions on the ' +
            'company are in the same list (`resource_type` staff_action). since and until filter on the UTC day of registered_at; search looks in the ' +
            "action, the actor's name and the resource type. Entries are kept for good (at least five years after the end of their financial year, " +
            'bogføringsloven § 10), and the database refuses to change or delete them.',
          scope: 'reports:read',
        },
        'GET',
      ),
    )
    .input(listQuery(CONTROL_TRAIL_LIST, "Case-insensitive search in the action, the actor's name and the resource type").extend(controlTrailFilters.shape))
    .output(list(controlTrailEntry))
    .query(({ ctx, input }) => listControlTrail(ctx.tx, ctx.scope, input as ListParams & typeof input)),
});
