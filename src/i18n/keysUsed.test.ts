/**
 * Every key of the English tree (en.ts with signIn.ts, screens.ts) is used somewhere in src/: its
 * whole text is there, or the code builds it from a prefix that is (`iam.audit.actions.${action}`,
 * a declaration's choiceLabelPrefix), or, for resources.<name>.name and .fields.<source> (react-admin
 * builds them from the declarations), its name and source are. docs/CONSOLE.md, "Languages".
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { en } from './en';
import { messagesOf } from './messageKeys';
import { screens } from './screens';

const SRC = path.resolve(__dirname, '..');
const MESSAGE_FILES = /[\\/]i18n[\\/](?:en|screens|signIn|reactAdmin)\.ts$|[\\/]i18n[\\/]locales[\\/]/;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !MESSAGE_FILES.test(file) ? [file] : [];
  });
}
const code = sources(SRC)
  .map((file) => fs.readFileSync(file, 'utf8'))
  .join('\n');

/**
 * Keys no code names, with the reason. Keep it short: a key that is simply unused is deleted instead.
 */
const ALLOWED: Record<string, string> = {
  // react-admin's own keys that ours override: react-admin's code translates them
  'ra.notification.created': "react-admin's create notification, said with its place",
  'ra.saved_queries.label': "react-admin's saved queries menu, called saved views here",
  'ra.saved_queries.query_name': "react-admin's saved queries dialog",
  'ra.saved_queries.new_label': "react-admin's saved queries menu",
  'ra.saved_queries.new_dialog_title': "react-admin's saved queries dialog",
  'ra.saved_queries.remove_label': "react-admin's saved queries menu",
  'ra.saved_queries.remove_label_with_name': "react-admin's saved queries menu",
  'ra.saved_queries.remove_dialog_title': "react-admin's saved queries dialog",
  'ra.saved_queries.remove_message': "react-admin's saved queries dialog",
  'ra.saved_queries.help': "react-admin's saved queries menu",
};

/** The text as a whole string in the code: 'text', "text" or `text`. */
const quoted = (text: string) => ["'", '"', '`'].some((mark) => code.includes(`${mark}${text}${mark}`));

/**
 * The key, or its parent or grandparent as a prefix the code completes: `iam.audit.actions.${action}`,
 * 'iam.outbox.purposes.' + purpose, or a declaration's choiceLabelPrefix / labelPrefix 'iam.x.y'.
 */
function used(key: string): boolean {
  if (quoted(key)) return true;
  const parts = key.split('.');
  for (const end of [parts.length - 1, parts.length - 2]) {
    if (end < 2) continue;
    const prefix = parts.slice(0, end).join('.');
    if (quoted(prefix) || quoted(`${prefix}.`) || code.includes(`\`${prefix}.\${`)) return true;
  }
  return false;
}

/** resources.<name>.name|columns.<x>|fields.<source>: the declared name and the source appear in src/. */
function declared(key: string): boolean {
  const [, name, kind, source] = key.split('.');
  if (used(key)) return true;
  if (!quoted(name)) return false;
  return kind === 'name' || quoted(source) || code.includes(`${source}:`);
}

/** The provider's sources: the API error codes' sentences (iam.apiErrors.<code>) are used when the server answers their code. */
const server = sources(path.resolve(SRC, '../server'))
  .map((file) => fs.readFileSync(file, 'utf8'))
  .join('\n');
const quotedInServer = (text: string) => ["'", '"', '`'].some((mark) => server.includes(`${mark}${text}${mark}`));

/** iam.apiErrors.<code>: the server names the code whole ('a.b'), or builds it from its parent (`a.${…}`) and names its last part. */
function answered(key: string): boolean {
  const errorCode = key.slice('iam.apiErrors.'.length);
  if (quotedInServer(errorCode)) return true;
  const parts = errorCode.split('.');
  return parts.length > 1 && server.includes(`\`${parts.slice(0, -1).join('.')}.\${`) && quotedInServer(parts[parts.length - 1]);
}

describe('the English keys', () => {
  it('are each used in src/ (or allowed, with a reason); an API error code\'s sentence, by the server', () => {
    const keys = [...messagesOf(en).keys(), ...messagesOf(screens).keys()];
    const usedBy = (key: string) => (key.startsWith('resources.') ? declared(key) : key.startsWith('iam.apiErrors.') ? answered(key) : used(key));
    const unused = keys.filter((key) => !ALLOWED[key] && !usedBy(key));
    expect(unused).toEqual([]);
  });
});
