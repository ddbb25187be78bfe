/**
 * A provider 400 that names one field of the request body, as react-admin's server-side validation
 * shape `{ field: message }` (the message is the provider's words after the field). Forms turn it
 * into a sentence under the input (docs/CONSOLE.md, "Errors and messages"). Shapes:
 * schema checks `body/email must match format "idn-email"`, `body/redirect_uris/3 must NOT have...`,
 * `body must have required property 'email'`; the provider's own `name: "docs" is reserved`,
 * `client_id cannot be changed`.
 */
const NAME = '[A-Za-z_][A-Za-z0-9_]*';
const SCHEMA = new RegExp(`^body/(${NAME})(?:/\\d+)* (.+)$`, 's');
const MISSING = new RegExp(`^body must have required property '(${NAME})'$`);
const OWN = new RegExp(`^(${NAME})(?:: | (?=cannot be changed|must ))(.+)$`, 's');

export function fieldErrorsOf(message: string): Record<string, string> | undefined {
  const missing = MISSING.exec(message);
  if (missing) return { [missing[1]]: 'must have required property' };
  const named = SCHEMA.exec(message) ?? OWN.exec(message);
  return named ? { [named[1]]: named[2] } : undefined;
}
