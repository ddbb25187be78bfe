/**
 * The admin app's code, fetched once: main.tsx loads it for the admin app's paths, and the callback
 * when it moves on to one without a page load. The dashboard it lands on is part of it (one wave of
 * chunks, one Suspense reveal instead of two, React holding each later one back by 300 ms), and the
 * permissions of the place she works in are asked for while that code loads, so that the menu's and
 * the dashboard's first questions find them on the way instead of asking after mount.
 */
let loading: Promise<typeof import('./App')> | undefined;
export const loadAdminApp = () =>
  (loading ??= Promise.all([import('./App'), import('./authProvider/permissions').then((permissions) => permissions.preloadPermissions())]).then(([app]) => app));
