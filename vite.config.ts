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
 * MUI's Menu and Popover (with MenuList and Grow) were in the first screen after sign-in for the app
 * bar's menus and react-admin's page title (the popover of its preferences editor, in
 * ra-ui-materialui's Configurable), though none can open before the person's first input. In the
 * build, `@mui/material`'s Menu is src/layout/menu.ts, and Configurable's Popover
 * src/layout/popover.ts: they render nothing while closed, as MUI's do, until MUI's (`iam:mui-Menu`,
 * `iam:mui-Popover`) arrive, loaded at the first input (src/layout/LazyWhileClosed.tsx). Fails the
 * build if MUI or react-admin change those modules.
 */
function lazyWhileClosed(): Plugin {
  const menu = fileURLToPath(new URL('./src/layout/menu.ts', import.meta.url));
  const popover = fileURLToPath(new URL('./src/layout/popover.ts', import.meta.url));
  const menuIndex = /[\\/]@mui[\\/]material[\\/]Menu[\\/]index\.mjs$/;
  const configurable = /[\\/]ra-ui-materialui[\\/]dist[\\/]preferences[\\/]Configurable\.js$/;
  const eagerPopover = "import { Popover } from '@mui/material';";
  let replaced = false;
  let transformed = false;
  let realMenu: string | undefined;
  return {
    name: 'iam:lazy-while-closed',
    apply: 'build',
    enforce: 'pre',
    async resolveId(source, importer) {
      if (source === './Menu.mjs' && importer && menuIndex.test(importer)) {
        realMenu = path.join(path.dirname(importer), 'Menu.mjs');
        replaced = true;
        return menu;
      }
      if (source === 'iam:mui-Menu') {
        const index = await this.resolve('@mui/material/Menu', menu);
        if (!index || !menuIndex.test(index.id)) throw new Error(`lazyWhileClosed: @mui/material/Menu resolved to ${index?.id}, not its index.mjs`);
        return realMenu ?? path.join(path.dirname(index.id), 'Menu.mjs');
      }
      if (source === 'iam:mui-Popover') return this.resolve('@mui/material/Popover', popover);
      return null;
    },
    transform(code, id) {
      if (!configurable.test(id)) return null;
      if (!code.includes(eagerPopover)) throw new Error(`lazyWhileClosed: "${eagerPopover}" not found in ${id}`);
      transformed = true;
      return code.replace(eagerPopover, `import Popover from ${JSON.stringify(popover)};`);
    },
    buildEnd(error) {
      // Fail loudly if an MUI or react-admin upgrade changes the modules, rather than silently growing the bundle.
      if (error) return;
      if (!replaced) throw new Error("lazyWhileClosed: @mui/material/Menu/index.mjs no longer imports './Menu.mjs'");
      if (!transformed) throw new Error('lazyWhileClosed: ra-ui-materialui/dist/preferences/Configurable.js not built');
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

/**
 * Right to left's stylis plugins (src/i18n/rtlPlugins.ts, loaded when Arabic is chosen) import
 * `stylis`, as emotion does in the console's own chunks; sharing it made the bundler move stylis out
 * of them into a chunk of its own that the first screen fetched (1.9 kB gzipped more). In the build,
 * `stylis` imported by rtlPlugins.ts and @mui/stylis-plugin-rtl is the package's bundled copy
 * (dist/stylis.mjs, the same code), so the lazy chunk carries its own and emotion's stays in place.
 * The plugins only read and write stylis's elements, which both copies make alike.
 */
function rtlStylisCopy(): Plugin {
  const importers = [/[\\/]src[\\/]i18n[\\/]rtlPlugins\.ts$/, /[\\/]@mui[\\/]stylis-plugin-rtl[\\/]/];
  const copy = fileURLToPath(new URL('./node_modules/stylis/dist/stylis.mjs', import.meta.url));
  return {
    name: 'iam:rtl-stylis-copy',
    apply: 'build',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source !== 'stylis' || !importer || !importers.some((re) => re.test(importer))) return null;
      return copy;
    },
  };
}

/** The provider (npm run server) answers these paths; the console is served by Vite in development. */
const PROVIDER = process.env.PROVIDER_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react(), lazyPageTitleEditor(), lazyTooltip(), lazyWhileClosed(), productionRouter(), rtlStylisCopy()],
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
