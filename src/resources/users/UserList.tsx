import { useListContext, useTranslate } from 'react-admin';
import { useSession } from '../../session/useSession';
import { StatusList, type DeleteReasons } from '../generic/StatusList';
import { lastAdministratorReason, useAdministrators } from './administrators';
import { useListStatus } from '../generic/listStatus';
import { userFormState } from './formState';

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

export default function UserList() {
  const translate = useTranslate();
  return (
    <StatusList
      nameField="username"
      typedPurge
      formState={(mode, record) => userFormState(mode, translate, record)}
      useDeleteReasons={useUserDeleteReasons}
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
