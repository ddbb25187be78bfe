import bcrypt from 'bcryptjs';

/** SPEC 3: the password leaves the browser only as a bcrypt hash of this cost. */
export const BCRYPT_COST = 10;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, BCRYPT_COST);
}

/** Validator of Confirm Password: SPEC 8's 'Password mismatch!' (a translation key here). */
export function matchesPassword(confirmPassword: unknown, values: Record<string, unknown>): string | undefined {
  return confirmPassword && values.password && confirmPassword !== values.password ? 'iam.users.passwordMismatch' : undefined;
}
