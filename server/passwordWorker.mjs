// One of server/passwords.ts's threads: bcrypt runs here synchronously, so that it is this thread,
// started below the server's priority, that spends the CPU. Plain JavaScript: no loader is needed.
import bcrypt from '@node-rs/bcrypt';

/** @param {{ op: 'hash' | 'verify', password: string, hash?: string, cost?: number }} task */
export default function bcryptTask({ op, password, hash, cost }) {
  return op === 'hash' ? bcrypt.hashSync(password, cost) : bcrypt.verifySync(password, hash);
}
