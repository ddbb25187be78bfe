import { useDeclaration } from './DeclarationContext';
import { FieldInputs } from './FieldInputs';

interface DeclaredInputsProps {
  readOnly?: boolean;
  /** Sources to leave out (e.g. a company's Type under its rule, docs/CONSOLE.md "Company type"). */
  hidden?: readonly string[];
  locked?: readonly string[];
}

/** The declaration's form fields, with their validation. */
export function DeclaredInputs({ readOnly = false, hidden = [], locked = [] }: DeclaredInputsProps) {
  const declaration = useDeclaration();
  const sources = declaration.formFields.filter((source) => !hidden.includes(source));
  return <FieldInputs sources={sources} readOnly={readOnly} locked={locked} />;
}
