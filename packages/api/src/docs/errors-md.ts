// docs/errors.md, generated from the one table of error codes (packages/domain/src/error-codes.ts):
//   npm run docs:errors      (writes the file; a test fails while it is out of date)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES } from '@tlr/domain';

export const ERRORS_MD = join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'errors.md');

const INTRO = `# Errors

<!-- Generated from packages/domain/src/error-codes.ts by \`npm run docs:errors\`; edit the table there. -->

Every error is an RFC 9457 problem, \`Content-Type: application/problem+json\`:

\`\`\`json
{
  "type": "https://tlr.dk/problems/invalid_request",
  "title": "Invalid request",
  "status": 400,
  "detail": "cvr: has a wrong check digit (not a valid CVR number by the modulus 11 rule; check for a typing error)",
  "code": "invalid_request",
  "field": "cvr",
  "errors": [{ "field": "cvr", "message": "has a wrong check digit (not a valid CVR number by the modulus 11 rule; check for a typing error)" }]
}
\`\`\`

\`type\`, \`title\`, \`status\`, \`detail\` and \`code\` are always present; there is never an \`error\` field.
\`field\` names the body field, query parameter, path parameter or header at fault when there is one
(\`lines[0].quantity\` for nested fields; \`body\` for the body as a whole); \`errors\` lists every validation
failure when there were several. Error responses carry \`X-Request-ID\` and \`X-API-Version\` like every
response, and the rate-limit headers whenever a credential was identified (so not on 401); 429 and 503
carry \`Retry-After\` (seconds). \`code\` is the stable, machine-readable part; \`detail\` is for people and may
change wording.

In-process callers (the operator CLI, the admin app) get the same problem as a tRPC error: its \`code\` is
the tRPC code of the status (400 BAD_REQUEST, 401 UNAUTHORIZED, 403 FORBIDDEN, 404 NOT_FOUND,
409 CONFLICT, 422 UNPROCESSABLE_CONTENT, 429 TOO_MANY_REQUESTS, 503 SERVICE_UNAVAILABLE, else
INTERNAL_SERVER_ERROR), its \`message\` the problem's \`detail\`, and \`data.problem\` the problem itself.
`;

export function errorsMarkdown(): string {
  const rows = Object.entries(ERROR_CODES).map(([code, spec]) => `| ${spec.status} | \`${code}\` | ${spec.title} | ${spec.when} |`);
  return `${INTRO}\n| status | code | title | when |\n|---|---|---|---|\n${rows.join('\n')}\n`;
}

if (process.argv[1] === import.meta.filename) {
  writeFileSync(ERRORS_MD, errorsMarkdown());
  process.stdout.write(`wrote ${ERRORS_MD}\n`);
}
