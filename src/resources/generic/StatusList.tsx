import { useState, type ReactElement, type ReactNode } from 'react';
import { Stack, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { TopToolbar, useListContext, useLocale, useNavigate, useTranslate, type RaRecord } from 'react-admin';
import { useDeclaration } from './DeclarationContext';
import { DeclaredList } from './DeclaredList';
import { DeleteSelectedButton } from './DeleteSelectedButton';
import { ExportCsvButton } from './ExportCsvButton';
import { NewButton } from './NewButton';
import type { FormMode } from './formMode';
import { statusCondition, useListStatus, type ListStatus } from './listStatus';
import { PurgeButton } from './PurgeButton';
import { recordHref } from './recordLink';
import { currentPathContext } from '../../session/session';
import { RecoverButton, SoftDeleteButton } from './StatusButtons';
import { useListMeta } from './useListMeta';

export interface StatusListTexts {
  activeTitle: string;
  deletedTitle: string;
  emptyActive: string;
  emptyDeleted: string;
  emptySearch: string;
}

export interface DeleteReasons {
  softDelete?: string;
  purge?: string;
}

interface StatusListProps {
  /** The navigation state the form (or view) screen receives (docs/CONSOLE.md, "Routes"). */
  formState?: (mode: FormMode, record?: RaRecord) => Record<string, unknown>;
  /** The field a single purge is confirmed with when purges are typed (username, group name). */
  nameField?: string;
  /** Purge asks for the name or the count to be typed (users, groups) rather than a confirmation. */
  typedPurge?: boolean;
  /** Recover asks first (applications and APIs: recovering one lets it sign users in again). */
  recoverConfirm?: { title: string; content: string };
  texts?: StatusListTexts;
  /** Controls shown first in the toolbar (the applications' and APIs' Domains drop-down). */
  toolbarStart?: ReactNode;
  /** Controls shown last in the toolbar (the users list's Import / Export). */
  toolbarEnd?: ReactNode;
  /** No CSV export (applications and APIs: their form fields hold secrets and settings, not a roster). */
  noExport?: boolean;
  /**
   * A hook, called inside the list, saying why the selection cannot be deleted or purged (the
   * provider would refuse it); the buttons are then disabled and say why.
   */
  useDeleteReasons?: () => DeleteReasons;
  /** Shown after a row's name in the first column (a user's Blocked). */
  firstColumnAfter?: (record: RaRecord) => ReactNode;
  /** Actions on the selected active records, beside their count (the users list's Add to group...). */
  bulkActions?: ReactNode;
}

const noReasons = (): DeleteReasons => ({});
const plainState = (mode: FormMode, record?: RaRecord) => ({ mode, record });

/**
 * Active / deleted, one control on every soft-deletable list (docs/DECISIONS.md 38): a toggle showing
 * both choices. A declaration with a deleted route has a route per status (users, groups: the side
 * bar's Deleted entries go there too), so the toggle moves between them; otherwise the status is the
 * list's own (applications, APIs).
 */
function StatusFilter({ status, setStatus }: { status: ListStatus; setStatus: (status: ListStatus) => void }) {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const navigate = useNavigate();
  const { deleted } = declaration.routes;
  const choose = (value: ListStatus) => (deleted ? navigate(value === 'deleted' ? deleted : declaration.routes.list) : setStatus(value));
  return (
    <ToggleButtonGroup
      exclusive
      size="small"
      value={status}
      aria-label={translate('iam.statusList.status')}
      // The standard grey of unselected buttons falls just under 4.5:1 on the page background.
      sx={{ '& .MuiToggleButton-root': { color: 'text.secondary' }, '& .Mui-selected': { color: 'text.primary' } }}
      onChange={(_event, value: ListStatus | null) => value && value !== status && choose(value)}
    >
      <ToggleButton value="active">{translate('iam.statusList.active')}</ToggleButton>
      <ToggleButton value="deleted">{translate('iam.statusList.deleted')}</ToggleButton>
    </ToggleButtonGroup>
  );
}

/**
 * What to do next when a list is empty, in the same words on every status list: the type's own, else
 * the general ones naming the type. Any search or filter set counts (not the search alone).
 */
function EmptyState({ status, texts }: { status: ListStatus; texts?: StatusListTexts }) {
  const declaration = useDeclaration();
  const { filterValues } = useListContext();
  const translate = useTranslate();
  const filtered = Object.values(filterValues ?? {}).some((value) => value !== undefined && value !== '' && value !== null);
  const words = texts ?? { emptySearch: 'iam.list.emptySearch', emptyDeleted: 'iam.list.emptyDeleted', emptyActive: 'iam.list.emptyActive' };
  const key = filtered ? words.emptySearch : status === 'deleted' ? words.emptyDeleted : words.emptyActive;
  const plural = translate(`resources.${declaration.name}.name`, { smart_count: 2, _: declaration.name });
  // "applications", but "APIs" stays as written, and German nouns keep their capital ("Anwendungen")
  const locale = useLocale();
  const name = locale === 'de' || /^.[A-Z]/.test(plural) ? plural : plural.charAt(0).toLowerCase() + plural.slice(1);
  return (
    <Typography sx={{ p: 2 }} color="text.secondary" role="status">
      {translate(key, { name })}
    </Typography>
  );
}

function Actions({
  status,
  setStatus,
  onNew,
  props,
}: {
  status: ListStatus;
  setStatus: (status: ListStatus) => void;
  onNew: () => void;
  props: StatusListProps;
}) {
  const declaration = useDeclaration();
  const meta = useListMeta({ condition: statusCondition(declaration, status) });
  const reasons = (props.useDeleteReasons ?? noReasons)();
  const nameField = props.nameField ?? declaration.idFromField ?? 'name';
  const items = (
    <>
      {props.toolbarStart}
      <StatusFilter status={status} setStatus={setStatus} />
      {declaration.readOnly ? null : status === 'active' ? (
        <>
          <NewButton variant={props.toolbarStart ? 'contained' : 'text'} onClick={onNew} />
          <SoftDeleteButton meta={meta} disabledReason={reasons.softDelete} />
        </>
      ) : (
        <>
          <RecoverButton meta={meta} confirm={props.recoverConfirm} />
          {props.typedPurge ? (
            <PurgeButton meta={meta} nameField={nameField} disabledReason={reasons.purge} />
          ) : (
            <DeleteSelectedButton meta={meta} successMessage="iam.statusList.purged" disabledReason={reasons.purge} />
          )}
        </>
      )}
      {!props.noExport && (
        <ExportCsvButton
          meta={meta}
          columns={['id', ...declaration.formFields, declaration.softDelete!.field]}
          filename={status === 'deleted' ? `${declaration.name}-deleted` : declaration.name}
        />
      )}
      {props.toolbarEnd}
    </>
  );
  // the toggle and the buttons stay together, wrapping as one
  return (
    <TopToolbar sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}>
        {items}
      </Stack>
    </TopToolbar>
  );
}

