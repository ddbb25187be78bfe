/**
 * A tiny translator for the sign-in pages, which must not load react-admin. It reads the same
 * messages (the sign-in part of en.ts) and the same %{name} interpolation as ra-i18n-polyglot.
 */
import { signInMessages } from './signIn';

const messages = { iam: { appTitle: 'IAM Console', ...signInMessages } };

export function translate(key: string, values: Record<string, string | number> = {}): string {
  let node: unknown = messages;
  for (const part of key.split('.')) {
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  }
  if (typeof node !== 'string') return key;
  return node.replace(/%\{(\w+)\}/g, (match, name: string) => (name in values ? String(values[name]) : match));
}
