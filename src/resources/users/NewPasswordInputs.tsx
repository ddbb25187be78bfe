import { required, TextInput, useTranslate } from 'react-admin';
import { matchesPassword } from './password';
import { DEFAULT_POLICY, type DomainPolicy, preloadCommonPasswords } from './passwordPolicy';

/**
 * Password and Confirm Password as the user form and the Set password dialog ask them: required,
 * matching, the domain's rule said under the first, and the common-password list loaded once the
 * person starts typing (docs/CONSOLE.md, "Users" and "Account states").
 */
export function NewPasswordInputs({ policy }: { policy?: Pick<DomainPolicy, 'minPasswordLength'> }) {
  const translate = useTranslate();
  return (
    <>
      <TextInput
        source="password"
        label={translate('resources.users.fields.password')}
        type="password"
        validate={required()}
        fullWidth
        autoComplete="new-password"
        onFocus={preloadCommonPasswords}
        helperText={translate('iam.securityPolicy.passwordRule', { smart_count: (policy ?? DEFAULT_POLICY).minPasswordLength })}
      />
      <TextInput
        source="confirmPassword"
        label={translate('resources.users.fields.confirmPassword')}
        type="password"
        validate={[required(), matchesPassword]}
        fullWidth
        autoComplete="new-password"
      />
    </>
  );
}
