// The OpenAPI document as the tests read it (openapi, openapi-lint, fuzz, docs-page, platform): the
// parts they inspect, typed, and how to fetch and walk the served document.
import { client } from './helpers.ts';

/**
 * The parts of an OpenAPI 3.1 document the tests read, as the served document writes them: schemas
 * (a `$ref` only to components.schemas), parameters, responses and headers inline.
 */
export interface OpenApiSchema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  pattern?: string;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  description?: string;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  items?: OpenApiSchema;
  anyOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
  not?: OpenApiSchema;
}
export interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: OpenApiSchema;
}
export interface OpenApiHeader {
  description?: string;
  schema?: OpenApiSchema;
}
export interface OpenApiResponse {
  description: string;
  headers?: Record<string, OpenApiHeader>;
  content?: Record<string, { schema?: OpenApiSchema }>;
}
export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: OpenApiParameter[];
  requestBody?: { content: Record<string, { schema?: OpenApiSchema }> };
  responses: Record<string, OpenApiResponse>;
  security?: Record<string, string[]>[];
  'x-required-scopes'?: string[];
}
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export type OpenApiPathItem = Partial<Record<HttpMethod, OpenApiOperation>> & { servers?: { url: string }[] };
/** (A type, not an interface, so that it is a plain JSON object to the validators that take one.) */
export type OpenApiDocument = {
  openapi: string;
  info: { title: string; version: string; contact?: { name?: string; email?: string }; license?: { name: string; identifier?: string } };
  servers: { url: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, OpenApiPathItem>;
  components: {
    schemas: Record<string, OpenApiSchema>;
    headers: Record<string, OpenApiHeader>;
    securitySchemes: Record<string, { type: string; in?: string; name?: string; flows?: Record<string, OpenApiOAuthFlow> }>;
  };
};
export interface OpenApiOAuthFlow {
  authorizationUrl: string;
  tokenUrl: string;
  refreshUrl: string;
  scopes: Record<string, string>;
}

/** The OpenAPI document {base_url}/openapi.json serves (public). */
export async function servedDocument(baseUrl: string): Promise<OpenApiDocument> {
  const res = await fetch(`${baseUrl}/api/v1/openapi.json`);
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  return (await res.json()) as OpenApiDocument;
}

/** Every operation of the document, with its path, method and path item. */
export const operationsOf = (doc: OpenApiDocument) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.flatMap((method) => {
      const op = item[method];
      return op ? [{ path, method, op, item }] : [];
    }),
  );

/** The document's operation at `path` and `method`; a missing one fails the test. */
export function operationOf(doc: OpenApiDocument, path: string, method: HttpMethod): OpenApiOperation {
  const op = doc.paths[path]?.[method];
  if (!op) throw new Error(`the document has no ${method.toUpperCase()} ${path}`);
  return op;
}

/**
 * The discovery document (GET {base_url}/): the OpenAPI document declares its body only as an object,
 * so its shape, as far as the tests read it, is written here.
 */
export interface Discovery {
  status: string;
  version: string;
  authentication: {
    api_key: { header: string; formats: string[] };
    oauth2: Record<'authorization_url' | 'token_url' | 'revocation_url' | 'metadata_url', string>;
    scopes: string[];
  };
  endpoints: { method: string; path: string; summary: string; scopes: string[] }[];
  features: string[];
}
export const discovery = (baseUrl: string) => client(baseUrl).get<{ data: Discovery }>('/');
