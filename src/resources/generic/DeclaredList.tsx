import { Suspense, type MouseEvent, type ReactElement, type ReactNode } from 'react';
import { Alert, Button, LinearProgress, Link, Typography } from '@mui/material';
import { Box } from '@mui/material';
import { Datagrid, DatagridConfigurable, FunctionField, List, useListContext, useTranslate, type RaRecord } from 'react-admin';
import type { IamMeta } from '../../dataProvider';
import type { FieldDeclaration, ResourceDeclaration } from '../types';
import { useSession } from '../../session/useSession';
import { recordHref } from './recordLink';
import { useDeclaration } from './DeclarationContext';
import { declaredFilters, hasMoreFilters } from './declaredFilters';
import { columnsKey, ColumnsKeyContext, ListTools, useChosenColumns } from './ListTools';
import { FieldValue } from './FieldValue';
import { SelectionReset } from './SelectionReset';
import { rowsPerPageOptions, useRememberedPerPage, WindowPagination } from './WindowPagination';

interface DeclaredListProps {
  /** The toolbar (New, Delete, ...); it reads the selection from the list context. */
  actions: ReactElement;
  onRowClick?: (record: RaRecord) => void;
  meta?: IamMeta;
  title?: string | ReactElement | false;
  /** Columns a screen adds after the declared ones (the domains' Primary mark). */
  extraColumns?: ReactElement[];
  /** Where the list keeps its page, sort and search (one per status for status lists). */
  storeKey?: string;
  /** What an empty list says. */
  empty?: ReactElement;
  /** Shown in the first column when its value is empty (a user with no display name: the username). */
  firstColumnFallback?: string;
  /** Shown after the first column's value, in its cell (a user's Blocked): readable however narrow the screen. */
  firstColumnAfter?: (record: RaRecord) => ReactNode;
  /**
   * Inside another screen (a tab of a record): page, sort and filters stay in the list, not in
   * the address or the store.
   */
  embedded?: boolean;
  /** Filter values always sent and never shown (a user's sign-ins: their userId). */
  filter?: Record<string, unknown>;
  /** Declared filters left out of this list (the one `filter` fixes). */
  hiddenFilters?: readonly string[];
  /** Actions on the selected rows, shown with their count (the users list's Add to group, Block...). */
  bulkActions?: ReactNode;
}

/**
 * How many rows are selected, in the page flow. react-admin's own bulk-actions toolbar would slide
 * over the list's toolbar, hiding New, Delete, Switch... while rows are selected.
 */
function SelectionSummary({ actions }: { actions?: ReactNode }) {
  const { selectedIds } = useListContext();
  const translate = useTranslate();
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', columnGap: 1, px: 2 }}>
      <Typography variant="body2" color="text.secondary" aria-live="polite" sx={{ minHeight: 0 }}>
        {selectedIds.length > 0 ? translate('ra.action.bulk_actions', { smart_count: selectedIds.length }) : ''}
      </Typography>
      {selectedIds.length > 0 && actions}
    </Box>
  );
}

/** What an empty list says: the declaration's words, with or without filters set. */
function EmptyList() {
  const { emptyKeys } = useDeclaration();
  const { filterValues } = useListContext();
  const translate = useTranslate();
  const filtered = Object.values(filterValues ?? {}).some((value) => value !== undefined && value !== '' && value !== null);
  return (
    <Typography sx={{ p: 2 }} color="text.secondary" role="status">
      {translate(emptyKeys ? (filtered ? emptyKeys.filtered : emptyKeys.none) : 'iam.list.empty')}
    </Typography>
  );
}

/**
 * A list that could not be read says so, with a way to read it again, rather than the words of an
 * empty list (react-admin also notifies the failure).
 */
function ListError() {
  const { error, refetch } = useListContext();
  const translate = useTranslate();
  return (
    <Alert
      severity="error"
      role="alert"
      sx={{ m: 2 }}
      action={
        <Button color="inherit" size="small" onClick={() => refetch()}>
          {translate('iam.list.retry')}
        </Button>
      }
    >
      {translate('iam.list.failed', { message: (error as Error | null)?.message ?? '' })}
    </Alert>
  );
}

/** The list's own meta: the deferred total and the fields it shows, when asked. */
function listMeta(meta: IamMeta | undefined, deferTotal: boolean | undefined, fields: string | undefined): Record<string, unknown> | undefined {
  if (!deferTotal && !fields) return meta as Record<string, unknown> | undefined;
  return { ...meta, ...(deferTotal ? { deferTotal: true } : {}), ...(fields ? { query: { ...meta?.query, fields } } : {}) };
}

/**
 * The fields a list of its own reads (ResourceDeclaration.listReads): its columns as the column
 * chooser shows them (react-admin's stored preferences), and what it reads besides. Undefined,
 * whole records, when the declaration names nothing it reads or the list is inside another screen.
 */
function useShownFields(preferenceKey: string | undefined, declaration: ResourceDeclaration): string | undefined {
  // before the table has told its columns: the declared ones, the more columns hidden
  const shown = useChosenColumns(preferenceKey ?? '')?.sources ?? declaration.listColumns;
  if (!preferenceKey || !declaration.listReads) return undefined;
  return [...new Set([...shown, ...declaration.listReads])].join(',');
}

