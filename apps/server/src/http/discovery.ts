// GET /api/v1/ : the service discovery document (name, status, version, authentication, endpoints,
// features), public like the OpenAPI document; its shape and content are the API package's.
import type { Request, Response } from 'express';
import { discoveryDocument } from '@tlr/api';

// Built once: the procedures and the rules it is made from do not change while the process runs.
let body: { data: ReturnType<typeof discoveryDocument> } | undefined;

export function discovery(_req: Request, res: Response) {
  body ??= { data: discoveryDocument() };
  res.json(body);
}
