import bcrypt from 'bcryptjs';

/** docs/CONSOLE.md, "Users": the password leaves the browser only as a bcrypt hash of this cost. */
export const BCRYPT_COST = 10;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, BCRYPT_COST);
}

/** Validator of Confirm Password: 'Password mismatch!' (docs/CONSOLE.md, "Users") (a translation key here). */
export function matchesPassword(confirmPassword: unknown, values: Record<string, unknown>): string | undefined {
  return confirmPassword && values.password && confirmPassword !== values.password ? 'iam.users.passwordMismatch' : undefined;
}
