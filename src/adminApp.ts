/**
 * The admin app's code, loaded once: by main.tsx for its paths, and ahead of time by the callback
 * while it exchanges the sign-in's code, with the dashboard it lands on, so that neither is waited
 * for after.
 */
let loading: Promise<typeof import('./App')> | undefined;
export const loadAdminApp = () => (loading ??= Promise.all([import('./App'), import('./pages/Dashboard')]).then(([app]) => app));