/**
 * A server-paged list built from the declaration's columns and page sizes, with checkboxes unless
 * the type is read-only (it has no bulk actions).
 */
export function DeclaredList({
  actions,
  onRowClick,
  meta,
  title = false,
  extraColumns = [],
  storeKey,
  empty,
  firstColumnFallback,
  firstColumnAfter,
  embedded = false,
  filter,
  hiddenFilters = [],
  bulkActions,
}: DeclaredListProps) {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const { pageSize, pageWindow } = declaration;
  const { domain } = useSession();
  const filters = declaredFilters(declaration, translate, hiddenFilters, Boolean(domain));
  const Expand = declaration.expand;
  const { company } = useSession();
  const listKey = embedded ? `${declaration.name}.embedded` : (storeKey ?? `${declaration.name}.list`);
  // the declared page size until the person chooses another for this list
  const [perPage, rememberPerPage] = useRememberedPerPage(listKey, pageSize);
  const rowHref = (record: RaRecord) => recordHref(declaration.name, record.id, { companyId: company?.id ?? '', domainId: domain?.id ?? '' });
  // inside another screen the columns are the declared ones; a list of its own lets people choose
  const preferenceKey = embedded ? undefined : columnsKey(declaration.name);
  const Grid = preferenceKey ? DatagridConfigurable : Datagrid;
  const moreColumns = declaration.moreColumns ?? [];
  const fieldOf = (column: string): FieldDeclaration =>
    declaration.fields.find((field) => field.source === column) ?? { source: column, kind: 'text' };
  // a column may be headed otherwise than its form field (users' "displayName"), else as the field
  const fields = useShownFields(preferenceKey, declaration);
  const columnLabel = (column: string) =>
    translate(`resources.${declaration.name}.columns.${column}`, { _: translate(`resources.${declaration.name}.fields.${column}`) });

  return (
    <ColumnsKeyContext.Provider value={preferenceKey}>
      <List
        resource={declaration.name}
        title={title}
        perPage={perPage}
        sort={declaration.defaultSort}
        queryOptions={{ meta: listMeta(meta, declaration.deferredTotal, fields) }}
        filters={filters.length ? filters : undefined}
        filter={filter}
        actions={embedded ? actions : <ListTools actions={actions} preferenceKey={preferenceKey} moreFilters={hasMoreFilters(declaration, hiddenFilters)} />}
        empty={false}
        error={<ListError />}
        storeKey={embedded ? false : listKey}
        disableSyncWithLocation={embedded}
        pagination={
          <WindowPagination
            window={pageWindow}
            rowsPerPageOptions={rowsPerPageOptions(pageSize)}
            onPerPageChange={rememberPerPage}
            deferred={declaration.deferredTotal ? { meta, filter } : undefined}
          />
        }
      >
        <SelectionReset />
        <Grid
          {...(preferenceKey ? { preferenceKey, omit: [...moreColumns] } : {})}
          bulkActionButtons={declaration.readOnly ? false : <></>}
          bulkActionsToolbar={<SelectionSummary actions={bulkActions} />}
          // a wide table scrolls inside the list rather than widening the page
          sx={{ '& .RaDatagrid-tableWrapper': { overflowX: 'auto' } }}
          // a declared detail shows under its row; the first column's link still opens the record
          expand={
            Expand && (
              <Suspense fallback={<LinearProgress aria-label={translate('iam.list.loading')} />}>
                <Expand />
              </Suspense>
            )
          }
          rowClick={
            Expand
              ? 'expand'
              : onRowClick
              ? (_id, _resource, record) => {
                  onRowClick(record);
                  return false;
                }
              : false
          }
          empty={empty ?? <EmptyList />}
        >
          {[...declaration.listColumns, ...moreColumns].map((column, index) =>
            index === 0 && onRowClick ? (
              // The first column opens the record from the keyboard too (a row click is mouse-only).
              <FunctionField
                key={column}
                source={column}
                label={columnLabel(column)}
                sortable={fieldOf(column).sortable !== false}
                render={(record: RaRecord) => (
                  <>
                    {/* a real link to the record's address (docs/CONSOLE.md, "Routes"): copied, or opened in a new tab */}
                    <Link
                      component={rowHref(record) ? 'a' : 'button'}
                      type={rowHref(record) ? undefined : 'button'}
                      href={rowHref(record)}
                      underline="hover"
                      sx={{ textAlign: 'left' }}
                      onClick={(event: MouseEvent) => {
                        event.stopPropagation();
                        if (rowHref(record) && (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey)) return;
                        event.preventDefault();
                        onRowClick(record);
                      }}
                    >
                      <FieldValue field={{ fallback: firstColumnFallback, ...fieldOf(column) }} record={record} plain />
                    </Link>
                    {firstColumnAfter?.(record)}
                  </>
                )}
              />
            ) : (
              <FunctionField
                key={column}
                source={column}
                label={columnLabel(column)}
                sortable={fieldOf(column).sortable !== false && column !== 'description'}
                render={(record: RaRecord) => <FieldValue field={fieldOf(column)} record={record} />}
              />
            ),
          )}
          {extraColumns}
        </Grid>
      </List>
    </ColumnsKeyContext.Provider>
  );
}
