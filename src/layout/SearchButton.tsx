import { lazy, Suspense, useState } from 'react';
import { IconButton, Tooltip } from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';
import { useTranslate } from 'react-admin';

// The dialog (a text field, lists) loads on the first click, not with the first screen.
const SearchDialog = lazy(() => import('./SearchDialog'));

/** docs/CONSOLE.md, "Layout": the top-bar search button; it opens a static sample search dialog. */
export function SearchButton() {
  const translate = useTranslate();
  const [open, setOpen] = useState(false);
  // Once opened, the dialog stays mounted so that closing it animates as before.
  const [used, setUsed] = useState(false);
  const label = translate('iam.layout.search');
  return (
    <>
      <Tooltip title={label}>
        <IconButton
          color="inherit"
          aria-label={label}
          aria-haspopup="dialog"
          onClick={() => {
            setUsed(true);
            setOpen(true);
          }}
        >
          <SearchIcon />
        </IconButton>
      </Tooltip>
      {used && (
        <Suspense fallback={null}>
          <SearchDialog open={open} onClose={() => setOpen(false)} label={label} />
        </Suspense>
      )}
    </>
  );
}
