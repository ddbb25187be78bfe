import { useMemo } from 'react';
import { TopToolbar } from 'react-admin';
import { DeclaredList } from '../generic/DeclaredList';
import { DeclaredScope } from '../generic/DeclaredScope';
import { ExportCsvButton } from '../generic/ExportCsvButton';
import { useListMeta } from '../generic/useListMeta';
import { signInEvents } from './index';

function UserSignInList({ userId }: { userId: string }) {
  const meta = useListMeta();
  const filter = useMemo(() => ({ userId }), [userId]);
  return (
    <DeclaredList
      embedded
      meta={meta}
      filter={filter}
      hiddenFilters={['userId']}
      actions={
        <TopToolbar>
          <ExportCsvButton meta={meta} filter={filter} columns={['id', ...signInEvents.formFields]} filename={`${signInEvents.name}-${userId}`} />
        </TopToolbar>
      }
    />
  );
}

/**
 * A user's sign-ins (docs/CONSOLE.md, "A user's sign-ins"): the Sign-in logs list kept to one user,
 * with the outcome and time filters, server-paged; for the user screen's Sign-ins tab.
 */
export default function UserSignIns({ userId }: { userId: string }) {
  return (
    <DeclaredScope declaration={signInEvents}>
      <UserSignInList userId={userId} />
    </DeclaredScope>
  );
}
