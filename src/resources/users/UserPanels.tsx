import type { ComponentType } from 'react';
import { Stack } from '@mui/material';
import type { RaRecord } from 'react-admin';
import type { PathContext } from '../../session/session';
import AccountPanel from './AccountPanel';
import EmailActions from './EmailActions';
import Factors from './Factors';

/** What a panel of the user screen is given: the user shown and the company and domain she belongs to. */
export interface UserPanelProps {
  user: RaRecord;
  context: PathContext;
}

/**
 * The panels under the user form on its General tab (view and edit), in this order, one card each:
 * the Account panel (docs/CONSOLE.md, "Account states"), then those other parts add (e-mail,
 * factors): import the panel here and add it to the list. They load with the user screen, never
 * with the first screen. A panel that needs the account's state reads it with accountState's
 * useSignInState (one cached call for all).
 */
const PANELS: readonly ComponentType<UserPanelProps>[] = [AccountPanel, EmailActions, Factors];

export default function UserPanels(props: UserPanelProps) {
  return (
    // as wide as the form card above them and the tab bar (RecordTabs)
    <Stack spacing={2} sx={{ mt: 2 }}>
      {PANELS.map((Panel, index) => (
        <Panel key={index} {...props} />
      ))}
    </Stack>
  );
}
