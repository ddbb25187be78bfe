import { useEffect, useState } from 'react';
import {
  Accordion,
  AccordionDetails,
  AccordionSummary,
  Box,
  Button,
  Card,
  CardContent,
  CircularProgress,
  Stack,
  Step,
  StepLabel,
  Stepper,
  Typography,
} from '@mui/material';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import { Form, useCreate, useNavigate, useTranslate, useUpdate, type RaRecord } from 'react-admin';
import { useFormContext } from 'react-hook-form';
import { useDeclaration } from './DeclarationContext';
import { goBack } from './goBack';
import type { FormMode } from './formMode';
import { describeSaveFailure, type SaveFailure } from './saveError';
import { SaveErrorAlert } from './SaveErrorAlert';
import { FieldInputs, type Choice } from './FieldInputs';
import { SecretDialog } from './SecretDialog';
import { FormModeButtons } from './FormModeButtons';
import { DisabledReason } from './DisabledReason';
import { useAllowed } from './useAllowed';

export interface FormSection {
  labelKey: string;
  sources: readonly string[];
}

export interface SectionedFormProps {
  initialMode: FormMode;
  record?: Partial<RaRecord>;
  /** Values of a new record (generated ids, defaults that depend on the session). */
  defaults?: Record<string, unknown>;
  sections: readonly FormSection[];
  title: string;
  /** Sources left out per mode (a client secret exists only on new). */
  hidden?: (mode: FormMode) => readonly string[];
  locked?: (mode: FormMode) => readonly string[];
  choices?: Record<string, Choice[]>;
  toPayload: (values: Record<string, unknown>, mode: FormMode) => Record<string, unknown>;
  /** Field whose value names the record in the duplicate message (docs/CONSOLE.md, "Errors and messages"). */
  nameField: string;
  /** A secret the create response carries once, and the key naming it in the dialog. */
  secret?: { field: string; labelKey: string };
  /** Where Cancel, Close and a successful save go; back one screen by default (docs/CONSOLE.md, "Resources"). */
  onDone?: () => void;
}

const visible = (section: FormSection, hidden: readonly string[]) =>
  section.sources.filter((source) => !hidden.includes(source));

function WizardBody({
  sections,
  hidden,
  locked,
  choices,
  saving,
  onCancel,
}: {
  sections: readonly FormSection[];
  hidden: readonly string[];
  locked: readonly string[];
  choices?: Record<string, Choice[]>;
  saving: boolean;
  onCancel: () => void;
}) {
  const translate = useTranslate();
  const { trigger, formState } = useFormContext();
  const [active, setActive] = useState(0);
  const creating = useAllowed('create');
  const last = active === sections.length - 1;
  const failing = Object.keys(formState.errors).join(' ');

  // A field the provider refused on an earlier step (Finish is on the last) would be out of sight:
  // go to the first step with an error, where the sentence shows under the field.
  useEffect(() => {
    const sources = failing.split(' ');
    const first = sections.findIndex((section) => visible(section, hidden).some((source) => sources.includes(source)));
    if (first >= 0 && !visible(sections[active], hidden).some((source) => sources.includes(source))) setActive(first);
  }, [failing]); // only when the set of failing fields changes

  // Next advances only when the current step's fields are valid (docs/CONSOLE.md, "Resources").
  const next = async () => {
    if (await trigger(visible(sections[active], hidden) as string[], { shouldFocus: true })) setActive(active + 1);
  };

  return (
    <>
      <Stepper activeStep={active} alternativeLabel sx={{ mb: 3 }}>
        {sections.map((section) => (
          <Step key={section.labelKey}>
            <StepLabel>{translate(section.labelKey)}</StepLabel>
          </Step>
        ))}
      </Stepper>
      {sections.map((section, index) => (
        // Every step stays mounted so values and validation rules survive moving between steps.
        <Box
          key={section.labelKey}
          role="group"
          aria-label={translate(section.labelKey)}
          hidden={index !== active}
        >
          <Typography variant="h6" component="h2" gutterBottom>
            {translate(section.labelKey)}
          </Typography>
          <FieldInputs sources={visible(section, hidden)} locked={locked} choices={choices} />
        </Box>
      ))}
      <Stack direction="row" spacing={1} sx={{ mt: 1 }}>
        <Button disabled={active === 0} onClick={() => setActive(active - 1)}>
          {translate('iam.wizard.previous')}
        </Button>
        {/* Distinct keys: reusing Next's element as Finish would turn the click that reached the last step into a submit. */}
        {last ? (
          <DisabledReason key="finish" reason={creating.reason}>
            <Button
              type="submit"
              variant="contained"
              disabled={saving || !creating.allowed}
              startIcon={saving ? <CircularProgress size={16} color="inherit" /> : undefined}
            >
              {translate('iam.wizard.finish')}
            </Button>
          </DisabledReason>
        ) : (
          <Button key="next" variant="contained" onClick={next}>
            {translate('iam.wizard.next')}
          </Button>
        )}
        <Button onClick={onCancel}>{translate('iam.actions.cancel')}</Button>
      </Stack>
    </>
  );
}

