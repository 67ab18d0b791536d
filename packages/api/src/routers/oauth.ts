// Internal procedures of OAuth 2.0 and of the owner pages: partner clients (the operator CLI, admin
// staff), the consent that issues a code, and a company's connected apps (its owner, and staff).
import { z } from 'zod';
import {
  createOAuthClient,
  issueAuthorizationCode,
  listOAuthClients,
  listOAuthGrants,
  ownedCompanies,
  revokeOAuthClient,
  revokeOAuthGrant,
  SCOPES,
  forbidden,
} from '@tlr/domain';
import { uuid } from '@tlr/domain/fields';
import { internalProcedure, router } from '../trpc.ts';

const companyId = uuid();
const ownerOnly = (actor: { type: string } | null) => {
  if (actor?.type !== 'owner') throw forbidden('Only the company owner, signed in, approves an application.');
  return actor as { type: 'owner'; userId: string };
};

export const oauthRouter = router({
  createClient: internalProcedure
    .input(
      z.strictObject({
        name: z.string(),
        redirectUris: z.array(z.string().max(2000)).max(20),
        scopes: z.array(z.enum(SCOPES)),
        contact: z.string().max(320).optional(),
      }),
    )
    .mutation(({ ctx, input }) => createOAuthClient(ctx.tx, input, ctx.oauthAllowLocalhost ?? false)),
  listClients: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({}))
    .query(({ ctx }) => listOAuthClients(ctx.tx)),
  revokeClient: internalProcedure
    .meta({ staffRole: 'admin' })
    .input(z.strictObject({ clientId: z.string().max(100) }))
    .mutation(({ ctx, input }) => revokeOAuthClient(ctx.tx, input.clientId)),
  /** The companies the signed-in owner may act for (the company select of the pages). */
  myCompanies: internalProcedure
    .meta({ owner: true })
    .input(z.strictObject({}))
    .query(({ ctx }) => ownedCompanies(ctx.tx, ownerOnly(ctx.actor).userId)),
  /** The owner approved on the consent page: a code for the client's redirect. */
  approve: internalProcedure
    .meta({ owner: true })
    .input(
      z.strictObject({
        companyId,
        clientId: z.string().max(100),
        redirectUri: z.string().max(2000),
        scopes: z.array(z.string().max(50)).max(SCOPES.length),
        codeChallenge: z.string().max(200),
      }),
    )
    .mutation(async ({ ctx, input }) => ({ code: await issueAuthorizationCode(ctx.tx, { ...input, userId: ownerOnly(ctx.actor).userId }) })),
  listGrants: internalProcedure
    .meta({ owner: true, staffRole: 'support' })
    .input(z.strictObject({ companyId }))
    .query(({ ctx, input }) => listOAuthGrants(ctx.tx, input.companyId)),
  revokeGrant: internalProcedure
    .meta({ owner: true, staffRole: 'admin' })
    .input(z.strictObject({ companyId, id: uuid() }))
    .mutation(({ ctx, input }) => revokeOAuthGrant(ctx.tx, input.companyId, input.id)),
});
