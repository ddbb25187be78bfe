import { useMemo, useState } from 'react';
import { Box, Button, Typography } from '@mui/material';
import AddModeratorIcon from '@mui/icons-material/AddModerator';
import RemoveModeratorIcon from '@mui/icons-material/RemoveModerator';
import { Confirm, TopToolbar, useDeleteMany, useListContext, useNavigate, useNotify, useTranslate } from 'react-admin';
import { useSession } from '../../session/useSession';
import { useDeclaration } from '../generic/DeclarationContext';
import { DeclaredList } from '../generic/DeclaredList';
import { DeclaredScope } from '../generic/DeclaredScope';
import { DisabledReason } from '../generic/DisabledReason';
import { useAllowed } from '../generic/useAllowed';
import { useListMeta } from '../generic/useListMeta';
import type { RecordTabProps, ResourceDeclaration } from '../types';
import { AssignDialog, holderName, type Holder, type HolderType } from './AssignDialog';

/** Remove of the selected assignments, confirmed; the provider keeps the last Owner and says so. */
function RemoveButton() {
  const translate = useTranslate();
  const notify = useNotify();
  const { resource, selectedIds, onUnselectItems } = useListContext();
  const { allowed, reason } = useAllowed('delete');
  const [open, setOpen] = useState(false);
  const [deleteMany, { isPending }] = useDeleteMany();
  const count = selectedIds.length;
  const remove = async () => {
    try {
      await deleteMany(resource, { ids: selectedIds }, { returnPromise: true });
      notify('iam.roles.removed', { type: 'info', messageArgs: { count, smart_count: count } });
      onUnselectItems();
    } catch (error) {
      notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
    } finally {
      setOpen(false);
    }
  };
  return (
    <>
      <DisabledReason reason={reason}>
        <Button color="error" startIcon={<RemoveModeratorIcon />} disabled={count === 0 || isPending || !allowed} onClick={() => setOpen(true)}>
          {translate('iam.roles.remove')}
        </Button>
      </DisabledReason>
      <Confirm
        isOpen={open}
        loading={isPending}
        title="iam.roles.removeTitle"
        content="iam.roles.removeContent"
        translateOptions={{ count, smart_count: count }}
        confirm="iam.roles.remove"
        cancel="iam.actions.cancel"
        onConfirm={remove}
        onClose={() => setOpen(false)}
      />
    </>
  );
}

/** Assign and Remove; Assign opens the dialog (given a holder, for that holder). */
function Actions({ holder, assigning, setAssigning }: { holder?: Holder; assigning: boolean; setAssigning: (open: boolean) => void }) {
  const translate = useTranslate();
  const { domain } = useSession();
  const { allowed, reason } = useAllowed('create');
  // the holder is a user or group of the current domain
  const why = reason ?? (holder || domain ? undefined : translate('iam.roles.noDomain'));
  return (
    <TopToolbar>
      <DisabledReason reason={why}>
        <Button variant="contained" startIcon={<AddModeratorIcon />} disabled={!allowed || Boolean(why)} onClick={() => setAssigning(true)}>
          {translate('iam.roles.assign')}
        </Button>
      </DisabledReason>
      <RemoveButton />
      {assigning && allowed && !why && <AssignDialog holder={holder} onClose={() => setAssigning(false)} />}
    </TopToolbar>
  );
}

/**
 * The Roles screen (docs/CONSOLE.md, "Roles"): who holds which role over the current company, its
 * domains and the companies below it; Assign and Remove. `initiallyAssigning`: opened on the Assign
 * dialog (the declaration's form route), which leads back to the list when it closes.
 */
export function RoleList({ initiallyAssigning = false }: { initiallyAssigning?: boolean }) {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const navigate = useNavigate();
  const meta = useListMeta();
  const [assigning, setAssigning] = useState(initiallyAssigning);
  const toggle = (open: boolean) => {
    setAssigning(open);
    if (!open && initiallyAssigning) navigate(declaration.routes.list);
  };
  return (
    <>
      <Typography color="text.secondary" sx={{ mt: 2, mx: 1 }}>
        {translate('iam.roles.administratorsNote')}
      </Typography>
      <DeclaredList
        title={translate(declaration.labelKey)}
        meta={meta}
        storeKey={`${declaration.name}.list`}
        actions={<Actions assigning={assigning} setAssigning={toggle} />}
      />
    </>
  );
}

/** /roles-assign: the Roles screen with its Assign dialog open. */
export function RoleAssignScreen() {
  return <RoleList initiallyAssigning />;
}

function HolderRoleList({ holder }: { holder: Holder }) {
  const meta = useListMeta();
  const [assigning, setAssigning] = useState(false);
  const filter = useMemo(
    () => ({ holderType: holder.type, holderId: holder.id, holderCompanyId: holder.companyId, holderDomainId: holder.domainId }),
    [holder.type, holder.id, holder.companyId, holder.domainId],
  );
  return (
    <DeclaredList
      embedded
      meta={meta}
      filter={filter}
      hiddenFilters={['holderType']}
      actions={<Actions holder={holder} assigning={assigning} setAssigning={setAssigning} />}
    />
  );
}

/**
 * A user's or group's Roles tab (docs/CONSOLE.md, "Roles"): the roles that holder holds over the
 * current company and below, with Assign (to this holder) and Remove. `assignments` is the Roles
 * declaration, given by the tab's declaration.
 */
export function HolderRoles({ record, context, holderType, assignments }: RecordTabProps & { holderType: HolderType; assignments: ResourceDeclaration }) {
  const holder: Holder = { type: holderType, id: String(record.id), name: holderName(record), companyId: context.companyId, domainId: context.domainId };
  // every row is this holder's
  const oneHolders = useMemo(
    () => ({ ...assignments, listColumns: assignments.listColumns.filter((column) => column !== 'holderName' && column !== 'holderType') }),
    [assignments],
  );
  return (
    <DeclaredScope declaration={oneHolders}>
      {/* a narrow tab scrolls the table rather than cutting it */}
      <Box sx={{ overflowX: 'auto' }}>
        <HolderRoleList holder={holder} />
      </Box>
    </DeclaredScope>
  );
}
