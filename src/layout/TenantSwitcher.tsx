import { lazy, Suspense, useCallback, useState } from 'react';
import { Box, Button, Tooltip } from '@mui/material';
import BusinessIcon from '@mui/icons-material/Business';
import ArrowDropDownIcon from '@mui/icons-material/ArrowDropDown';
import { useTranslate } from 'react-admin';
import { withScreenWords } from '../i18n/i18nProvider';
import { companyLabel, placeOf } from '../session/place';
import { useSession } from '../session/useSession';

// The dialog (search field, lists, the switch) loads on first use, not with the first screen.
const TenantDialog = lazy(() => withScreenWords(import('./dialogs')).then((dialogs) => ({ default: dialogs.TenantDialog })));

/**
 * docs/CONSOLE.md, "Layout": the app bar's company and domain switcher. The button names where the
 * console works ("Globex › prod", display names) at every width and whatever the side bar does; on
 * a phone the company and the domain take a line each, in smaller type, and words that do not fit
 * are cut with an ellipsis: the whole of them is the button's accessible name and tooltip.
 */
const ellipsis = { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', minWidth: 0 } as const;

export function TenantSwitcher() {
  const translate = useTranslate();
  const { company, domain } = useSession();
  // `opened` counts openings: each one is a fresh dialog (empty field, the companies step), and once
  // opened it stays mounted so that closing it animates and gives the focus back to this button.
  const [{ open, opened }, setDialog] = useState({ open: false, opened: 0 });
  const show = useCallback(() => setDialog((dialog) => (dialog.open ? dialog : { open: true, opened: dialog.opened + 1 })), []);
  const close = useCallback(() => setDialog((dialog) => ({ ...dialog, open: false })), []);
  if (!company) return null;
  const place = placeOf(translate, company, domain);
  const label = translate('iam.tenant.button', { place });
  return (
    <>
      <Tooltip title={label}>
        <Button
          color="inherit"
          aria-label={label}
          aria-haspopup="dialog"
          onClick={show}
          startIcon={<BusinessIcon />}
          endIcon={<ArrowDropDownIcon />}
          sx={{
            flex: '0 1 auto',
            minWidth: 0,
            maxWidth: { xs: 160, sm: 280, md: 380 },
            mx: { xs: 0, sm: 1 },
            px: { xs: 0.5, sm: 1 },
            textTransform: 'none',
            textAlign: 'left',
            '& .MuiButton-startIcon, & .MuiButton-endIcon': { display: { xs: 'none', sm: 'inherit' } },
          }}
        >
          <Box component="span" sx={{ ...ellipsis, display: { xs: domain ? 'none' : 'block', sm: 'block' } }}>
            {place}
          </Box>
          {domain && (
            // a phone: the company above the domain, each cut on its own
            <Box component="span" sx={{ display: { xs: 'flex', sm: 'none' }, flexDirection: 'column', minWidth: 0, fontSize: '0.75rem', lineHeight: 1.3 }}>
              <Box component="span" sx={ellipsis}>
                {companyLabel(company)}
              </Box>
              <Box component="span" sx={ellipsis}>
                {domain.name || domain.id}
              </Box>
            </Box>
          )}
        </Button>
      </Tooltip>
      {opened > 0 && (
        <Suspense fallback={null}>
          <TenantDialog key={opened} open={open} onClose={close} />
        </Suspense>
      )}
    </>
  );
}
