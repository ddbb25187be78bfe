import type { ValidationErrorMessage, Validator } from 'react-admin';
import type { FieldDeclaration, FieldRule } from '../types';
import { isEmailAddress } from './emailAddress';

/**
 * The provider's limits, checked in the browser so a form says what is wrong under the field before
 * anything is sent (docs/CONSOLE.md, "Errors and messages"). Each rule is the provider's own:
 * server/api/schemas.ts and the resource modules under server/api/.
 */
const PATTERNS: Partial<Record<FieldRule, RegExp>> = {
  // ids in paths: schemas.ts idPattern
  id: /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/,
  clientId: /^[A-Za-z0-9_-]{8,64}$/,
  clientSecret: /^[\x21-\x7E]{16,128}$/,
  noSpaces: /^\S+$/,
  // an OAuth scope token (RFC 6749 3.3) without " ' and \ (permissionScopes.ts)
  scope: /^[\x21\x23-\x26\x28-\x5B\x5D-\x7E]{1,100}$/,
};

/** The sentence each rule shows under its field (i18n keys). */
export const RULE_MESSAGES: Record<FieldRule, string> = {
  id: 'iam.validation.id',
  email: 'iam.validation.email',
  clientId: 'iam.validation.clientId',
  clientSecret: 'iam.validation.clientSecret',
  noSpaces: 'iam.validation.noSpaces',
  scope: 'iam.validation.scope',
  httpUrl: 'iam.validation.httpUrl',
};

/** Most entries a URI list may hold (applications.ts uriList). */
const MAX_URIS = 100;

/** Ajv counts characters as code points, not UTF-16 units. */
const characters = (text: string) => [...text].length;

const ruleOf = (field: FieldDeclaration): FieldRule | undefined => field.rule ?? (field.kind === 'email' ? 'email' : undefined);

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

function checkText(field: FieldDeclaration, text: string): ValidationErrorMessage | undefined {
  if (text === '') return undefined;
  if (field.maxLength !== undefined && characters(text) > field.maxLength) {
    return { message: 'iam.validation.maxLength', args: { max: field.maxLength } };
  }
  const rule = ruleOf(field);
  if (rule === 'email' && !isEmailAddress(text)) return RULE_MESSAGES.email;
  // the provider trims these two before checking them (checkWebUri)
  if (rule === 'httpUrl' && text.trim() && !isHttpUrl(text.trim())) return RULE_MESSAGES.httpUrl;
  const pattern = rule && PATTERNS[rule];
  if (pattern && !pattern.test(text)) return RULE_MESSAGES[rule!];
  if (field.reserved?.includes(text.toLowerCase())) return { message: 'iam.validation.reserved', args: { value: text } };
  return undefined;
}

/** What is wrong with a value of this field, or undefined; "Required" is requiredValue's. */
export function checkValue(field: FieldDeclaration, value: unknown): ValidationErrorMessage | undefined {
  if (value === undefined || value === null) return undefined;
  if (field.kind === 'number') {
    if (value === '') return undefined;
    const number = Number(value);
    if (!Number.isInteger(number)) return 'iam.validation.integer';
    if (field.min !== undefined && number < field.min) return { message: 'iam.validation.min', args: { min: field.min } };
    if (field.max !== undefined && number > field.max) return { message: 'iam.validation.max', args: { max: field.max } };
    return undefined;
  }
  if (Array.isArray(value)) {
    if (field.kind !== 'uriList') return undefined;
    const entries = value.map((entry) => String(entry).trim()).filter(Boolean);
    if (entries.length > MAX_URIS) return { message: 'iam.validation.maxItems', args: { max: MAX_URIS } };
    const long = field.maxLength !== undefined && entries.find((entry) => characters(entry) > field.maxLength!);
    return long ? { message: 'iam.validation.maxLength', args: { max: field.maxLength } } : undefined;
  }
  return typeof value === 'string' ? checkText(field, value) : undefined;
}

/** react-admin's required(), but only spaces count as empty too: the provider wants some text (pattern \S). */
export const requiredValue: Validator = Object.assign(
  (value: unknown) =>
    value === undefined ||
    value === null ||
    (typeof value === 'string' && value.trim() === '') ||
    (Array.isArray(value) && value.length === 0)
      ? 'ra.validation.required'
      : undefined,
  { isRequired: true },
);

/**
 * The validators of a declared field: Required when it is required, or when it is a select with a
 * default (so react-admin offers no empty choice, docs/CONSOLE.md "Resources"), then its limits.
 */
export function fieldValidators(field: FieldDeclaration): Validator[] {
  const required = field.required || (field.kind === 'select' && field.defaultValue !== undefined);
  return [...(required ? [requiredValue] : []), (value: unknown) => checkValue(field, value)];
}
