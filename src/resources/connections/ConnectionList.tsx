import { DomainSwitcher } from '../applications/DomainSwitcher';
import { StatusList } from '../generic/StatusList';
import { connectionState } from './formState';

/** The domain's connections (docs/CONSOLE.md, "Connections"): active and deleted, New opens the wizard, a row its screen. */
export default function ConnectionList() {
  return (
    <StatusList
      toolbarStart={<DomainSwitcher />}
      noExport
      nameField="displayName"
      recoverConfirm={{ title: 'iam.connections.recoverTitle', content: 'iam.connections.recoverContent' }}
      formState={connectionState}
    />
  );
}
