import { useState } from 'react';
import { useConsoleBranding } from './consoleBranding';

/** The signed-in company's logo at the start of the app bar (docs/CONSOLE.md, "Branding"); nothing without one. */
export function BrandLogo() {
  const branding = useConsoleBranding();
  const [failed, setFailed] = useState<string>();
  const url = branding?.logoUrl;
  if (!url || failed === url) return null;
  return (
    <img
      src={url}
      alt={branding.displayName ?? ''}
      onError={() => setFailed(url)}
      style={{ height: 32, maxWidth: 160, objectFit: 'contain', marginRight: 8, flexShrink: 0 }}
      data-testid="brand-logo"
    />
  );
}
