import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { IconButton, Tooltip } from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';
import { useTranslate } from 'react-admin';
import { withScreenWords } from '../i18n/i18nProvider';

// The dialog (a text field, lists, the search) loads on first use, not with the first screen.
const SearchDialog = lazy(() => withScreenWords(import('./dialogs')).then((dialogs) => ({ default: dialogs.SearchDialog })));

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
  // What is typed between opening and the dialog's field taking the focus (its chunk may still be
  // loading): kept for the field, rather than lost or typed into what had the focus. Undefined: not kept.
  const typedAhead = useRef<string>(undefined);
  const show = useCallback(() => {
    setDialog((dialog) => (dialog.open ? dialog : { open: true, opened: dialog.opened + 1 }));
    typedAhead.current ??= '';
  }, []);
  const close = useCallback(() => {
    typedAhead.current = undefined;
    setDialog((dialog) => ({ ...dialog, open: false }));
  }, []);
  const takeTypedAhead = useCallback(() => {
    const typed = typedAhead.current ?? '';
    typedAhead.current = undefined;
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
      const keeping = typedAhead.current !== undefined && !event.isComposing && !event.ctrlKey && !event.metaKey && !event.altKey;
      // once the field has the focus, what is typed goes to it
      if (!keeping || (event.target as Element | null)?.closest?.('[data-search-field]')) return;
      if (event.key.length === 1) typedAhead.current += event.key;
      else if (event.key === 'Backspace') typedAhead.current = typedAhead.current!.slice(0, -1);
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
        <Suspense fallback={null}>
          <SearchDialog key={opened} open={open} onClose={close} label={label} takeTypedAhead={takeTypedAhead} />
        </Suspense>
      )}
    </>
  );
}
