import { useNavigate, type RaRecord } from 'react-admin';
import { getSession } from '../../session/session';
import { StatusList } from '../applications/StatusList';
import { apis } from './index';

export type ApiMode = 'new' | 'view' | 'edit';

/** SPEC 2.1: /apis-new and /apis-view receive company, domain, api, mode. */
export function apiState(mode: ApiMode, api?: RaRecord) {
  const { company, domain } = getSession();
  return { company, domain, api, mode };
}

export default function ApiList() {
  const navigate = useNavigate();
  return (
    <StatusList
      onNew={() => navigate(apis.routes.form, { state: apiState('new') })}
      onRowClick={(record) => navigate(apis.routes.view!, { state: apiState('view', record) })}
    />
  );
}
