import {
  BooleanInput,
  CheckboxGroupInput,
  NumberInput,
  SelectInput,
  TextInput,
  useTranslate,
  type Validator,
} from 'react-admin';
import { Box } from '@mui/material';
import { useDeclaration } from './DeclarationContext';
import { fieldValidators } from './fieldChecks';
import type { FieldDeclaration } from '../types';
import { firstUriProblem, splitLines } from './uris';
import { formatDateTime } from './dateTime';

export interface Choice {
  id: string;
  name: string;
}

interface FieldInputsProps {
  sources: readonly string[];
  readOnly?: boolean;
  /** Sources shown but not editable (client_id and domain once created). */
  locked?: readonly string[];
  /** Choices known only at run time (the company's domains). */
  choices?: Record<string, Choice[]>;
}

const joinLines = (value: unknown) => (Array.isArray(value) ? value.join('\n') : ((value as string | undefined) ?? ''));

function FieldInput({ field, readOnly, choices }: { field: FieldDeclaration; readOnly: boolean; choices?: Choice[] }) {
  const translate = useTranslate();
  const label = `resources.${useDeclaration().name}.fields.${field.source}`;
  // the provider's limits, checked before sending (docs/CONSOLE.md, "Errors and messages")
  const validate: Validator[] = readOnly ? [] : fieldValidators(field);
  // the variant is the theme's, as in every form (layout/theme.ts)
  const common = { source: field.source, label, readOnly, fullWidth: true } as const;
  const declaredChoices = (field.choices ?? []).map((value) => ({
    id: value,
    name: field.choiceLabelPrefix ? translate(`${field.choiceLabelPrefix}.${value}`) : value,
  }));

  switch (field.kind) {
    case 'select':
      return (
        <SelectInput
          {...common}
          validate={validate}
          defaultValue={field.defaultValue}
          choices={choices ?? declaredChoices}
        />
      );
    case 'boolean':
      return <BooleanInput source={field.source} label={label} readOnly={readOnly} defaultValue={field.defaultValue} />;
    case 'checkboxes':
      return (
        <CheckboxGroupInput
          source={field.source}
          label={label}
          readOnly={readOnly}
          choices={declaredChoices}
          defaultValue={field.defaultValue as string[] | undefined}
        />
      );
    case 'number':
      return (
        <NumberInput
          {...common}
          validate={validate}
          defaultValue={field.defaultValue as number | undefined}
          step={1}
        />
      );
    case 'uriList': {
      const kind = field.uriKind ?? 'uri';
      const validUris: Validator = (value, values) => {
        const found = firstUriProblem(value as string[] | undefined, kind, (values as { app_type?: string }).app_type);
        if (!found) return undefined;
        return translate('iam.uris.invalid', {
          field: translate(label),
          uri: found.uri,
          problem: translate(found.problem),
        });
      };
      return (
        <TextInput
          {...common}
          multiline
          minRows={2}
          validate={readOnly ? [] : [...validate, validUris]}
          format={joinLines}
          parse={splitLines}
          defaultValue={[]}
          helperText={readOnly ? false : translate(kind === 'origin' ? 'iam.uris.helpOrigins' : 'iam.uris.help')}
        />
      );
    }
    case 'textarea':
      return <TextInput {...common} validate={validate} multiline minRows={2} />;
    case 'dateTime':
      // recorded by the provider, never typed: shown in the browser's locale
      return <TextInput {...common} readOnly format={formatDateTime} />;
    case 'email':
      // not type="email": browsers refuse UTF-8 local parts and store IDN domains as xn--, while
      // the provider accepts internationalized addresses as typed
      return <TextInput {...common} validate={validate} type="text" inputMode="email" autoComplete="off" spellCheck={false} />;
    default:
      return (
        <TextInput
          {...common}
          validate={validate}
          defaultValue={field.defaultValue}
          helperText={field.helpKey && !readOnly ? translate(field.helpKey) : undefined}
        />
      );
  }
}

/**
 * View mode: the values read as text under their labels, in the text's own colour, not as greyed,
 * disabled-looking boxes (issue 29); they stay read-only inputs, so they keep their labels for
 * assistive technology and can still be selected and copied.
 */
const VIEW_AS_TEXT = {
  // "&&" and the disabled states: above MUI's own rules for read-only and disabled inputs
  '&& .MuiFilledInput-root, && .MuiFilledInput-root.Mui-disabled, && .MuiOutlinedInput-root, && .MuiInput-root': {
    bgcolor: 'transparent',
    '&::before, &::after': { display: 'none' },
    '& fieldset': { border: 'none' },
    '&:hover': { bgcolor: 'transparent' },
  },
  '&& .MuiInputBase-input, && .MuiInputBase-input.Mui-disabled, && .MuiSelect-select, && .MuiSelect-select.Mui-disabled': {
    color: 'text.primary',
    WebkitTextFillColor: 'currentColor',
    cursor: 'text',
  },
  '&& .MuiFormLabel-root, && .MuiFormLabel-root.Mui-disabled': { color: 'text.secondary' },
  '&& .MuiSelect-icon': { display: 'none' },
} as const;

/**
 * Inputs for some of the declaration's fields (a whole form, one wizard step or one section), each
 * as its kind says, with its validation; in view mode they read as text (VIEW_AS_TEXT).
 */
export function FieldInputs({ sources, readOnly = false, locked = [], choices = {} }: FieldInputsProps) {
  const declaration = useDeclaration();
  return (
    <Box sx={readOnly ? VIEW_AS_TEXT : undefined}>
      {sources.map((source) => {
        const field = declaration.fields.find((candidate) => candidate.source === source);
        if (!field) throw new Error(`${declaration.name}: field "${source}" is not declared`);
        return (
          <FieldInput
            key={source}
            field={field}
            readOnly={readOnly || locked.includes(source)}
            choices={choices[source]}
          />
        );
      })}
    </Box>
  );
}
