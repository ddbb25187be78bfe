/**
 * The console wears the signed-in company's branding (docs/CONSOLE.md, "Branding"): its effective
 * colours (its own, else its nearest ancestor's) in the light and dark themes, its logo in the app
 * bar. Read with one GET after sign-in and kept for the page's life; a save of that company's
 * branding in its Branding tab puts the new one in place at once. Small on purpose: it ships with
 * the first screen after sign-in (docs/PERFORMANCE.md, "Console bundle").
 */
import { useEffect, useState } from 'react';
import { deepmerge } from '@mui/utils';
import type { RaThemeOptions } from 'react-admin';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import { getSession } from '../../session/session';

export interface EffectiveBranding {
  displayName?: string;
  logoUrl?: string;
  iconUrl?: string;
  primaryLight?: string;
  backgroundLight?: string;
  primaryDark?: string;
  backgroundDark?: string;
  supportEmail?: string;
  supportUrl?: string;
}

const brandingUrl = (companyId: string) => `${config.apiBase}/companys/${encodeURIComponent(companyId)}/branding`;

let current: EffectiveBranding | undefined;
let loading: Promise<void> | undefined;
const listeners = new Set<() => void>();

const put = (branding: EffectiveBranding | undefined) => {
  current = branding;
  for (const listener of listeners) listener();
};

/** The signed-in company's effective branding, read once (nothing while signed out, nothing on a refusal). */
function load(): Promise<void> {
  const company = getSession().rootCompany?.id;
  if (!company || !getSession().accessToken) return Promise.resolve();
  loading ??= httpClient(brandingUrl(company))
    .then((answer) => put((answer.json as { effective?: EffectiveBranding }).effective))
    .catch(() => undefined);
  return loading;
}

/**
 * A company's branding was saved (the Branding tab says so with this event, so that its lazy chunk does
 * not share a module with the first screen): when it is the signed-in company's, the console follows it now.
 */
export const BRANDING_SAVED = 'iam:branding-saved';
window.addEventListener(BRANDING_SAVED, (event) => {
  const { companyId, effective } = (event as CustomEvent<{ companyId: string; effective?: EffectiveBranding }>).detail;
  if (companyId === getSession().rootCompany?.id) put(effective);
});

/** The signed-in company's effective branding; undefined until read (or when it has none). */
export function useConsoleBranding(): EffectiveBranding | undefined {
  const [branding, setBranding] = useState(current);
  useEffect(() => {
    const changed = () => setBranding(current);
    listeners.add(changed);
    void load().then(changed);
    return () => void listeners.delete(changed);
  }, []);
  return branding;
}

const HEX = /^#[0-9a-f]{6}$/i;

/**
 * The theme with the company's primary and page background colours (buttons, links, the app bar,
 * the selected tab); a theme the branding does not touch is returned as it is.
 */
export function brandedTheme(theme: RaThemeOptions, primary: string | undefined, background: string | undefined): RaThemeOptions {
  const main = primary && HEX.test(primary) ? primary : undefined;
  const page = background && HEX.test(background) ? background : undefined;
  if (!main && !page) return theme;
  const branded = deepmerge(theme, {
    palette: { ...(main && { primary: { main }, secondary: { main } }), ...(page && { background: { default: page } }) },
  } as RaThemeOptions) as { palette: Record<string, Record<string, unknown>> };
  // light, dark and the text on the colour left for MUI to derive (the base theme's are for its own blue); deepmerge made these objects anew
  if (main) for (const name of ['primary', 'secondary']) for (const key of ['light', 'dark', 'contrastText']) delete branded.palette[name][key];
  return branded as RaThemeOptions;
}
