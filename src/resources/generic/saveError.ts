/**
 * SPEC 8: a 409 on save shows 'duplicated error: {name} already exist!', anything else shows the
 * error's own message.
 */
export function saveErrorMessage(
  error: unknown,
  name: string,
  translate: (key: string, options?: Record<string, unknown>) => string,
): string {
  const status = (error as { status?: number })?.status;
  if (status === 409) return translate('iam.errors.duplicated', { name });
  const message = (error as { message?: string })?.message;
  return message || translate('ra.notification.http_error');
}
