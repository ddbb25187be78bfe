import type { ReactNode } from 'react';
import {
  Box,
  FormControlLabel,
  FormHelperText,
  Radio,
  RadioGroup,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import { useTranslate } from 'react-admin';
import { CLAIMS, PRESET_CHOICES, PRESETS, type ClaimMapping, type ConnectionValues, type PresetChoice } from './presets';

const label = (source: string) => `resources.connections.fields.${source}`;

/** The first step: which kind of identity provider (docs/CONSOLE.md, "Connections"), each with a line saying what it is for. */
export function PresetPicker({ value, onChange }: { value?: PresetChoice; onChange: (choice: PresetChoice) => void }) {
  const translate = useTranslate();
  return (
    <RadioGroup
      aria-label={translate('iam.connections.steps.preset')}
      value={value ?? ''}
      onChange={(event) => onChange(event.target.value as PresetChoice)}
    >
      {PRESET_CHOICES.map((choice) => (
        <Box key={choice} sx={{ mb: 1 }}>
          <FormControlLabel
            value={choice}
            control={<Radio slotProps={{ input: { 'aria-describedby': `preset-${choice}-help` } as object }} />}
            label={translate(`iam.connections.presets.${choice}`)}
          />
          <FormHelperText id={`preset-${choice}-help`} sx={{ mt: -1, ml: 4 }}>
            {translate(`iam.connections.presetHelp.${choice}`)}
          </FormHelperText>
        </Box>
      ))}
    </RadioGroup>
  );
}

interface InputsProps {
  choice: PresetChoice;
  values: ConnectionValues;
  onChange: (changes: Partial<ConnectionValues>) => void;
  errors?: Partial<Record<string, string>>;
  readOnly?: boolean;
  /** Edit and view: the stored connection has a secret (never read back, docs/CONSOLE.md "Connections"). */
  hasSecret?: boolean;
  creating?: boolean;
}

/** The second step: what the chosen preset needs, its defaults filled in. */
export function SettingInputs({ choice, values, onChange, errors = {}, readOnly = false, hasSecret = false, creating = false }: InputsProps) {
  const translate = useTranslate();
  const fields = PRESETS[choice].fields;
  const apple = choice === 'apple';

  const text = (source: keyof ConnectionValues & string, options: { multiline?: boolean; help?: boolean; placeholder?: string; monospace?: boolean } = {}) => {
    const error = errors[source];
    const helpKey = `iam.connections.help.${source}`;
    const help = error ? translate(error) : options.help ? translate(helpKey) : undefined;
    return (
      <TextField
        key={source}
        id={`connection-${source}`}
        label={translate(label(source))}
        value={values[source] as string}
        onChange={(event) => onChange({ [source]: event.target.value })}
        required={!readOnly && ['displayName', 'issuer', 'clientId', 'entraTenant', 'appleTeamId', 'appleKeyId'].includes(source)}
        error={Boolean(error)}
        helperText={help}
        placeholder={options.placeholder}
        multiline={options.multiline}
        minRows={options.multiline ? 3 : undefined}
        maxRows={options.multiline ? 10 : undefined}
        fullWidth
        margin="dense"
        slotProps={{ htmlInput: { readOnly, spellCheck: false, style: options.monospace ? { fontFamily: 'monospace' } : undefined } }}
      />
    );
  };

  const secret = () => {
    const source = 'clientSecret';
    const error = errors[source];
    const secretLabel = translate(apple ? 'iam.connections.privateKey' : label(source));
    if (readOnly) {
      // never the secret itself: whether one is stored
      return (
        <TextField
          key={source}
          id="connection-clientSecret"
          label={secretLabel}
          value={translate(hasSecret ? 'iam.connections.secretSet' : 'iam.connections.secretNotSet')}
          fullWidth
          margin="dense"
          slotProps={{ htmlInput: { readOnly: true } }}
        />
      );
    }
    const help = error ? translate(error) : translate(hasSecret && !creating ? 'iam.connections.help.secretKept' : 'iam.connections.help.clientSecret');
    return (
      <TextField
        key={source}
        id="connection-clientSecret"
        label={secretLabel}
        // a PEM key has line breaks, which a password input drops; it is still never read back
        type={apple ? undefined : 'password'}
        multiline={apple}
        minRows={apple ? 3 : undefined}
        autoComplete="new-password"
        value={values.clientSecret}
        onChange={(event) => onChange({ clientSecret: event.target.value })}
        required={creating || !hasSecret}
        error={Boolean(error)}
        helperText={help}
        fullWidth
        margin="dense"
        slotProps={{ htmlInput: { spellCheck: false, style: apple ? { fontFamily: 'monospace' } : undefined } }}
      />
    );
  };

  const claims = () => (
    <Box key="claimMapping" component="fieldset" sx={{ border: 0, p: 0, m: 0, mt: 2 }}>
      <Typography component="legend" variant="subtitle2">
        {translate('iam.connections.claimMapping')}
      </Typography>
      <Typography variant="body2" color="text.secondary">
        {translate('iam.connections.help.claimMapping')}
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1}>
        {CLAIMS.map((claim) => (
          <TextField
            key={claim}
            id={`connection-claim-${claim}`}
            label={translate(`iam.connections.claims.${claim}`)}
            value={values.claimMapping[claim] ?? ''}
            placeholder={translate(`iam.connections.claimDefaults.${claim}`)}
            onChange={(event) => onChange({ claimMapping: { ...values.claimMapping, [claim]: event.target.value } as ClaimMapping })}
            margin="dense"
            fullWidth
            slotProps={{ htmlInput: { readOnly, spellCheck: false } }}
          />
        ))}
      </Stack>
    </Box>
  );

  const parts: Record<string, () => ReactNode> = {
    displayName: () => text('displayName', { help: true }),
    entraTenant: () => text('entraTenant', { help: true, placeholder: '00000000-0000-0000-0000-000000000000' }),
    issuer: () => text('issuer', { help: true, placeholder: translate(`iam.connections.issuerPlaceholder.${choice === 'okta' ? 'okta' : 'oidc'}`) }),
    clientId: () => text('clientId', { help: true }),
    appleTeamId: () => text('appleTeamId', { help: true, placeholder: 'ABCDE12345' }),
    appleKeyId: () => text('appleKeyId', { help: true, placeholder: 'XYZ987654W' }),
    clientSecret: secret,
    scopes: () => text('scopes', { help: true }),
    claimMapping: claims,
    samlMetadata: () => (
      <Box key="samlMetadata">
        {text('samlMetadataUrl', { help: true, placeholder: 'https://idp.example.com/saml/metadata' })}
        {text('samlMetadataXml', { multiline: true, help: true, monospace: true })}
      </Box>
    ),
  };
  return <>{fields.map((field) => parts[field]())}</>;
}

export const SWITCHES = ['enabled', 'trustEmail', 'mfaFromIdp', 'sharedWithSubtree'] as const;

/** The third step: the switches, each with a line saying what it does. */
export function AccountSwitches({ values, onChange, readOnly = false }: Pick<InputsProps, 'values' | 'onChange' | 'readOnly'>) {
  const translate = useTranslate();
  return (
    <Stack spacing={1}>
      {SWITCHES.map((source) => (
        <Box key={source}>
          <FormControlLabel
            control={
              <Switch
                checked={values[source]}
                onChange={(event) => onChange({ [source]: event.target.checked })}
                disabled={readOnly}
                slotProps={{ input: { 'aria-describedby': `connection-${source}-help` } }}
              />
            }
            label={translate(label(source))}
          />
          <FormHelperText id={`connection-${source}-help`} sx={{ mt: -0.5, ml: 6 }}>
            {translate(`iam.connections.help.${source}`)}
          </FormHelperText>
        </Box>
      ))}
    </Stack>
  );
}
