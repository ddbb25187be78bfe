import { lazy, Suspense, useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { IconButton, Tooltip } from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';
import { useTranslate } from 'react-admin';
import { withScreenWords } from '../i18n/i18nProvider';

// The dialog (a text field, lists, the search) loads on first use, not with the first screen.
const SearchDialog = lazy(() => withScreenWords(import('./dialogs')).then((dialogs) => ({ default: dialogs.SearchDialog })));

/** Shown while the dialog's chunk loads: keys typed meanwhile are kept for its field (and only meanwhile). */
function KeepTyping({ keeping }: { keeping: RefObject<boolean> }) {
  useLayoutEffect(() => {
    keeping.current = true;
    return () => {
      keeping.current = false;
    };
  }, [keeping]);
  return null;
}

/**
 * docs/CONSOLE.md, "Layout": the top-bar search button; it and Ctrl+K / Cmd+K, anywhere in the
 * admin app, open the search dialog. A plain window listener: a hotkeys library would weigh on the
 * first screen (docs/PERFORMANCE.md, "Console bundle").
 */
export function SearchButton() {
  const translate = useTranslate();
  // `opened` counts openings: each one is a fresh dialog (empty field, recent searches), and once
  // opened it stays mounted so that closing it animates.
  const [{ open, opened }, setDialog] = useState({ open: false, opened: 0 });
  // What is typed while the dialog's chunk loads, kept for its field rather than lost or typed into
  // what had the focus; should the chunk not come, nothing more is kept.
  const keeping = useRef(false);
  const typedAhead = useRef('');
  const show = useCallback(() => {
    typedAhead.current = '';
    setDialog((dialog) => (dialog.open ? dialog : { open: true, opened: dialog.opened + 1 }));
  }, []);
  const close = useCallback(() => setDialog((dialog) => ({ ...dialog, open: false })), []);
  const takeTypedAhead = useCallback(() => {
    const typed = typedAhead.current;
    typedAhead.current = '';
    return typed;
  }, []);
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'k') {
        // Otherwise the browser moves to its own search (Chromium, Firefox: the address bar).
        event.preventDefault();
        show();
        return;
      }
      if (!keeping.current || event.isComposing || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key.length === 1) typedAhead.current += event.key;
      else if (event.key === 'Backspace') typedAhead.current = typedAhead.current.slice(0, -1);
      else return;
      event.preventDefault();
    };
    // capturing: before a field that still has the focus takes the key
    window.addEventListener('keydown', onKeyDown, true);
    return () => window.removeEventListener('keydown', onKeyDown, true);
  }, [show]);
  const label = translate('iam.layout.search');
  return (
    <>
      <Tooltip title={translate('iam.search.tooltip')}>
        <IconButton color="inherit" aria-label={label} aria-haspopup="dialog" aria-keyshortcuts="Control+K Meta+K" onClick={show}>
          <SearchIcon />
        </IconButton>
      </Tooltip>
      {opened > 0 && (
        <Suspense fallback={<KeepTyping keeping={keeping} />}>
          <SearchDialog key={opened} open={open} onClose={close} label={label} takeTypedAhead={takeTypedAhead} />
        </Suspense>
      )}
    </>
  );
}
