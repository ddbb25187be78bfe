import type { ReactElement } from 'react';
import { Button, Link, MenuItem, TextField as MuiTextField, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import {
  Datagrid,
  FunctionField,
  List,
  SearchInput,
  TextField,
  TopToolbar,
  useListContext,
  useNavigate,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import type { IamMeta } from '../../../dataProvider';
import { useDeclaration } from '../../generic/DeclarationContext';
import type { FormMode } from '../../generic/DeclaredFormScreen';
import { useListMeta } from '../../generic/useListMeta';
import { SelectionReset } from '../../generic/SelectionReset';
import { WindowPagination } from '../../generic/WindowPagination';
import { ExportCsvButton } from './ExportCsvButton';
import { statusCondition, useListStatus, type ListStatus } from './listStatus';
import { PurgeButton } from './PurgeButton';
import { RecoverButton, SoftDeleteButton } from '../../generic/StatusButtons';

export interface StatusListTexts {
  activeTitle: string;
  deletedTitle: string;
  emptyActive: string;
  emptyDeleted: string;
  emptySearch: string;
}

interface StatusListProps {
  /** The navigation state the form screen receives (SPEC 2.1). */
  formState: (mode: FormMode, record?: RaRecord) => Record<string, unknown>;
  /** The field a single purge is confirmed with (username, group name). */
  nameField: string;
  texts: StatusListTexts;
  /**
   * A hook, called inside the list, saying why the selection cannot be deleted or purged (the
   * provider would refuse it); the buttons are then disabled and say why.
   */
  useDeleteReasons?: () => DeleteReasons;
}

export interface DeleteReasons {
  softDelete?: string;
  purge?: string;
}

const noReasons = (): DeleteReasons => ({});

/** Active / deleted: each status is its own route, so the filter moves between them. */
function StatusFilter({ status }: { status: ListStatus }) {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const navigate = useNavigate();
  return (
    <MuiTextField
      select
      size="small"
      label={translate('iam.statusList.status')}
      value={status}
      onChange={(event) =>
        navigate(event.target.value === 'deleted' ? declaration.routes.deleted! : declaration.routes.list)
      }
      sx={{ minWidth: 140, mr: 'auto' }}
    >
      <MenuItem value="active">{translate('iam.statusList.active')}</MenuItem>
      <MenuItem value="deleted">{translate('iam.statusList.deleted')}</MenuItem>
    </MuiTextField>
  );
}

function Actions({
  status,
  meta,
  formState,
  nameField,
  useDeleteReasons = noReasons,
}: { status: ListStatus; meta: IamMeta } & Omit<StatusListProps, 'texts'>) {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const navigate = useNavigate();
  const reasons = useDeleteReasons();
  return (
    <TopToolbar sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
      <StatusFilter status={status} />
      {status === 'active' ? (
        <>
          <Button startIcon={<AddIcon />} onClick={() => navigate(declaration.routes.form, { state: formState('new') })}>
            {translate('iam.actions.new')}
          </Button>
          <SoftDeleteButton meta={meta} disabledReason={reasons.softDelete} />
        </>
      ) : (
        <>
          <RecoverButton meta={meta} />
          <PurgeButton meta={meta} nameField={nameField} disabledReason={reasons.purge} />
        </>
      )}
      <ExportCsvButton
        meta={meta}
        columns={['id', ...declaration.formFields, declaration.softDelete!.field]}
        filename={status === 'deleted' ? `${declaration.name}-deleted` : declaration.name}
      />
    </TopToolbar>
  );
}

/** What to do next when a list is empty. */
function EmptyState({ status, texts }: { status: ListStatus; texts: StatusListTexts }) {
  const { filterValues } = useListContext();
  const translate = useTranslate();
  const key = filterValues?.q ? texts.emptySearch : status === 'deleted' ? texts.emptyDeleted : texts.emptyActive;
  return (
    <Typography sx={{ p: 2 }} color="text.secondary" role="status">
      {translate(key)}
    </Typography>
  );
}

function StatusListView({ status, formState, nameField, texts, useDeleteReasons }: StatusListProps & { status: ListStatus }) {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const navigate = useNavigate();
  const meta = useListMeta({ condition: statusCondition(declaration, status) });
  const { pageSize, pageWindow } = declaration;

  return (
    <List
      resource={declaration.name}
      title={translate(status === 'deleted' ? texts.deletedTitle : texts.activeTitle)}
      perPage={pageSize}
      sort={declaration.defaultSort}
      queryOptions={{ meta: meta as Record<string, unknown> }}
      filters={[<SearchInput key="q" source="q" alwaysOn />]}
      actions={<Actions status={status} meta={meta} formState={formState} nameField={nameField} useDeleteReasons={useDeleteReasons} />}
      empty={false}
      storeKey={`${declaration.name}.${status}.list`}
      pagination={<WindowPagination window={pageWindow} rowsPerPageOptions={[pageSize, pageSize * 2, pageSize * 5]} />}
    >
      <SelectionReset />
      <Datagrid
        bulkActionButtons={<></>}
        rowClick={(_id, _resource, record) => {
          navigate(declaration.routes.form, { state: formState('view', record) });
          return false;
        }}
        empty={<EmptyState status={status} texts={texts} />}
      >
        <FunctionField
          source="displayName"
          label="iam.statusList.displayNameColumn"
          render={(record: RaRecord) => (
            // A real link-button, so a keyboard opens a record as a click on the row does.
            <Link
              component="button"
              type="button"
              underline="hover"
              onClick={(event) => {
                event.stopPropagation();
                navigate(declaration.routes.form, { state: formState('view', record) });
              }}
            >
              {record.displayName || record[nameField]}
            </Link>
          )}
        />
        <TextField source="email" label="iam.statusList.emailColumn" />
      </Datagrid>
    </List>
  );
}

/**
 * The active and deleted lists of a soft-deletable resource (users, groups): search, status filter,
 * server paging, bulk Delete / Recover / Purge and CSV export of the current search.
 */
export function StatusList(props: StatusListProps): ReactElement {
  const status = useListStatus();
  // A fresh list per status: its own page, search and selection.
  return <StatusListView key={status} status={status} {...props} />;
}
