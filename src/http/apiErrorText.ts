/**
 * What a person reads for an API error (docs/CONSOLE.md, "Errors and messages"): the provider
 * answers an English `message` with a stable `code` and its `params`. In English the console shows
 * the message as it is; in another language the sentence of the code (`iam.apiErrors.<code>`, in the
 * language's module, src/i18n/apiErrors.ts for the English source) with its params, else the
 * message: never a raw code, never a placeholder left unfilled. Small: the sign-in pages use it too.
 */
import { loadLanguage, uiLocale } from '../i18n/language';

type Params = Record<string, unknown>;

/** The code's sentence in a language's message tree, its %{params} filled; undefined when it has none or a param is missing. */
export function apiErrorSentence(tree: object | undefined, code: string, params: Params = {}): string | undefined {
  let node: unknown = tree;
  for (const part of `iam.apiErrors.${code}`.split('.')) {
    node = node && typeof node === 'object' && Object.hasOwn(node, part) ? (node as Record<string, unknown>)[part] : undefined;
  }
  if (typeof node !== 'string') return undefined;
  let complete = true;
  const sentence = node.replace(/%\{(\w+)\}/g, (match, name: string) => {
    const value = params[name];
    if (typeof value === 'string' || typeof value === 'number') return String(value);
    complete = false;
    return match;
  });
  return complete ? sentence : undefined;
}

/** The words shown for an error body: the code's sentence in the page's language, else the English message. */
export async function apiErrorText(body: unknown, message: string): Promise<string> {
  const language = uiLocale();
  const { code, params } = (body && typeof body === 'object' ? body : {}) as { code?: unknown; params?: unknown };
  if (language === 'en' || typeof code !== 'string') return message;
  const tree = await loadLanguage(language).catch(() => undefined);
  return apiErrorSentence(tree, code, params && typeof params === 'object' ? (params as Params) : {}) ?? message;
}
