import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorCatalogue } from '@latchkey/core';

/** docs/errors.md, rendered from the one catalogue in packages/core/src/errors.ts. */
export function renderErrorsDoc(): string {
  const rows = Object.entries(errorCatalogue)
    .sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b))
    .map(([type, { status, message }]) => `| ${status} | \`${type}\` | ${message} |`);
  return `# Errors

Every failure is a non-2xx response with this JSON body (and the same \`request_id\` in the
\`X-Request-Id\` header, which every response carries):

\`\`\`json
{
  "status_code": 404,
  "request_id": "req_Vq3Hk2pX0cM1nR8a",
  "error_type": "user_not_found",
  "error_message": "No user with this id."
}
\`\`\`

For 400s an extra \`error_field\` names the request field at fault as a dotted path
(\`name.first_name\`, \`rules.1.kind\`). A request that fails validation (\`invalid_field\`,
\`missing_field\`, \`unknown_field\`) is answered for its first bad field, at its full path however
deep (inside unions too: the form the request was meant as, told by the fields it sent), and the
message says the path as it reads in JSON and what was expected, never the value sent:
\`Invalid field 'eth_transaction.type': expected one of "legacy", "eip1559", 0, 2\`,
\`Invalid field 'rules[0].addresses[3]': An EVM address: 0x and 40 hex digits.\`,
\`Missing required field 'typed_data.primaryType'.\`. 429s carry a \`Retry-After\` header in
seconds. A 500 never carries a stack trace or a secret; 503 \`storage_unavailable\` means the
database could not be reached and the request changed nothing: retry it.

Unknown ids and another App's ids answer the same 404: an App cannot learn that another App's
resource exists. Services called directly throw \`LatchkeyError\` with the same \`errorType\` and
\`status\`.

| status | error_type | meaning |
|---|---|---|
${rows.join('\n')}

This table is generated from \`packages/core/src/errors.ts\` by \`npm run docs:errors\`; a test fails
when it is out of date.
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(new URL('../docs/errors.md', import.meta.url), renderErrorsDoc());
}
