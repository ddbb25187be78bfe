import fs from 'node:fs';
import path from 'node:path';
import * as jose from 'jose';

export interface SigningKeys {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: jose.JWK;
}

/**
 * The RS256 key that signs every token: from SIGNING_KEY when given, else kept in DATA_DIR
 * (created on first run, readable only by this user) so tokens survive restarts.
 */
export async function loadSigningKeys(options: { pem?: string; dataDir?: string }): Promise<SigningKeys> {
  let pkcs8 = options.pem;
  if (!pkcs8 && options.dataDir) {
    const file = path.join(options.dataDir, 'signing-key.pem');
    if (fs.existsSync(file)) pkcs8 = fs.readFileSync(file, 'utf8');
    else {
      const { privateKey } = await jose.generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
      pkcs8 = await jose.exportPKCS8(privateKey);
      fs.mkdirSync(options.dataDir, { recursive: true });
      fs.writeFileSync(file, pkcs8, { mode: 0o600 });
    }
  }
  if (!pkcs8) {
    const { privateKey } = await jose.generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    pkcs8 = await jose.exportPKCS8(privateKey);
  }
  const privateKey = await jose.importPKCS8(pkcs8, 'RS256', { extractable: true });
  const privateJwk = await jose.exportJWK(privateKey);
  const publicJwk: jose.JWK = { kty: privateJwk.kty, n: privateJwk.n, e: privateJwk.e };
  const kid = await jose.calculateJwkThumbprint(publicJwk);
  const publicKey = (await jose.importJWK(publicJwk, 'RS256')) as CryptoKey;
  return { kid, privateKey, publicKey, publicJwk: { ...publicJwk, kid, alg: 'RS256', use: 'sig' } };
}
