import { createContext, useContext, useState, type ReactElement } from 'react';
import { Box, Button, Popover } from '@mui/material';
import BookmarksIcon from '@mui/icons-material/BookmarksOutlined';
import { FilterButton, SavedQueriesList, SelectColumnsButton, TopToolbar, useStore, useTranslate, type ConfigurableDatagridColumn } from 'react-admin';

/** Where a list keeps its chosen columns (react-admin's store, this browser): one choice per type. */
export const columnsKey = (resource: string) => `${resource}.columns`;

/** The list's column choice key, for what its toolbar exports; none inside another screen (no chooser there). */
export const ColumnsKeyContext = createContext<string | undefined>(undefined);

/**
 * The saved views of a list (react-admin's SavedQueriesList): its filters, sort and page size under a
 * name, kept in react-admin's store, that is this browser's localStorage, per list (docs/CONSOLE.md,
 * "Lists"). In a pop-over so that a phone's page keeps its width.
 */
function SavedViewsButton() {
  const translate = useTranslate();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  return (
    <>
      <Button size="small" startIcon={<BookmarksIcon />} aria-haspopup="dialog" onClick={(event) => setAnchor(event.currentTarget)}>
        {translate('ra.saved_queries.label')}
      </Button>
      <Popover
        open={Boolean(anchor)}
        anchorEl={anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
      >
        {/* room above the list for its floating Save / Remove button */}
        <Box sx={{ pt: 4, px: 2, pb: 1, minWidth: 240 }} 
          // a view chosen closes it (not Save, whose dialog lives inside)
          onClick={(event) => (event.target as HTMLElement).closest('.MuiListItemButton-root') && setAnchor(null)}
        >
          <SavedQueriesList />
        </Box>
      </Popover>
    </>
  );
}

/**
 * Under the screen's own actions: Add filter (when some filters are offered there), the column
 * chooser and the saved views.
 */
export function ListTools({ actions, preferenceKey, moreFilters }: { actions: ReactElement; preferenceKey?: string; moreFilters: boolean }) {
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'flex-end', minWidth: 0 }}>
      {actions}
      <TopToolbar sx={{ minHeight: 0, pt: 0, flexWrap: 'wrap', alignItems: 'center' }}>
        {moreFilters && <FilterButton size="small" disableSaveQuery />}
        {preferenceKey && <SelectColumnsButton preferenceKey={preferenceKey} />}
        <SavedViewsButton />
      </TopToolbar>
    </Box>
  );
}

/**
 * The sources of the columns the person has chosen, in their order, with their headers: what the
 * CSV export writes (else `fallback`). Read from the store react-admin's configurable table keeps.
 */
export function useChosenColumns(): { sources: string[]; labels: string[] } | undefined {
  const preferenceKey = useContext(ColumnsKeyContext);
  const [available] = useStore<ConfigurableDatagridColumn[]>(`preferences.${preferenceKey}.availableColumns`, []);
  const [omit] = useStore<string[]>(`preferences.${preferenceKey}.omit`, []);
  const [columns] = useStore<string[] | undefined>(`preferences.${preferenceKey}.columns`, undefined);
  if (!preferenceKey || available.length === 0) return undefined;
  const chosen = columns
    ? columns.map((index) => available.find((column) => column.index === index))
    : available.filter((column) => !omit?.includes(column.source ?? ''));
  const shown = chosen.filter((column): column is ConfigurableDatagridColumn & { source: string } => Boolean(column?.source));
  return { sources: shown.map((column) => column.source), labels: shown.map((column) => column.label ?? column.source) };
}
