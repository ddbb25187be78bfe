import { lazy, Suspense, useCallback, useState } from 'react';
import { Box, Button, Tooltip } from '@mui/material';
import BusinessIcon from '@mui/icons-material/Business';
import ArrowDropDownIcon from '@mui/icons-material/ArrowDropDown';
import { useTranslate } from 'react-admin';
import { placeOf } from '../session/place';
import { useSession } from '../session/useSession';

// The dialog (search field, lists, the switch) loads on first use, not with the first screen.
const TenantDialog = lazy(() => import('./dialogs').then((dialogs) => ({ default: dialogs.TenantDialog })));

/**
 * docs/CONSOLE.md, "Layout": the app bar's company and domain switcher. The button names where the
 * console works ("Globex › prod", display names) at every width and whatever the side bar does; on
 * a narrow screen the words are cut with an ellipsis and the whole of them is the button's
 * accessible name and tooltip.
 */
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
            maxWidth: { xs: 150, sm: 260, md: 360 },
            mx: 1,
            textTransform: 'none',
            '& .MuiButton-startIcon': { display: { xs: 'none', sm: 'inherit' } },
          }}
        >
          <Box component="span" sx={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
            {place}
          </Box>
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
