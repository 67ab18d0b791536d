// The OpenAPI document as the tests read it (openapi, openapi-lint, fuzz, docs-page, platform): the
// parts they inspect, typed, and how to fetch and walk the served document.
/**
 * The parts of an OpenAPI 3.1 document the tests read, as the served document writes them: schemas
 * (a `$ref` only to components.schemas), parameters inline or the shared X-Request-ID by `$ref`
 * (`parametersOf` resolves it), responses and headers.
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
  parameters?: (OpenApiParameter | { $ref: string })[];
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
    parameters?: Record<string, OpenApiParameter>;
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

/** An operation's parameters, a `$ref` resolved to its component. */
export function parametersOf(doc: OpenApiDocument, op: OpenApiOperation): OpenApiParameter[] {
  return (op.parameters ?? []).map((p) => {
    if (!('$ref' in p)) return p;
    const shared = doc.components.parameters?.[p.$ref.replace('#/components/parameters/', '')];
    if (!shared) throw new Error(`the document has no parameter ${p.$ref}`);
    return shared;
  });
}
