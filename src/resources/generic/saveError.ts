import type { ValidationErrorMessage } from 'react-admin';
import type { FieldDeclaration } from '../types';
import { RULE_MESSAGES } from './fieldChecks';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** The provider's wording for a duplicate within a tenant; the value it names is the one that clashed. */
const DUPLICATE = /^duplicated error: (.*) already exist!$/;

/**
 * The message a failed save shows (docs/CONSOLE.md, "Errors and messages"): a duplicate 409 shows
 * 'duplicated error: {name} already exist!' naming the value the provider says clashed (an email
 * as well as a username), or the form's name when the provider gave no message; any other 409 (an
 * id not available, a company type rule) and any other error shows the provider's own sentence.
 */
export function saveErrorMessage(error: unknown, name: string, translate: Translate): string {
  const status = (error as { status?: number })?.status;
  const message = (error as { message?: string })?.message;
  if (status === 409) {
    const duplicate = DUPLICATE.exec(message ?? '');
    if (duplicate || !message) return translate('iam.errors.duplicated', { name: duplicate?.[1] ?? name });
  }
  return message || translate('ra.notification.http_error');
}

/** What a form shows for a failed save: sentences under its inputs, and/or an alert above them. */
export interface SaveFailure {
  /** react-admin's submission errors, by input source, already in words. */
  fieldErrors?: Record<string, string>;
  /** The alert above the form: a lead sentence (for the provider's unexplained refusals) and a message. */
  alert?: { title?: string; message: string };
}

export interface FormFields {
  /** Sources of the inputs the form shows. */
  sources: readonly string[];
  /** The declaration's fields (their rules give the sentence for a pattern the provider refused). */
  fields?: readonly FieldDeclaration[];
  /** Provider field -> input source, when they differ: `id` is the name field, authVerification the password. */
  aliases?: Record<string, string>;
  /** The record's name, for a duplicate without a message. */
  name: string;
}

/** The provider's words after the field (Ajv's and its own), as a sentence for people. */
function sentence(phrase: string, field: FieldDeclaration | undefined): ValidationErrorMessage {
  let match: RegExpExecArray | null;
  if (/^must match format "(idn-)?email"$/.test(phrase)) return RULE_MESSAGES.email;
  if (/^must have required property|^must NOT have fewer than 1 characters$/.test(phrase)) return 'ra.validation.required';
  if ((match = /^must NOT have more than (\d+) characters$/.exec(phrase))) return { message: 'iam.validation.maxLength', args: { max: match[1] } };
  if ((match = /^must NOT have more than (\d+) items$/.exec(phrase))) return { message: 'iam.validation.maxItems', args: { max: match[1] } };
  if (phrase === 'must match pattern "\\S"') return 'iam.validation.blank';
  const rule = field?.rule ?? (field?.kind === 'email' ? 'email' : undefined);
  if (/^must (match pattern|NOT have fewer than)/.test(phrase) && rule) return RULE_MESSAGES[rule];
  if ((match = /^must be <= (\d+)$/.exec(phrase))) return { message: 'iam.validation.max', args: { max: match[1] } };
  if ((match = /^must be >= (\d+)$/.exec(phrase))) return { message: 'iam.validation.min', args: { min: match[1] } };
  if (/^must be (integer|number)$/.test(phrase)) return 'iam.validation.integer';
  if (phrase === 'must be equal to one of the allowed values') return 'iam.validation.choice';
  if ((match = /^"(.*)" is reserved$/.exec(phrase))) return { message: 'iam.validation.reserved', args: { value: match[1] } };
  if (/^cannot be changed/.test(phrase)) return 'iam.validation.locked';
  return { message: 'iam.validation.refused', args: { reason: phrase } };
}

const words = (message: ValidationErrorMessage, translate: Translate) =>
  typeof message === 'string' ? translate(message) : translate(message.message, message.args);

/**
 * A failed save in words (docs/CONSOLE.md, "Errors and messages"). A 400 naming a field the form
 * shows (react-admin's body.errors, filled by the HTTP client) becomes a sentence under that input;
 * a duplicate 409 keeps the provider's sentence above the form; anything else is shown above the
 * form after "The provider refused the change:".
 */
export function describeSaveFailure(error: unknown, form: FormFields, translate: Translate): SaveFailure {
  const status = (error as { status?: number })?.status;
  const message = (error as { message?: string })?.message;
  const named = (error as { body?: { errors?: Record<string, unknown> } })?.body?.errors;
  if (named && typeof named === 'object') {
    const fieldErrors: Record<string, string> = {};
    for (const [providerField, phrase] of Object.entries(named)) {
      const source = form.aliases?.[providerField] ?? providerField;
      if (!form.sources.includes(source)) continue;
      const field = form.fields?.find((candidate) => candidate.source === source);
      fieldErrors[source] = words(sentence(String(phrase), field), translate);
    }
    if (Object.keys(fieldErrors).length > 0) return { fieldErrors };
  }
  // a duplicate in another language: the sentence of its code (src/http/apiErrorText.ts)
  const duplicate = (error as { body?: { code?: unknown } })?.body?.code === 'duplicate';
  if (status === 409 && (!message || duplicate || DUPLICATE.test(message))) {
    return { alert: { message: saveErrorMessage(error, form.name, translate) } };
  }
  return { alert: { title: translate('iam.errors.refused'), message: message || translate('ra.notification.http_error') } };
}
