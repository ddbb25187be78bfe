/**
 * No component shows a literal user-facing word that does not go through translation
 * (docs/CONSOLE.md, "Languages"): in every src/**\/*.tsx, JSX text and the string props a person
 * reads or hears (label, title, aria-label, placeholder, helperText, alt, tooltip…) hold no literal
 * word, unless allowed below with the reason. Parsed with TypeScript's own parser.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(__dirname, '..');
const READ_PROPS = new Set(['label', 'title', 'aria-label', 'placeholder', 'helperText', 'alt', 'tooltip', 'emptyText', 'aria-description', 'aria-valuetext']);
/** A word: two letters in a row, in any script ("OK", "Nom", "名前"). Symbols, digits and punctuation pass. */
const WORD = /\p{L}{2}/u;

/** file → literals it may show, each with its reason. */
const ALLOWED: Record<string, Record<string, string>> = {
  'resources/connections/EmailDomains.tsx': { 'example.com': 'an example domain name, the same in every language' },
  'i18n/LanguageSelect.tsx': {
    'Language · Langue · Sprache · Idioma · 言語 · اللغة': 'the language menu is named in every language at once, so who cannot read the current one finds it',
  },
};

function tsxFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'test' ? [] : tsxFiles(file);
    return entry.name.endsWith('.tsx') && !/\.test\.tsx$/.test(entry.name) ? [file] : [];
  });
}

/** The literal words a file shows: JSX text, and string values of the props a person reads. */
function literalsOf(file: string): { text: string; line: number }[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: { text: string; line: number }[] = [];
  const add = (text: string, node: ts.Node) => {
    const trimmed = text.replace(/\s+/g, ' ').trim();
    if (WORD.test(trimmed)) found.push({ text: trimmed, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
  };
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node)) add(node.text, node);
    if (ts.isJsxAttribute(node) && READ_PROPS.has(node.name.getText(source)) && node.initializer) {
      const value = node.initializer;
      if (ts.isStringLiteral(value)) add(value.text, value);
      else if (ts.isJsxExpression(value) && value.expression && (ts.isStringLiteral(value.expression) || ts.isNoSubstitutionTemplateLiteral(value.expression))) {
        add(value.expression.text, value.expression);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A label given as a translation key ("iam.layout.search", "ra.action.save", "resources.users.name"): react-admin translates it. */
const KEY = /^(?:iam|ra|resources)\.[\w.-]+$/;

describe('components', () => {
  it('show no literal word that does not go through translation', () => {
    const literal: string[] = [];
    for (const file of tsxFiles(SRC)) {
      const name = path.relative(SRC, file).split(path.sep).join('/');
      for (const { text, line } of literalsOf(file)) {
        if (KEY.test(text) || ALLOWED[name]?.[text]) continue;
        literal.push(`${name}:${line} ${text}`);
      }
    }
    expect(literal).toEqual([]);
  });
});
