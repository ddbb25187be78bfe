/**
 * Every refusal of the management API carries a stable code the console translates, and every code
 * the server gives has its sentence (docs/CONSOLE.md, "Errors and messages"), read from the sources:
 * a refusal added without `.as(code, params)` shows in English in every language, and is caught here.
 * The hosted pages (server/oauth, server/mfa, server/upstream) translate their sentences themselves
 * (server/i18n); SCIM answers its own error form.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiErrors } from '../../src/i18n/apiErrors.js';

const SERVER = path.resolve(__dirname, '../../server');
const HOSTED = /^(oauth|mfa|upstream|scim|i18n)[\\/]/;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}
const files = sources(SERVER).map((file) => ({ name: path.relative(SERVER, file), text: fs.readFileSync(file, 'utf8') }));

/** The text of the call that opens at `start` (its parentheses balanced; strings and templates skipped), and where it ends. */
function callEnd(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"' || c === '`') {
      // a string: skip to its end (templates' ${…} may hold parentheses, balanced)
      for (i++; i < text.length && text[i] !== c; i++) {
        if (text[i] === '\\') i++;
        else if (c === '`' && text[i] === '$' && text[i + 1] === '{') i = callEnd(text, i + 1);
      }
    } else if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return text.length;
}

/**
 * `badRequest(…)`, `forbidden(…)` with a sentence, and `new HttpError(4xx, …)` not followed by
 * `.as(`; a file's own maker of them (`const invalid = (what) => badRequest(…)`) counts as one of
 * them wherever it is called, and not where it is made.
 */
function uncoded(text: string): string[] {
  const found: string[] = [];
  const coded = (end: number) => /^\s*\.as\(/.test(text.slice(end + 1, end + 200));
  // makers whose refusal has no code yet: their callers give it; where each one's own call starts
  const makers = [...text.matchAll(/const (\w+) = \([^)]*\) =>\s*(badRequest\(|new HttpError\(4\d\d,)/g)].filter(
    (maker) => !coded(callEnd(text, maker.index + maker[0].length - maker[2].length + maker[2].indexOf('('))),
  );
  const inMakers = new Set(makers.map((maker) => maker.index + maker[0].length - maker[2].length));
  const callers = makers.map((maker) => `|\\b${maker[1]}\\(`).join('');
  for (const match of text.matchAll(new RegExp(`\\bbadRequest\\(|\\bforbidden\\((?!\\))|new HttpError\\(4\\d\\d,${callers}`, 'g'))) {
    if (inMakers.has(match.index)) continue;
    const open = match.index + match[0].indexOf('(');
    const end = callEnd(text, open);
    if (!coded(end)) found.push(text.slice(match.index, Math.min(end + 1, match.index + 120)).replace(/\s+/g, ' '));
  }
  return found;
}

/** Whether `code` (a.b.c) is a sentence of the English tree, or with `subtree`, a group of sentences. */
function sentenceOf(code: string, subtree = false): boolean {
  let node: unknown = apiErrors;
  for (const part of code.split('.')) node = node && typeof node === 'object' && Object.hasOwn(node, part) ? (node as Record<string, unknown>)[part] : undefined;
  return subtree ? typeof node === 'object' && node !== null : typeof node === 'string';
}

describe('the codes of the management API', () => {
  it('every refusal outside the hosted pages carries a code', () => {
    const missing = files
      .filter((file) => !HOSTED.test(file.name) && file.name !== 'errors.ts')
      .flatMap((file) => uncoded(file.text).map((call) => `${file.name}: ${call}`));
    expect(missing).toEqual([]);
  });

  it('every code the server gives has its sentence (and the console then has it in every language)', () => {
    const named = new Set<string>();
    const built = new Set<string>();
    for (const file of files) {
      // the code, not its comments (errors.ts shows `.as('x', …)` as an example)
      const code = file.text.replace(/^\s*(\/\*\*|\*|\/\/).*$/gm, '');
      for (const match of code.matchAll(/\.as\(\s*'([\w.]+)'/g)) named.add(match[1]);
      for (const match of code.matchAll(/\.as\(\s*`([\w.]+)\.\$\{/g)) built.add(match[1]);
    }
    // the generic codes of a status whose message alone explains it
    const generic = new Set(['bad_request', 'forbidden', 'conflict']);
    expect(named.size).toBeGreaterThan(100);
    expect([...named].filter((code) => !generic.has(code) && !sentenceOf(code))).toEqual([]);
    expect([...built].filter((prefix) => !sentenceOf(prefix, true))).toEqual([]);
  });

  it('the scan finds a refusal without a code, and sees one that has it', () => {
    expect(uncoded("throw badRequest(`${field}: (a) is wrong`);")).toHaveLength(1);
    expect(uncoded("throw badRequest(`${f(x)}: wrong`).as('x.y', { field });")).toEqual([]);
    expect(uncoded("throw new HttpError(409, 'taken')\n  .as('x.taken');")).toEqual([]);
    expect(uncoded('throw new HttpError(500, "ours");')).toEqual([]);
    const maker = "const invalid = (what: string) => badRequest(`hash ${what}`);\n";
    expect(uncoded(`${maker}throw invalid('salt').as('h.salt');`)).toEqual([]);
    expect(uncoded(`${maker}throw invalid('salt');`)).toEqual(["invalid('salt')"]);
  });
});
