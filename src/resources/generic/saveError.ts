/** The provider's wording for a duplicate within a tenant; the value it names is the one that clashed. */
const DUPLICATE = /^duplicated error: (.*) already exist!$/;

/**
 * The message a failed save shows (docs/CONSOLE.md, "Errors and messages"): a duplicate 409 shows
 * 'duplicated error: {name} already exist!' naming the value the provider says clashed (an email
 * as well as a username), or the form's name when the provider gave no message; any other 409 (an
 * id not available, a company type rule) and any other error shows the provider's own sentence.
 */
export function saveErrorMessage(
  error: unknown,
  name: string,
  translate: (key: string, options?: Record<string, unknown>) => string,
): string {
  const status = (error as { status?: number })?.status;
  const message = (error as { message?: string })?.message;
  if (status === 409) {
    const duplicate = DUPLICATE.exec(message ?? '');
    if (duplicate || !message) return translate('iam.errors.duplicated', { name: duplicate?.[1] ?? name });
  }
  return message || translate('ra.notification.http_error');
}
