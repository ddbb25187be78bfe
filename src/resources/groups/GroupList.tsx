import { useListContext, useTranslate } from 'react-admin';
import { StatusList, type DeleteReasons } from '../generic/StatusList';
import { ADMINISTRATORS_GROUP } from '../users/administrators';
import { groupFormState } from './formState';

/** The administrators group can be neither soft-deleted nor purged (docs/CONSOLE.md, "Groups"). */
function useGroupDeleteReasons(): DeleteReasons {
  const translate = useTranslate();
  const { selectedIds } = useListContext();
  if (!selectedIds.includes(ADMINISTRATORS_GROUP)) return {};
  const reason = translate('iam.groups.administratorsKept');
  return { softDelete: reason, purge: reason };
}

export default function GroupList() {
  return (
    <StatusList
      nameField="name"
      typedPurge
      formState={groupFormState}
      useDeleteReasons={useGroupDeleteReasons}
      texts={{
        activeTitle: 'iam.groups.listTitle',
        deletedTitle: 'iam.groups.deletedTitle',
        emptyActive: 'iam.groups.emptyActive',
        emptyDeleted: 'iam.groups.emptyDeleted',
        emptySearch: 'iam.groups.emptySearch',
      }}
    />
  );
}
