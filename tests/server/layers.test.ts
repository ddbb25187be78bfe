import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

/**
 * The server's layers (docs/ARCHITECTURE.md): the management API (api/) and the sign-in server
 * (oauth/, mfa/, upstream/) are two doors over one layer of account rules (accounts/); neither door imports the
 * other, the shared layer imports neither, and db/ imports no route code.
 */
const SERVER = path.resolve('server');
const FORBIDDEN: Record<string, string[]> = {
  api: ['oauth', 'mfa', 'upstream'],
  oauth: ['api'],
  mfa: ['api'],
  upstream: ['api'],
  mail: ['api', 'oauth', 'mfa', 'upstream'],
  accounts: ['api', 'oauth', 'mfa', 'upstream'],
  db: ['api', 'oauth', 'mfa', 'upstream'],
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