/**
 * A form in sections (docs/CONSOLE.md, "Applications"): in new mode a wizard (Previous, Next,
 * Finish) over the sections; in edit and view modes the same sections as expandable panels. View
 * goes to edit with Edit.
 */
export function SectionedForm({
  initialMode,
  record,
  defaults,
  sections,
  title,
  hidden: hiddenFor = () => [],
  locked: lockedFor = () => [],
  choices,
  toPayload,
  nameField,
  secret: secretSpec,
  onDone,
}: SectionedFormProps) {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const navigate = useNavigate();
  const [mode, setMode] = useState<FormMode>(initialMode);
  const [error, setError] = useState<SaveFailure['alert']>();
  const [secret, setSecret] = useState<string>();
  const [create, { isPending: creating }] = useCreate();
  const [update, { isPending: updating }] = useUpdate();
  const saving = creating || updating;
  const done = onDone ?? (() => goBack(navigate, declaration.routes.list));
  const hidden = hiddenFor(mode);
  const locked = lockedFor(mode);

  const submit = async (values: Record<string, unknown>) => {
    setError(undefined);
    const data = toPayload(values, mode);
    try {
      if (mode === 'new') {
        const created = (await create(declaration.name, { data }, { returnPromise: true })) as Record<string, unknown>;
        const shown = secretSpec && (created?.[secretSpec.field] ?? data[secretSpec.field]);
        if (typeof shown === 'string' && shown) setSecret(shown);
        else done();
      } else {
        await update(
          declaration.name,
          { id: record?.id as RaRecord['id'], data, previousData: record },
          { mutationMode: 'pessimistic', returnPromise: true },
        );
        done();
      }
    } catch (failure) {
      const { fieldErrors, alert } = describeSaveFailure(
        failure,
        {
          sources: sections.flatMap((section) => visible(section, hidden)),
          fields: declaration.fields,
          aliases: declaration.idFromField ? { id: declaration.idFromField } : undefined,
          name: String(values[nameField] ?? ''),
        },
        translate,
      );
      setError(alert);
      // react-admin's Form shows these under their inputs (the wizard stays on its last step)
      return fieldErrors;
    }
  };

  return (
    <Card sx={{ mt: 2, maxWidth: 840 }}>
      <CardContent>
        <Typography variant="h5" component="h1" gutterBottom>
          {title}
        </Typography>
        <SaveErrorAlert alert={error} />
        <Form
          record={mode === 'new' ? defaults : record}
          onSubmit={submit}
          noValidate
          key={mode}
          // A field checked by Next is checked again as it changes, so a fixed error clears at once.
          mode="onTouched"
        >
          {mode === 'new' ? (
            <WizardBody
              sections={sections}
              hidden={hidden}
              locked={locked}
              choices={choices}
              saving={saving}
              onCancel={done}
            />
          ) : (
            <>
              {sections.map((section, index) => (
                <Accordion key={section.labelKey} defaultExpanded disableGutters>
                  <AccordionSummary
                    expandIcon={<ExpandMoreIcon />}
                    id={`section-${index}-header`}
                    aria-controls={`section-${index}-content`}
                  >
                    <Typography component="h2" variant="subtitle1">
                      {translate(section.labelKey)}
                    </Typography>
                  </AccordionSummary>
                  <AccordionDetails id={`section-${index}-content`}>
                    <FieldInputs
                      sources={visible(section, hidden)}
                      readOnly={mode === 'view'}
                      locked={locked}
                      choices={choices}
                    />
                  </AccordionDetails>
                </Accordion>
              ))}
              <FormModeButtons mode={mode} saving={saving} onEdit={() => setMode('edit')} onBack={done} marginTop={2} />
            </>
          )}
        </Form>
      </CardContent>
      {secretSpec && (
        <SecretDialog
          labelKey={secretSpec.labelKey}
          secret={secret}
          onClose={() => {
            setSecret(undefined);
            done();
          }}
        />
      )}
    </Card>
  );
}
