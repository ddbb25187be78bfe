import { useNavigate, useTranslate, type RaRecord } from 'react-admin';
import { getSession } from '../../session/session';
import { applications } from './index';
import { StatusList } from './StatusList';

export type ApplicationMode = 'new' | 'view' | 'edit';

/** SPEC 2.1: /applications-new and /applications-view receive company, domain, application, mode, header. */
export function applicationState(mode: ApplicationMode, header: string, application?: RaRecord) {
  const { company, domain } = getSession();
  return { company, domain, application, mode, header };
}

export default function ApplicationList() {
  const navigate = useNavigate();
  const translate = useTranslate();
  return (
    <StatusList
      onNew={() =>
        navigate(applications.routes.form, { state: applicationState('new', translate('iam.applications.newTitle')) })
      }
      onRowClick={(record) =>
        navigate(applications.routes.view!, {
          state: applicationState('view', translate('iam.applications.viewTitle'), record),
        })
      }
    />
  );
}
