import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

/**
 * The server's layers (docs/ARCHITECTURE.md): the management API (api/) and the sign-in server
 * (oauth/, mfa/, upstream/) are two doors over one layer of account rules (accounts/); neither door imports the
 * other, the shared layer imports neither, and db/ imports no route code. SCIM (scim/) is a third
 * door; the jobs (jobs/) and branding (branding/) are the API's and import no other door; i18n/ is shared.
 */
const SERVER = path.resolve('server');
const FORBIDDEN: Record<string, string[]> = {
  api: ['oauth', 'mfa', 'upstream'],
  oauth: ['api'],
  mfa: ['api'],
  upstream: ['api'],
  mail: ['api', 'oauth', 'mfa', 'upstream', 'scim', 'jobs'],
  accounts: ['api', 'oauth', 'mfa', 'upstream', 'scim', 'jobs'],
  db: ['api', 'oauth', 'mfa', 'upstream', 'scim', 'jobs', 'branding'],
  // a third door (provisioning clients), over the same account rules
  scim: ['api', 'oauth', 'mfa', 'upstream'],
  // the management API's background work and a company's branding: read by the API, never by the sign-in door's code
  jobs: ['oauth', 'mfa', 'upstream', 'scim'],
  branding: ['oauth', 'mfa', 'upstream', 'scim'],
  // the hosted pages' and e-mails' languages: shared words, no door
  i18n: ['api', 'oauth', 'mfa', 'upstream', 'scim', 'jobs'],
};

function importsOf(file: string): string[] {
  const source = fs.readFileSync(file, 'utf8');
  return [...source.matchAll(/(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)].map((match) => path.relative(SERVER, path.resolve(path.dirname(file), match[1])));
}

it('neither door imports the other; accounts/, mail/ and db/ import no door', () => {
  const crossings: string[] = [];
  for (const [folder, forbidden] of Object.entries(FORBIDDEN)) {
    for (const name of fs.readdirSync(path.join(SERVER, folder))) {
      if (!/\.(ts|mjs|js)$/.test(name)) continue;
      for (const target of importsOf(path.join(SERVER, folder, name))) {
        if (forbidden.includes(target.split(path.sep)[0])) crossings.push(`${folder}/${name} -> ${target}`);
      }
    }
  }
  expect(crossings).toEqual([]);
});
