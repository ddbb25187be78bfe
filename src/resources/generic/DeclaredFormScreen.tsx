import { Suspense, useState, type ReactNode } from 'react';
import { Box, Card, CardContent, LinearProgress, Typography } from '@mui/material';
import { Form, RecordContextProvider, Title, useCreate, useNavigate, useTranslate, useUpdate, type RaRecord } from 'react-admin';
import type { IamMeta } from '../../dataProvider';
import { useDeclaration } from './DeclarationContext';
import { DeclaredInputs } from './DeclaredInputs';
import { describeSaveFailure, type SaveFailure } from './saveError';
import { SaveErrorAlert } from './SaveErrorAlert';
import { FormModeButtons } from './FormModeButtons';
import type { FormMode } from './formMode';
import { goBack } from './goBack';


interface DeclaredFormScreenProps {
  initialMode: FormMode;
  record?: Partial<RaRecord>;
  titles: Record<FormMode, string>;
  /** Fields not shown, e.g. a company's Type (docs/CONSOLE.md, "Company type"). */
  hidden?: (mode: FormMode) => readonly string[];
  /** Adds what the form does not ask for (the parent of a new company). */
  toPayload?: (values: Record<string, unknown>, mode: FormMode) => Record<string, unknown>;
  meta?: IamMeta;
  /** Field whose value names the record in the duplicate message. */
  nameField?: string;
  /** Runs after a successful create or save, before going back. */
  onSaved?: (record: RaRecord, mode: FormMode) => void;
  children?: ReactNode;
}

/**
 * A create / view / edit form built from the declaration (docs/CONSOLE.md, "Resources"): view goes to edit
 * with Edit; a successful create or save, Cancel and Close all go back one screen.
 */
export function DeclaredFormScreen({
  initialMode,
  record,
  titles,
  hidden,
  toPayload = (values) => values,
  meta,
  nameField,
  onSaved,
  children,
}: DeclaredFormScreenProps) {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const navigate = useNavigate();
  const [mode, setMode] = useState<FormMode>(initialMode);
  const [error, setError] = useState<SaveFailure['alert']>();
  const [create, { isPending: creating }] = useCreate();
  const [update, { isPending: updating }] = useUpdate();
  const saving = creating || updating;
  const nameSource = nameField ?? declaration.idFromField ?? 'name';
  const Expand = declaration.expand;

  const submit = async (values: Record<string, unknown>) => {
    setError(undefined);
    const data = toPayload(values, mode);
    try {
      if (mode === 'new') {
        const created = await create(declaration.name, { data, meta }, { returnPromise: true });
        onSaved?.(created, mode);
      } else {
        const saved = await update(
          declaration.name,
          { id: record?.id as RaRecord['id'], data: { ...record, ...data }, previousData: record, meta },
          { mutationMode: 'pessimistic', returnPromise: true },
        );
        onSaved?.(saved, mode);
      }
      goBack(navigate, declaration.routes.list);
    } catch (failure) {
      const hiddenNow = hidden?.(mode) ?? [];
      const { fieldErrors, alert } = describeSaveFailure(
        failure,
        {
          sources: declaration.formFields.filter((source) => !hiddenNow.includes(source)),
          fields: declaration.fields,
          aliases: declaration.idFromField ? { id: declaration.idFromField } : undefined,
          name: String(values[nameSource] ?? ''),
        },
        translate,
      );
      setError(alert);
      // react-admin's Form shows these under their inputs
      return fieldErrors;
    }
  };

  const back = () => goBack(navigate, declaration.routes.list);

  return (
    <Card sx={{ mt: 2, maxWidth: 720 }}>
      <Title title={titles[mode]} />
      <CardContent>
        <Typography variant="h5" component="h1" gutterBottom>
          {titles[mode]}
        </Typography>
        {children}
        <SaveErrorAlert alert={error} />
        <Form record={record} onSubmit={submit} noValidate key={mode}>
          <DeclaredInputs
            readOnly={mode === 'view'}
            hidden={hidden?.(mode) ?? []}
            locked={mode === 'edit' && declaration.idFromField ? [declaration.idFromField] : []}
          />
          {Expand && mode === 'view' && record?.id !== undefined && (
            // the record's detail beyond its fields (an audit record's changes)
            <Box sx={{ my: 2 }}>
              <RecordContextProvider value={record as RaRecord}>
                <Suspense fallback={<LinearProgress aria-label={translate('iam.list.loading')} />}>
                  <Expand />
                </Suspense>
              </RecordContextProvider>
            </Box>
          )}
          <FormModeButtons
            mode={mode}
            saving={saving}
            onEdit={declaration.readOnly ? undefined : () => setMode('edit')}
            onBack={back}
          />
        </Form>
      </CardContent>
    </Card>
  );
}
