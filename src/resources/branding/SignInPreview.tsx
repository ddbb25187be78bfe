import { Box, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { textOn } from './colours';

interface PreviewProps {
  theme: 'light' | 'dark';
  primary: string;
  background: string;
  displayName: string;
  logoUrl?: string;
  supportEmail?: string;
}

/**
 * A small mock of the provider's hosted sign-in page with the chosen values (docs/CONSOLE.md,
 * "Branding"): the page's background, the logo and name on the card, the button and links in the
 * primary colour. A picture of a page, not a form: its parts are hidden from assistive technology,
 * the caption says what it is.
 */
export function SignInPreview({ theme, primary, background, displayName, logoUrl, supportEmail }: PreviewProps) {
  const translate = useTranslate();
  const dark = theme === 'dark';
  const card = dark ? '#1e1e1e' : '#ffffff';
  const text = dark ? '#ffffff' : 'rgba(0, 0, 0, 0.87)';
  const field = dark ? 'rgba(255, 255, 255, 0.09)' : 'rgba(0, 0, 0, 0.06)';
  return (
    <Box component="figure" sx={{ m: 0 }} data-testid={`preview-${theme}`}>
      <Box
        aria-hidden="true"
        sx={{ bgcolor: background, p: 2, borderRadius: 1, border: 1, borderColor: 'divider', colorScheme: theme }}
      >
        <Box sx={{ bgcolor: card, color: text, borderRadius: 1, p: 2, maxWidth: 280, mx: 'auto', boxShadow: 1 }}>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1.5 }}>
            {logoUrl && <img src={logoUrl} alt="" style={{ height: 28, maxWidth: 120, objectFit: 'contain' }} />}
            <Typography component="span" sx={{ fontWeight: 600 }}>
              {displayName}
            </Typography>
          </Box>
          <Typography component="span" sx={{ display: 'block', fontSize: '1.1rem', mb: 1 }}>
            {translate('iam.branding.mock.signIn')}
          </Typography>
          {[translate('iam.branding.mock.email'), translate('iam.branding.mock.password')].map((label) => (
            <Box key={label} sx={{ bgcolor: field, borderRadius: 0.5, px: 1, py: 0.75, mb: 1, fontSize: '0.8rem', opacity: 0.8 }}>
              {label}
            </Box>
          ))}
          <Box sx={{ bgcolor: primary, color: textOn(primary), textAlign: 'center', borderRadius: 0.5, py: 0.75, fontSize: '0.85rem', fontWeight: 600, mb: 1 }}>
            {translate('iam.branding.mock.continue')}
          </Box>
          <Typography component="span" sx={{ display: 'block', fontSize: '0.8rem', color: primary, textDecoration: 'underline' }}>
            {translate('iam.branding.mock.forgot')}
          </Typography>
        </Box>
        {supportEmail && (
          <Typography component="span" sx={{ display: 'block', textAlign: 'center', mt: 1, fontSize: '0.75rem', color: primary }}>
            {translate('iam.branding.mock.help', { email: supportEmail })}
          </Typography>
        )}
      </Box>
      <Typography component="figcaption" variant="caption" color="text.secondary">
        {translate(dark ? 'iam.branding.previewDark' : 'iam.branding.previewLight')}
      </Typography>
    </Box>
  );
}
