import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

/**
 * react-admin's <Title> (used by the dashboard, and by its error pages in every layout) renders a
 * page title that is customisable in the preferences editor; that editor, a MUI TextField (with
 * Select, InputBase, FilledInput...), was in the first screen after sign-in although it only shows
 * in the inspector's edit mode. In the build it loads when first shown instead; nothing else changes.
 */
function lazyPageTitleEditor(): Plugin {
  const file = /\/ra-ui-materialui\/dist\/layout\/PageTitleConfigurable\.js$/;
  const eager = "import { TextField } from '@mui/material';";
  return {
    name: 'iam:lazy-page-title-editor',
    apply: 'build',
    transform(code, id) {
      if (!file.test(id)) return null;
      // Fail loudly if a react-admin upgrade changes the file, rather than silently growing the bundle.
      if (!code.includes(eager)) throw new Error(`lazyPageTitleEditor: "${eager}" not found in ${id}`);
      return code.replace(
        eager,
        [
          "const LazyTextField = React.lazy(() => import('@mui/material/TextField'));",
          'const TextField = (props) => React.createElement(React.Suspense, { fallback: null }, React.createElement(LazyTextField, props));',
        ].join('\n'),
      );
    },
  };
}

/** The provider (npm run server) answers these paths; the console is served by Vite in development. */
const PROVIDER = process.env.PROVIDER_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react(), lazyPageTitleEditor()],
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
      // the provider's account page (second factors; e-mailed links)
      '/account': { target: PROVIDER, changeOrigin: false },
    },
  },
});
