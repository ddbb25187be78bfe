import { useState } from 'react';
import { Alert, Card, CardContent, Divider, Typography } from '@mui/material';
import { useTranslate, useUpdate, type RaRecord } from 'react-admin';
import { FormModeButtons } from '../generic/FormModeButtons';
import type { FormMode } from '../generic/formMode';
import type { PathContext } from '../../session/session';
import { AccountSwitches, SettingInputs } from './ConnectionInputs';
import { choiceOf, connectionBody, settingErrors, valuesOf, type ConnectionValues } from './presets';

/**
 * A connection's Settings tab: read-only with Edit, then Save (PUT). The preset stays what it was
 * made with; the secret is never shown, only whether one is stored, and a new one is sent only when
 * typed (docs/CONSOLE.md, "Connections").
 */
export function ConnectionSettings({ connection, context, onClose }: { connection: RaRecord; context: PathContext; onClose: () => void }) {
  const translate = useTranslate();
  const [mode, setMode] = useState<FormMode>('view');
  const [values, setValues] = useState<ConnectionValues>(() => valuesOf(connection));
  const [errors, setErrors] = useState<Partial<Record<string, string>>>({});
  const [failure, setFailure] = useState<string>();
  const [update, { isPending }] = useUpdate();
  const choice = choiceOf(connection);
  const hasSecret = connection.hasSecret === true;
  const change = (changes: Partial<ConnectionValues>) => setValues((before) => ({ ...before, ...changes }));

  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    setFailure(undefined);
    const found = settingErrors(choice, values, false, hasSecret);
    setErrors(found);
    if (Object.keys(found).length) return;
    try {
      await update(
        'connections',
        { id: connection.id, data: connectionBody(choice, values), previousData: connection, meta: { pathContext: context } },
        { mutationMode: 'pessimistic', returnPromise: true },
      );
      setValues((before) => ({ ...before, clientSecret: '' }));
      setMode('view');
    } catch (error) {
      setFailure((error as Error).message || translate('ra.notification.http_error'));
    }
  };

  const cancel = () => {
    setValues(valuesOf(connection));
    setErrors({});
    setMode('view');
  };

  const readOnly = mode === 'view';
  return (
    <Card sx={{ mt: 2 }}>
      <CardContent component="form" noValidate onSubmit={save}>
        <Typography variant="h6" component="h2" gutterBottom>
          {translate(`iam.connections.presets.${choice}`)}
        </Typography>
        {failure && (
          <Alert severity="error" role="alert" sx={{ mb: 2 }}>
            {translate('iam.connections.refused', { message: failure })}
          </Alert>
        )}
        <SettingInputs choice={choice} values={values} onChange={change} errors={errors} readOnly={readOnly} hasSecret={hasSecret} />
        <Divider sx={{ my: 2 }} />
        <AccountSwitches values={values} onChange={change} readOnly={readOnly} />
        <FormModeButtons mode={mode} saving={isPending} onEdit={() => setMode('edit')} onBack={readOnly ? onClose : cancel} marginTop={2} />
      </CardContent>
    </Card>
  );
}
