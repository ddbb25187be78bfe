// One of server/passwords.ts's threads: bcrypt runs here synchronously, so that it is this thread,
// started below the server's priority, that spends the CPU. Plain JavaScript: no loader is needed.
import bcrypt from 'bcrypt';

/** @param {{ op: 'hash' | 'verify', password: string, hash?: string, cost?: number }} task */
export default function bcryptTask({ op, password, hash, cost }) {
  if (op === 'hash') return bcrypt.hashSync(password, cost);
  // $2y$ (PHP's name) is the same algorithm as $2b$, which is the name this library knows it by
  return bcrypt.compareSync(password, hash.replace(/^\$2y\$/, '$2b$'));
}
