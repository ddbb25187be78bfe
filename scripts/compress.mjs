#!/usr/bin/env node
// Usage: node scripts/compress.mjs [dir]   (npm run build runs it after vite build)
// Writes a brotli (.br) and a gzip (.gz) copy beside every text asset of the built console (dist/ by
// default), once, at build time: the server sends the copy the browser accepts (@fastify/static
// preCompressed) instead of compressing on every request or sending the JavaScript uncompressed.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { root } from './lib.mjs';

const TEXT = /\.(js|mjs|css|html|svg|json|txt|map)$/;

export function compressDir(dir) {
  let files = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) files += compressDir(file);
    else if (TEXT.test(entry.name)) {
      const body = fs.readFileSync(file);
      fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }));
      fs.writeFileSync(`${file}.gz`, zlib.gzipSync(body, { level: 9 }));
      files++;
    }
  }
  return files;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = path.resolve(process.argv[2] ?? path.join(root, 'dist'));
  console.log(`[compress] ${compressDir(dir)} files of ${path.relative(root, dir) || dir} compressed (.br, .gz)`);
}
