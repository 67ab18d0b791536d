// POST {app_url}/api/oauth/token and /api/oauth/revoke (contract: OAuth 2.0, 5 to 8; RFC 6749 and
// RFC 7009). Bodies are JSON (the contract) or application/x-www-form-urlencoded (RFC 6749); the client
// authenticates with client_id and client_secret in the body or with HTTP Basic. Refusals are RFC 6749
// JSON ({ error, error_description }); going over the endpoint's limit is the service's 429 problem.
import express, { type NextFunction, type Request, type Response } from 'express';
import { problem } from '@tlr/api';
import { inTransaction, type Database } from '@tlr/db';
import {
  authenticateClient,
  countTokenEndpointRequest,
  exchangeAuthorizationCode,
  OAuthError,
  refreshTokens,
  revokeToken,
  type RegisteredClient,
} from '@tlr/domain';
import { sendProblem } from './problem-response.ts';
import { sendRateLimited, setRateLimitHeaders } from './rate-limit-response.ts';

type Body = Record<string, unknown>;

function sendOAuthError(res: Response, e: OAuthError): void {
  res.locals.problem = { code: e.error };
  if (e.status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="tlr oauth"');
  res.status(e.status).json(e.body());
}

/** RFC 6749 2.3.1: Basic credentials are form-urlencoded before base64. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | null | 'malformed' {
  if (!header || !/^basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    return { id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')), secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')) };
  } catch {
    return 'malformed';
  }
}

/** The client id as sent (for the limit, before anything is checked), or ''. */
function claimedClientId(req: Request): string {
  const basic = basicCredentials(req.get('Authorization'));
  if (basic && basic !== 'malformed') return basic.id.slice(0, 100);
  const id = (req.body as Body | undefined)?.client_id;
  return typeof id === 'string' ? id.slice(0, 100) : '';
}

async function clientOf(db: Database, req: Request): Promise<RegisteredClient> {
  const body = req.body as Body;
  const basic = basicCredentials(req.get('Authorization'));
  if (basic === 'malformed') throw new OAuthError('invalid_client', 'The Basic credentials are malformed.');
  if (basic && (body.client_secret !== undefined || (body.client_id !== undefined && body.client_id !== basic.id))) {
    throw new OAuthError('invalid_request', 'Authenticate the client one way: HTTP Basic or client_id and client_secret in the body, not both.');
  }
  const id = basic ? basic.id : body.client_id;
  const secret = basic ? basic.secret : body.client_secret;
  if (id === undefined || secret === undefined) throw new OAuthError('invalid_client', 'client_id and client_secret are required.');
  const client = await authenticateClient(db.prisma, id, secret);
  if (!client) throw new OAuthError('invalid_client', 'Client authentication failed: unknown client, revoked client or wrong secret.');
  return client;
}

/** Both endpoints: parse, count against the limit, authenticate the client, then `handle`. */
function endpoint(db: Database, name: 'token' | 'revoke', handle: (client: RegisteredClient, body: Body, res: Response) => Promise<void>) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      // RFC 6749 5.1 and 5.2: nothing about tokens may be cached, refusals included.
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Pragma', 'no-cache');
      const state = await countTokenEndpointRequest(db.pool, name, claimedClientId(req), req.ip ?? '');
      setRateLimitHeaders(res, state);
      if (state.exceeded) return sendRateLimited(res, state, 'per client and IP address');
      const body = req.body as Body | undefined;
      if (!body || typeof body !== 'object' || Array.isArray(body)) {
        throw new OAuthError('invalid_request', 'The body must be JSON or application/x-www-form-urlencoded parameters.');
      }
      await handle(await clientOf(db, req), body, res);
    } catch (e) {
      if (e instanceof OAuthError) return sendOAuthError(res, e);
      next(e);
    }
  };
}

export function oauthEndpoints(db: Database): express.Router {
  const router = express.Router();
  const inTx = inTransaction(db);
  router.use(express.json({ limit: '16kb', type: ['application/json'] }), express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 }));
  router.use((req, _res, next) => {
    if (req.method === 'POST' && !req.is(['application/json', 'application/x-www-form-urlencoded']))
      return next(new OAuthError('invalid_request', 'Send the parameters as application/json or application/x-www-form-urlencoded.'));
    next();
  });
  router.post(
    '/token',
    endpoint(db, 'token', async (client, body, res) => {
      const grantType = body.grant_type;
      let tokens;
      if (grantType === 'authorization_code') {
        tokens = await exchangeAuthorizationCode(inTx, client, { code: body.code, redirectUri: body.redirect_uri, codeVerifier: body.code_verifier });
      } else if (grantType === 'refresh_token') {
        tokens = await refreshTokens(inTx, client, body.refresh_token);
      } else if (grantType === undefined) {
        throw new OAuthError('invalid_request', 'grant_type is required: authorization_code or refresh_token.');
      } else {
        throw new OAuthError('unsupported_grant_type', `grant_type ${String(grantType)} is not supported; use authorization_code or refresh_token.`);
      }
      res.status(200).json(tokens);
    }),
  );
  router.post(
    '/revoke',
    endpoint(db, 'revoke', async (client, body, res) => {
      // token_type_hint is only a hint (RFC 7009 2.1): the token's own prefix says what it is.
      await revokeToken(db.prisma, client, body.token);
      res.status(200).json({});
    }),
  );
  // Parse failures and the content-type refusal, in RFC 6749 form.
  router.use((err: Error & { type?: string; status?: number }, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof OAuthError) return sendOAuthError(res, err);
    if (err.status && err.status >= 400 && err.status < 500) {
      return sendOAuthError(
        res,
        new OAuthError('invalid_request', err.type === 'entity.too.large' ? 'The body is larger than 16 kB.' : `The body could not be parsed: ${err.message}`),
      );
    }
    next(err);
  });
  router.use((req, res) => {
    res.locals.problem = { code: 'not_found' };
    sendProblem(
      res,
      problem('not_found', `No OAuth endpoint ${req.method} ${req.baseUrl}${req.path}; there are POST /api/oauth/token and POST /api/oauth/revoke.`),
    );
  });
  return router;
}
