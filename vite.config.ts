import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import path from 'node:path';
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

/**
 * MUI's Tooltip (with Popper and @popperjs/core, about 10 kB gzipped) was in the first screen after
 * sign-in for the tooltips of react-admin's app-bar buttons and of the side bar, though none can
 * show before the person's first input. In the build, `@mui/material`'s Tooltip is
 * src/layout/tooltip.ts, which renders the child as MUI does until MUI's Tooltip (`iam:mui-tooltip`)
 * arrives, loaded at the first input (src/layout/LazyTooltip.tsx). Fails the build if MUI moves it.
 */
function lazyTooltip(): Plugin {
  const replacement = fileURLToPath(new URL('./src/layout/tooltip.ts', import.meta.url));
  const muiIndex = /[\\/]@mui[\\/]material[\\/]Tooltip[\\/]index\.mjs$/;
  let replaced = false;
  let real: string | undefined;
  return {
    name: 'iam:lazy-tooltip',
    apply: 'build',
    enforce: 'pre',
    async resolveId(source, importer) {
      if (source === './Tooltip.mjs' && importer && muiIndex.test(importer)) {
        real = path.join(path.dirname(importer), 'Tooltip.mjs');
        replaced = true;
        return replacement;
      }
      if (source === 'iam:mui-tooltip') {
        const index = await this.resolve('@mui/material/Tooltip', replacement);
        if (!index || !muiIndex.test(index.id)) throw new Error(`lazyTooltip: @mui/material/Tooltip resolved to ${index?.id}, not its index.mjs`);
        return real ?? path.join(path.dirname(index.id), 'Tooltip.mjs');
      }
      return null;
    },
    buildEnd(error) {
      // Fail loudly if an MUI upgrade changes the module, rather than silently growing the bundle.
      if (!error && !replaced) throw new Error("lazyTooltip: @mui/material/Tooltip/index.mjs no longer imports './Tooltip.mjs'");
    },
  };
}

/**
 * react-router 7's package exports point at its development build (dev warnings and all, react-router
 * issue 12532); the build takes the production one, the same code without them (0.6 kB gzipped).
 */
function productionRouter(): Plugin {
  const production = fileURLToPath(new URL('./node_modules/react-router/dist/production/', import.meta.url));
  const files: Record<string, string> = { 'react-router': 'index.mjs', 'react-router/dom': 'dom-export.mjs' };
  return {
    name: 'iam:production-router',
    apply: 'build',
    enforce: 'pre',
    resolveId(source) {
      return files[source] ? path.join(production, files[source]) : null;
    },
  };
}

/** The provider (npm run server) answers these paths; the console is served by Vite in development. */
const PROVIDER = process.env.PROVIDER_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react(), lazyPageTitleEditor(), lazyTooltip(), productionRouter()],
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
      // a company's logo and icon (the app bar, the Branding tab)
      '/branding': { target: PROVIDER, changeOrigin: false },
    },
  },
});
