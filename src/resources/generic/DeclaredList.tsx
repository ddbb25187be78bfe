import type { MouseEvent, ReactElement } from 'react';
import { Link, Typography } from '@mui/material';
import { Datagrid, FunctionField, List, TextField, useListContext, useTranslate, type RaRecord } from 'react-admin';
import type { IamMeta } from '../../dataProvider';
import { useDeclaration } from './DeclarationContext';
import { declaredFilters } from './declaredFilters';
import { SelectionReset } from './SelectionReset';
import { WindowPagination } from './WindowPagination';

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
}

/**
 * How many rows are selected, in the page flow. react-admin's own bulk-actions toolbar would slide
 * over the list's toolbar, hiding New, Delete, Switch... while rows are selected.
 */
function SelectionSummary() {
  const { selectedIds } = useListContext();
  const translate = useTranslate();
  return (
    <Typography variant="body2" color="text.secondary" aria-live="polite" sx={{ px: 2, minHeight: 0 }}>
      {selectedIds.length > 0 ? translate('ra.action.bulk_actions', { smart_count: selectedIds.length }) : ''}
    </Typography>
  );
}

/** A server-paged list with checkboxes, built from the declaration's columns and page sizes. */
export function DeclaredList({ actions, onRowClick, meta, title = false, extraColumns = [], storeKey, empty, firstColumnFallback }: DeclaredListProps) {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const { pageSize, pageWindow } = declaration;
  const filters = declaredFilters(declaration, translate);
  // a column may be headed otherwise than its form field (users' "displayName"), else as the field
  const columnLabel = (column: string) =>
    translate(`resources.${declaration.name}.columns.${column}`, { _: translate(`resources.${declaration.name}.fields.${column}`) });

  return (
    <List
      resource={declaration.name}
      title={title}
      perPage={pageSize}
      sort={declaration.defaultSort}
      queryOptions={{ meta: meta as Record<string, unknown> | undefined }}
      filters={filters.length ? filters : undefined}
      actions={actions}
      empty={false}
      storeKey={storeKey ?? `${declaration.name}.list`}
      pagination={<WindowPagination window={pageWindow} rowsPerPageOptions={[pageSize, pageSize * 2, pageSize * 5]} />}
    >
      <SelectionReset />
      <Datagrid
        bulkActionButtons={<></>}
        bulkActionsToolbar={<SelectionSummary />}
        rowClick={
          onRowClick
            ? (_id, _resource, record) => {
                onRowClick(record);
                return false;
              }
            : false
        }
        empty={
          empty ?? (
            <Typography sx={{ p: 2 }} color="text.secondary">
              {translate('iam.list.empty')}
            </Typography>
          )
        }
      >
        {declaration.listColumns.map((column, index) =>
          index === 0 && onRowClick ? (
            // The first column opens the record from the keyboard too (a row click is mouse-only).
            <FunctionField
              key={column}
              source={column}
              label={columnLabel(column)}
              render={(record: RaRecord) => (
                <Link
                  component="button"
                  type="button"
                  underline="hover"
                  onClick={(event: MouseEvent) => {
                    event.stopPropagation();
                    onRowClick(record);
                  }}
                >
                  {String(record[column] || (firstColumnFallback ? record[firstColumnFallback] : '') || '')}
                </Link>
              )}
            />
          ) : (
            <TextField key={column} source={column} label={columnLabel(column)} sortable={column !== 'description'} />
          ),
        )}
        {extraColumns}
      </Datagrid>
    </List>
  );
}
