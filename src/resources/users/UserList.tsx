import { Box } from '@mui/material';
import { useListContext, useTranslate, type RaRecord } from 'react-admin';
import { ColorChip } from '../generic/FieldValue';
import { useSession } from '../../session/useSession';
import { StatusList, type DeleteReasons } from '../generic/StatusList';
import { lastAdministratorReason, useAdministrators } from './administrators';
import { useListStatus } from '../generic/listStatus';
import { userFormState } from './formState';
import { UserBulkActions } from './BulkActions';
import { ImportExportButton } from '../userJobs/ImportExportButton';

/**
 * Delete is not offered for a selection the provider would refuse (docs/CONSOLE.md, "Users"): the
 * signed-in administrator themselves, or every active administrator of the domain.
 */
function useUserDeleteReasons(): DeleteReasons {
  const translate = useTranslate();
  const { selectedIds } = useListContext();
  const { user, client, company, domain } = useSession();
  // Deleted users administer nothing: only a selection on the active list needs the administrators.
  const { data: administrators } = useAdministrators(undefined, useListStatus() === 'active' && selectedIds.length > 0);
  const signedInHere = client?.companyId === company?.id && client?.domain === domain?.id;
  if (signedInHere && user?.id && selectedIds.includes(user.id)) return { softDelete: translate('iam.users.cannotDeleteYourself') };
  return { softDelete: lastAdministratorReason(selectedIds, administrators, translate) };
}

/**
 * A blocked user's row says so after her name (docs/CONSOLE.md, "Account states"), where a phone's
 * width still shows it; a lock shows on the user screen only (the list's records do not hold it).
 */
function blockedMark(record: RaRecord, translate: ReturnType<typeof useTranslate>) {
  if (!record.blockedAt) return null;
  return (
    <Box component="span" sx={{ ml: 1, display: 'inline-block' }}>
      <ColorChip color="error">{translate('iam.accountState.states.blocked')}</ColorChip>
    </Box>
  );
}

export default function UserList() {
  const translate = useTranslate();
  const active = useListStatus() === 'active';
  return (
    <StatusList
      nameField="username"
      typedPurge
      formState={(mode, record) => userFormState(mode, translate, record)}
      useDeleteReasons={useUserDeleteReasons}
      firstColumnAfter={active ? (record) => blockedMark(record, translate) : undefined}
      bulkActions={<UserBulkActions />}
      toolbarEnd={active ? <ImportExportButton /> : undefined}
      texts={{
        activeTitle: 'iam.users.listTitle',
        deletedTitle: 'iam.users.deletedTitle',
        emptyActive: 'iam.users.emptyActive',
        emptyDeleted: 'iam.users.emptyDeleted',
        emptySearch: 'iam.users.emptySearch',
      }}
    />
  );
}
