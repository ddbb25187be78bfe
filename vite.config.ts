import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

/** The provider (npm run server) answers these paths; the console is served by Vite in development. */
const PROVIDER = process.env.PROVIDER_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: {
      'object.entries': fileURLToPath(new URL('./src/shims/object-entries.cjs', import.meta.url)),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // bench/bundle.ts reads it to report what each screen loads
    manifest: true,
  },
  server: {
    proxy: {
      '/api': { target: PROVIDER, changeOrigin: false },
      '/oauth': { target: PROVIDER, changeOrigin: false },
      '/.well-known': { target: PROVIDER, changeOrigin: false },
    },
  },
});
