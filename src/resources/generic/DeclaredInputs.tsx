import { BooleanInput, SelectInput, TextInput, useTranslate } from 'react-admin';
import type { FieldDeclaration } from '../types';
import { useDeclaration } from './DeclarationContext';
import { fieldValidators } from './fieldChecks';

interface DeclaredInputsProps {
  readOnly?: boolean;
  /** Sources to leave out (e.g. Type under SPEC 2.8's rule, the id-bearing name in edit mode). */
  hidden?: readonly string[];
  locked?: readonly string[];
}

function DeclaredInput({ field, readOnly }: { field: FieldDeclaration; readOnly: boolean }) {
  const translate = useTranslate();
  // the provider's limits, checked before sending (docs/CONSOLE.md, "Errors and messages")
  const validate = readOnly ? undefined : fieldValidators(field);
  const common = { source: field.source, readOnly, validate, fullWidth: true } as const;
  switch (field.kind) {
    case 'select':
      return (
        <SelectInput
          {...common}
          defaultValue={field.defaultValue}
          choices={(field.choices ?? []).map((value) => ({
            id: value,
            name: field.choiceLabelPrefix ? translate(`${field.choiceLabelPrefix}.${value}`) : value,
          }))}
        />
      );
    case 'boolean':
      return <BooleanInput source={field.source} readOnly={readOnly} defaultValue={field.defaultValue} />;
    case 'textarea':
      return <TextInput {...common} multiline minRows={3} />;
    case 'email':
      // not type="email": browsers refuse UTF-8 local parts and store IDN domains as xn--, while
      // the provider accepts internationalized addresses as typed
      return <TextInput {...common} type="text" inputMode="email" autoComplete="off" spellCheck={false} />;
    default:
      return <TextInput {...common} />;
  }
}

/** The declaration's form fields, with their validation. */
export function DeclaredInputs({ readOnly = false, hidden = [], locked = [] }: DeclaredInputsProps) {
  const declaration = useDeclaration();
  return (
    <>
      {declaration.formFields
        .filter((source) => !hidden.includes(source))
        .map((source) => {
          const field = declaration.fields.find((candidate) => candidate.source === source);
          if (!field) throw new Error(`${declaration.name}: form field "${source}" is not declared`);
          return <DeclaredInput key={source} field={field} readOnly={readOnly || locked.includes(source)} />;
        })}
    </>
  );
}
