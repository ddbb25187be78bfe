import { useState } from 'react';
import { Card, CardContent, Typography } from '@mui/material';
import {
  BooleanInput,
  Form,
  FormDataConsumer,
  Title,
  useCreate,
  useLocation,
  useNavigate,
  useNotify,
  useTranslate,
  useUpdate,
  type RaRecord,
} from 'react-admin';
import type { IamMeta } from '../../dataProvider';
import { getSession, type Company, type Domain } from '../../session/session';
import { useDeclaration } from '../generic/DeclarationContext';
import { goBack } from '../generic/goBack';
import { DeclaredInputs } from '../generic/DeclaredInputs';
import { isFormMode, type FormMode } from '../generic/formMode';
import { describeSaveFailure, type SaveFailure } from '../generic/saveError';
import { SaveErrorAlert } from '../generic/SaveErrorAlert';
import { hashPassword } from './password';
import { NewPasswordInputs } from './NewPasswordInputs';
import { checkPassword, useDomainPolicy } from './passwordPolicy';
import { FormModeButtons } from '../generic/FormModeButtons';
import { RecordTabs } from '../generic/RecordTabs';
import UserPanels from './UserPanels';
import { inviteUser } from './invite';

interface UserFormState {
  company?: Company;
  domain?: Domain;
  user?: RaRecord;
  mode?: unknown;
  header?: string;
}

const TITLES: Record<FormMode, string> = {
  new: 'iam.users.newTitle',
  view: 'iam.users.viewTitle',
  edit: 'iam.users.editTitle',
};

/** The fields the provider stores; password and confirmPassword never leave as they are. */
function declaredValues(fields: readonly string[], values: Record<string, unknown>) {
  return Object.fromEntries(fields.filter((field) => values[field] !== undefined).map((field) => [field, values[field]]));
}

/**
 * The user screen: one per user, so that opening another user from here (an actor in the History
 * tab) starts afresh on its General tab.
 */
export default function UserForm() {
  const state = (useLocation().state ?? {}) as UserFormState;
  return <UserScreen key={String(state.user?.id ?? 'new')} />;
}

/**
 * The user form (docs/CONSOLE.md, "Users"). New: the password is checked against Confirm Password, then bcrypt-hashed
 * here and sent as authVerification. View and edit hide both password fields (a save keeps the
 * password). Opened without state, it is a new user of the current domain. An existing user's screen
 * adds the History, Sign-ins and Sessions tabs (docs/CONSOLE.md, "History and audit log").
 */
function UserScreen() {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const navigate = useNavigate();
  const state = (useLocation().state ?? {}) as UserFormState;
  const requested: FormMode = isFormMode(state.mode) ? state.mode : 'new';
  const [mode, setMode] = useState<FormMode>(requested !== 'new' && !state.user ? 'new' : requested);
  const user = mode === 'new' ? undefined : state.user;
  const [error, setError] = useState<SaveFailure['alert']>();
  const [hashing, setHashing] = useState(false);
  const [create, { isPending: creating }] = useCreate();
  const notify = useNotify();
  const [update, { isPending: updating }] = useUpdate();
  const saving = hashing || creating || updating;
  const meta: IamMeta | undefined =
    state.company && state.domain ? { pathContext: { companyId: state.company.id, domainId: state.domain.id } } : undefined;
  // the domain's password rules (docs/CONSOLE.md, "Domain security policy"), checked here: the provider only sees the hash
  const policyContext = { companyId: (state.company ?? getSession().company)?.id ?? '', domainId: (state.domain ?? getSession().domain)?.id ?? '' };
  const { data: policy } = useDomainPolicy(policyContext, mode === 'new');

  const submit = async (values: Record<string, unknown>) => {
    setError(undefined);
    const data = declaredValues(declaration.formFields, values);
    try {
      if (mode === 'new' && values.invite) {
        // no password: the invitation lets her choose it (docs/CONSOLE.md, "E-mail, reset links and invitations")
        const created = await create(declaration.name, { data, meta }, { returnPromise: true });
        await inviteUser(policyContext, created, notify);
      } else if (mode === 'new') {
        const problem = await checkPassword(policy, String(values.password));
        if (problem) return { password: problem };
        setHashing(true);
        const authVerification = await hashPassword(String(values.password));
        setHashing(false);
        await create(declaration.name, { data: { ...data, authVerification }, meta }, { returnPromise: true });
      } else {
        await update(
          declaration.name,
          { id: user!.id, data: { ...user, ...data }, previousData: user, meta },
          { mutationMode: 'pessimistic', returnPromise: true },
        );
      }
      goBack(navigate, declaration.routes.list);
    } catch (failure) {
      setHashing(false);
      const { fieldErrors, alert } = describeSaveFailure(
        failure,
        {
          sources: mode === 'new' ? [...declaration.formFields, 'password'] : declaration.formFields,
          fields: declaration.fields,
          // the provider checks the hash it is sent in place of the password
          aliases: { authVerification: 'password' },
          name: String(values.username ?? ''),
        },
        translate,
      );
      setError(alert);
      // react-admin's Form shows these under their inputs
      return fieldErrors;
    }
  };

  const back = () => goBack(navigate, declaration.routes.list);
  const session = getSession();
  const context = { companyId: (state.company ?? session.company)?.id ?? '', domainId: (state.domain ?? session.domain)?.id ?? '' };

  const form = (
    <Card sx={{ mt: 2, maxWidth: 720 }}>
      <Title title={translate(TITLES[mode])} />
      <CardContent>
        <Typography variant="h5" component="h1" gutterBottom>
          {translate(TITLES[mode])}
        </Typography>
        <SaveErrorAlert alert={error} />
        <Form record={user} onSubmit={submit} noValidate key={mode}>
          <DeclaredInputs readOnly={mode === 'view'} />
          {mode === 'new' && <BooleanInput source="invite" label="iam.emailActions.inviteInstead" helperText="iam.emailActions.inviteHelp" />}
          {mode === 'new' && (
            <FormDataConsumer>
              {({ formData }) =>
                !formData.invite && (
                  <NewPasswordInputs policy={policy} />
                )
              }
            </FormDataConsumer>
          )}
          <FormModeButtons mode={mode} saving={saving} onEdit={() => setMode('edit')} onBack={back} />
        </Form>
      </CardContent>
    </Card>
  );

  return (
    <RecordTabs
      idPrefix="user"
      label={translate('iam.users.viewTitle')}
      record={user}
      context={context}
      tabs={[
        {
          id: 'general',
          labelKey: 'iam.tabs.general',
          framed: true,
          keepMounted: true,
          content: (
            <>
              {form}
              {/* an existing user's account state and actions (docs/CONSOLE.md, "Account states"); they
                  load with this screen, itself loaded on first use: in the record screens' shared
                  chunk (../lazyParts) they cost the first screen half a kilobyte */}
              {user && <UserPanels user={user} context={context} />}
            </>
          ),
        },
      ]}
    />
  );
}
