import { createContext, useContext, useState, type ReactElement } from 'react';
import { Box, Button, Divider, Menu, MenuItem } from '@mui/material';
import BookmarksIcon from '@mui/icons-material/BookmarksOutlined';
import {
  AddSavedQueryDialog,
  extractValidSavedQueries,
  FilterButton,
  RemoveSavedQueryDialog,
  SelectColumnsButton,
  TopToolbar,
  useListContext,
  useNavigate,
  useSavedQueries,
  useStore,
  useTranslate,
  type ConfigurableDatagridColumn,
  type SavedQuery,
} from 'react-admin';

/** Where a list keeps its chosen columns (react-admin's store, this browser): one choice per type. */
export const columnsKey = (resource: string) => `${resource}.columns`;

/** The list's column choice key, for what its toolbar exports; none inside another screen (no chooser there). */
export const ColumnsKeyContext = createContext<string | undefined>(undefined);

/** The same value, whatever the order of its keys (a saved view against the list's current one). */
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : value && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([, item]) => item !== undefined)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([key, item]) => [key, canonical(item)]),
        )
      : value;
const isEqual = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

/**
 * The saved views of a list: react-admin's saved queries (its `useSavedQueries` store and its Save /
 * Remove dialogs, as in SavedQueriesList and FilterButton), named filters, sort and page size, kept
 * per list type in react-admin's store, that is this browser's localStorage (docs/CONSOLE.md,
 * "Lists"). A menu rather than SavedQueriesList's side list: it keeps a phone's page its width, and
 * SavedQueriesList's list items would split a module out of the first screen's code (+0.3 kB).
 */
function SavedViewsButton() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const { resource, filterValues, displayedFilters, sort, perPage } = useListContext();
  const [saved] = useSavedQueries(resource);
  const views = extractValidSavedQueries(saved);
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [dialog, setDialog] = useState<'add' | 'remove' | undefined>();
  const current = { filter: filterValues, sort, perPage, displayedFilters };
  const isCurrent = (view: SavedQuery) => isEqual(view.value, current);
  const filtered = !isEqual(filterValues, {});
  const open = (view: SavedQuery) => {
    setAnchor(null);
    const { filter, sort: viewSort, perPage: viewPerPage, displayedFilters: shown } = view.value;
    const query = new URLSearchParams({
      filter: JSON.stringify(filter),
      displayedFilters: JSON.stringify(shown ?? {}),
      page: '1',
      ...(viewSort ? { sort: viewSort.field, order: viewSort.order } : {}),
      ...(viewPerPage ? { perPage: String(viewPerPage) } : {}),
    });
    navigate({ search: `?${query}` });
  };
  const ask = (which: 'add' | 'remove') => {
    setAnchor(null);
    setDialog(which);
  };
  return (
    <>
      <Button size="small" startIcon={<BookmarksIcon />} aria-haspopup="menu" onClick={(event) => setAnchor(event.currentTarget)}>
        {translate('ra.saved_queries.label')}
      </Button>
      <Menu open={Boolean(anchor)} anchorEl={anchor} onClose={() => setAnchor(null)}>
        {views.map((view) => (
          <MenuItem key={view.label} selected={isCurrent(view)} onClick={() => open(view)}>
            {view.label}
          </MenuItem>
        ))}
        {views.length > 0 && <Divider />}
        {views.some(isCurrent) ? (
          <MenuItem onClick={() => ask('remove')}>{translate('ra.saved_queries.remove_label_with_name', { name: views.find(isCurrent)!.label })}</MenuItem>
        ) : filtered ? (
          <MenuItem onClick={() => ask('add')}>{translate('ra.saved_queries.new_label')}</MenuItem>
        ) : (
          <MenuItem disabled>{translate('ra.saved_queries.help')}</MenuItem>
        )}
      </Menu>
      <AddSavedQueryDialog open={dialog === 'add'} onClose={() => setDialog(undefined)} />
      <RemoveSavedQueryDialog open={dialog === 'remove'} onClose={() => setDialog(undefined)} />
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
export function useChosenColumns(listKey?: string): { sources: string[]; labels: string[] } | undefined {
  const fromContext = useContext(ColumnsKeyContext);
  const preferenceKey = listKey ?? fromContext;
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