function StatusListView({ status, setStatus, ...props }: StatusListProps & { status: ListStatus; setStatus: (status: ListStatus) => void }) {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const navigate = useNavigate();
  const meta = useListMeta({ condition: statusCondition(declaration, status) });
  const formState = props.formState ?? plainState;
  const { texts } = props;
  const title = texts ? translate(status === 'deleted' ? texts.deletedTitle : texts.activeTitle) : translate(declaration.labelKey);
  return (
    <DeclaredList
      title={title}
      meta={meta}
      storeKey={`${declaration.name}.${status}.list`}
      empty={<EmptyState status={status} texts={texts} />}
      firstColumnFallback={props.nameField}
      firstColumnAfter={props.firstColumnAfter}
      bulkActions={status === 'active' ? props.bulkActions : undefined}
      // the record's shareable address (docs/CONSOLE.md, "Routes"), with the state its screen reads
      onRowClick={(record) =>
        navigate(recordHref(declaration.name, record.id, currentPathContext()) ?? declaration.routes.view ?? declaration.routes.form, {
          state: formState('view', record),
        })
      }
      actions={
        <Actions status={status} setStatus={setStatus} onNew={() => navigate(declaration.routes.form, { state: formState('new') })} props={props} />
      }
    />
  );
}

/**
 * The active and deleted lists of a soft-deletable resource (docs/CONSOLE.md, "Resources"): search,
 * declared filters, status filter, server paging, bulk Delete / Recover / Purge after a
 * confirmation, and CSV export of the current search.
 */
export function StatusList(props: StatusListProps): ReactElement {
  const routed = useListStatus();
  const [toggled, setToggled] = useState<ListStatus>('active');
  const status = useDeclaration().routes.deleted ? routed : toggled;
  // A fresh list per status: its own page, search and selection.
  return <StatusListView key={status} status={status} setStatus={setToggled} {...props} />;
}
