const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** The largest multiple of the alphabet size below 256: bytes above it are redrawn, so every character is equally likely. */
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

/** docs/CONSOLE.md, "Constants": generated client ids, client secrets and API ids are 32 letters and digits, drawn in the browser. */
export function randomAlphanumeric(length = 32): string {
  let result = '';
  const bytes = new Uint8Array(length * 2);
  while (result.length < length) {
    crypto.getRandomValues(bytes);
    for (const byte of bytes) {
      if (byte < UNBIASED_LIMIT && result.length < length) result += ALPHABET[byte % ALPHABET.length];
    }
  }
  return result;
}
