import { useLocation, useTranslate, type RaRecord } from 'react-admin';
import { useDeclaration } from './DeclarationContext';
import { DeclaredFormScreen } from './DeclaredFormScreen';
import { isFormMode, type FormMode } from './formMode';

/**
 * The form screen a declaration gets when it has no screen of its own: the record arrives in the
 * navigation state (docs/CONSOLE.md, "Routes"); a read-only type's form is always in view mode.
 */
export default function GenericForm() {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const state = (useLocation().state ?? {}) as { mode?: unknown; record?: RaRecord };
  const requested: FormMode = isFormMode(state.mode) ? state.mode : 'new';
  const mode: FormMode = declaration.readOnly ? 'view' : requested !== 'new' && !state.record ? 'new' : requested;
  const title = translate(`resources.${declaration.name}.name`, { smart_count: 1 });
  return (
    <DeclaredFormScreen
      initialMode={mode}
      record={mode === 'new' ? undefined : state.record}
      titles={{ new: title, view: title, edit: title }}
    />
  );
}
