/**
 * The admin app's code with the dashboard it lands on, fetched side by side and once: main.tsx loads
 * it for the admin app's paths, and when the callback moves on to one without a page load.
 */
let loading: Promise<typeof import('./App')> | undefined;
export const loadAdminApp = () => (loading ??= Promise.all([import('./App'), import('./pages/Dashboard')]).then(([app]) => app));
