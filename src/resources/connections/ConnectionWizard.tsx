import { useState } from 'react';
import { Alert, Box, Button, Card, CardContent, CircularProgress, Stack, Step, StepLabel, Stepper, Typography } from '@mui/material';
import { Title, useCreate, useLocation, useNavigate, useTranslate, type RaRecord } from 'react-admin';
import { DisabledReason } from '../generic/DisabledReason';
import { goBack } from '../generic/goBack';
import { useAllowed } from '../generic/useAllowed';
import { getSession } from '../../session/session';
import { AccountSwitches, PresetPicker, SettingInputs } from './ConnectionInputs';
import { connectionBody, presetValues, settingErrors, type ConnectionValues, type PresetChoice } from './presets';

const STEPS = ['preset', 'settings', 'accounts'] as const;

/**
 * /connections-new: the wizard (docs/CONSOLE.md, "Connections"). The first step picks a preset,
 * which fills protocol, issuer, scopes and the e-mail trust; the second asks what that preset needs;
 * the third sets the switches. Finish creates it and opens its screen, where its callback address is.
 */
export default function ConnectionWizard() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const state = (useLocation().state ?? {}) as { company?: { id: string }; domain?: { id: string } };
  const [active, setActive] = useState(0);
  const [choice, setChoice] = useState<PresetChoice>();
  const [values, setValues] = useState<ConnectionValues>();
  const [errors, setErrors] = useState<Partial<Record<string, string>>>({});
  const [failure, setFailure] = useState<string>();
  const [create, { isPending }] = useCreate();
  const creating = useAllowed('create');
  const done = () => goBack(navigate, '/connections');
  const change = (changes: Partial<ConnectionValues>) => setValues((before) => ({ ...before!, ...changes }));

  const pick = (picked: PresetChoice) => {
    setChoice(picked);
    // a new preset starts from its own defaults; what was typed for another one does not fit it
    setValues(presetValues(picked));
    setErrors({});
  };

  const next = () => {
    if (active === 1) {
      const found = settingErrors(choice!, values!, true);
      setErrors(found);
      if (Object.keys(found).length) return;
    }
    setActive(active + 1);
  };

  const finish = async () => {
    setFailure(undefined);
    const { company, domain } = getSession();
    const companyId = state.company?.id ?? company?.id ?? '';
    const domainId = state.domain?.id ?? domain?.id ?? '';
    try {
      const created = (await create(
        'connections',
        { data: connectionBody(choice!, values!), meta: { pathContext: { companyId, domainId } } },
        { returnPromise: true },
      )) as RaRecord;
      // its screen next: the callback address to register at the identity provider is there
      navigate('/connections-view', { replace: true, state: { company: company, domain: domain, connection: created, mode: 'view', created: true } });
    } catch (error) {
      setFailure((error as Error).message || translate('ra.notification.http_error'));
    }
  };

  const title = translate('iam.connections.newTitle');
  return (
    <Card sx={{ mt: 2, maxWidth: 840 }}>
      <Title title={title} />
      <CardContent>
        <Typography variant="h5" component="h1" gutterBottom>
          {title}
        </Typography>
        {failure && (
          <Alert severity="error" role="alert" sx={{ mb: 2 }}>
            {translate('iam.connections.refused', { message: failure })}
          </Alert>
        )}
        <Stepper activeStep={active} alternativeLabel sx={{ mb: 3 }}>
          {STEPS.map((step) => (
            <Step key={step}>
              <StepLabel>{translate(`iam.connections.steps.${step}`)}</StepLabel>
            </Step>
          ))}
        </Stepper>
        <Box role="group" aria-label={translate(`iam.connections.steps.${STEPS[active]}`)}>
          <Typography variant="h6" component="h2" gutterBottom>
            {translate(`iam.connections.steps.${STEPS[active]}`)}
          </Typography>
          {active === 0 && <PresetPicker value={choice} onChange={pick} />}
          {active === 1 && choice && values && <SettingInputs choice={choice} values={values} onChange={change} errors={errors} creating />}
          {active === 2 && values && <AccountSwitches values={values} onChange={change} />}
        </Box>
        <Stack direction="row" spacing={1} sx={{ mt: 2 }}>
          <Button disabled={active === 0} onClick={() => setActive(active - 1)}>
            {translate('iam.wizard.previous')}
          </Button>
          {active === STEPS.length - 1 ? (
            <DisabledReason key="finish" reason={creating.reason}>
              <Button
                variant="contained"
                disabled={isPending || !creating.allowed}
                onClick={finish}
                startIcon={isPending ? <CircularProgress size={16} color="inherit" /> : undefined}
              >
                {translate('iam.wizard.finish')}
              </Button>
            </DisabledReason>
          ) : (
            <Button key="next" variant="contained" disabled={!choice} onClick={next}>
              {translate('iam.wizard.next')}
            </Button>
          )}
          <Button onClick={done}>{translate('iam.actions.cancel')}</Button>
        </Stack>
      </CardContent>
    </Card>
  );
}
