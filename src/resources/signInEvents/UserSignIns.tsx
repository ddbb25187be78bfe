import { useMemo } from 'react';
import { Box } from '@mui/material';
import { TopToolbar, useNavigate, useTranslate } from 'react-admin';
import { RECORD_SCREENS } from '../auditEvents/recordScreens';
import { DeclaredList } from '../generic/DeclaredList';
import { DeclaredScope } from '../generic/DeclaredScope';
import { ExportCsvButton } from '../generic/ExportCsvButton';
import { useListMeta } from '../generic/useListMeta';
import { signInEvents } from './index';

/** The log's declaration without its User column: every row is this user's. */
const oneUsersEvents = { ...signInEvents, listColumns: signInEvents.listColumns.filter((column) => column !== 'login') };

function UserSignInList({ userId }: { userId: string }) {
  const meta = useListMeta();
  const navigate = useNavigate();
  const translate = useTranslate();
  const filter = useMemo(() => ({ userId }), [userId]);
  return (
    <DeclaredList
      embedded
      // a row opens the event at its address (docs/CONSOLE.md, "A user's sign-ins")
      onRowClick={(event) => {
        const { to, state } = RECORD_SCREENS.signInEvents(event, translate);
        navigate(to, { state });
      }}
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
    <DeclaredScope declaration={oneUsersEvents}>
      {/* a narrow tab scrolls the table rather than cutting it */}
      <Box sx={{ overflowX: 'auto' }}>
        <UserSignInList userId={userId} />
      </Box>
    </DeclaredScope>
  );
}
