import { useEffect, useRef, useState } from 'react';
import { Alert, Box, Button, Chip, FormControl, InputLabel, LinearProgress, MenuItem, Select, Stack, TextField, Typography } from '@mui/material';
import { useNotify, useTranslate } from 'react-admin';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { LANGUAGES } from '../domains';
import { DisabledReason } from '../generic/DisabledReason';
import { useAllowed } from '../generic/useAllowed';
import { fetchTemplates, PLACEHOLDERS, previewTemplate, resetTemplate, saveTemplate, TEMPLATE_KINDS, templatesKey, type Rendered } from './api';

type Part = 'subject' | 'body';

/**
 * A company's E-mail templates tab (docs/CONSOLE.md, "E-mail templates"): one e-mail's subject and
 * body per kind and language, where they come from (this company, an ancestor, the provider's
 * default), the placeholders (a click puts one at the cursor), the provider's rendering with sample
 * values (its HTML in a sandboxed frame: no script, no form, no navigation), Save and Reset to inherited.
 */
export default function EmailTemplatesTab({ companyId, name }: { companyId: string; name: string }) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const { data: templates, error: loadError, isPending, refetch } = useQuery({ queryKey: templatesKey(companyId), queryFn: () => fetchTemplates(companyId), retry: false });
  const { allowed, reason } = useAllowed('edit', 'branding');
  const kinds = [...new Set([...TEMPLATE_KINDS, ...(templates ?? []).map((template) => template.kind)])];
  const [kind, setKind] = useState<string>(TEMPLATE_KINDS[0]);
  const [language, setLanguage] = useState<string>('en');
  const template = templates?.find((candidate) => candidate.kind === kind && candidate.language === language);
  const [text, setText] = useState({ subject: '', body: '' });
  const [busy, setBusy] = useState<'save' | 'reset' | 'preview'>();
  const [failure, setFailure] = useState<string>();
  const [rendered, setRendered] = useState<Rendered>();
  const fields = { subject: useRef<HTMLInputElement>(null), body: useRef<HTMLTextAreaElement>(null) };
  const lastField = useRef<Part>('body');

  useEffect(() => {
    setText({ subject: template?.subject ?? '', body: template?.body ?? '' });
    setRendered(undefined);
    setFailure(undefined);
  }, [template]);

  if (isPending) return <LinearProgress aria-label={translate('iam.emailTemplates.loading')} />;
  if (loadError)
    return (
      <Alert severity="error" action={<Button onClick={() => void refetch()}>{translate('iam.branding.retry')}</Button>}>
        {translate('iam.emailTemplates.loadFailed', { message: loadError.message })}
      </Alert>
    );

  const kindLabel = (value: string) => translate(`iam.emailTemplates.kinds.${value}`, { _: value });
  const changed = template ? text.subject !== template.subject || text.body !== template.body : true;
  const readOnly = !allowed || busy !== undefined;

  /** Puts {{name}} where the cursor was in the subject or body last focused, and the cursor after it. */
  const insert = (placeholder: string) => {
    const part = lastField.current;
    const element = fields[part].current;
    const token = `{{${placeholder}}}`;
    const value = text[part];
    const start = element?.selectionStart ?? value.length;
    const end = element?.selectionEnd ?? value.length;
    setText((before) => ({ ...before, [part]: value.slice(0, start) + token + value.slice(end) }));
    requestAnimationFrame(() => {
      element?.focus();
      element?.setSelectionRange(start + token.length, start + token.length);
    });
  };

  const act = async (what: 'save' | 'reset' | 'preview') => {
    setBusy(what);
    setFailure(undefined);
    try {
      if (what === 'preview') {
        setRendered(await previewTemplate(companyId, kind, language, text));
        return;
      }
      if (what === 'save') await saveTemplate(companyId, kind, language, text);
      else await resetTemplate(companyId, kind, language);
      await queryClient.invalidateQueries({ queryKey: templatesKey(companyId) });
      notify(translate(what === 'save' ? 'iam.emailTemplates.saved' : 'iam.emailTemplates.wasReset', { kind: kindLabel(kind), language: translate(`iam.languageNames.${language}`), name }), { type: 'success' });
    } catch (error) {
      // the provider's sentence (an unknown placeholder is named)
      setFailure(translate('iam.emailTemplates.failed', { message: (error as Error).message }));
    } finally {
      setBusy(undefined);
    }
  };

  const source = template?.source ?? 'default';

  return (
    <Box aria-labelledby="email-templates-title" component="section">
      <Typography variant="h6" component="h2" id="email-templates-title" gutterBottom>
        {translate('iam.emailTemplates.title')}
      </Typography>
      <Typography variant="body2" sx={{ mb: 2 }}>
        {translate('iam.emailTemplates.intro')}
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ mb: 2, alignItems: { sm: 'center' } }}>
        <FormControl sx={{ minWidth: 220 }}>
          <InputLabel id="email-template-kind-label">{translate('iam.emailTemplates.kind')}</InputLabel>
          <Select labelId="email-template-kind-label" id="email-template-kind" value={kind} label={translate('iam.emailTemplates.kind')} onChange={(event) => setKind(event.target.value)}>
            {kinds.map((value) => (
              <MenuItem key={value} value={value}>
                {kindLabel(value)}
              </MenuItem>
            ))}
          </Select>
        </FormControl>
        <FormControl sx={{ minWidth: 180 }}>
          <InputLabel id="email-template-language-label">{translate('iam.emailTemplates.language')}</InputLabel>
          <Select labelId="email-template-language-label" id="email-template-language" value={language} label={translate('iam.emailTemplates.language')} onChange={(event) => setLanguage(event.target.value)}>
            {LANGUAGES.map((value) => (
              <MenuItem key={value} value={value} lang={value}>
                {translate(`iam.languageNames.${value}`)}
              </MenuItem>
            ))}
          </Select>
        </FormControl>
        <Chip
          data-testid="email-template-source"
          color={source === 'own' ? 'primary' : 'default'}
          variant={source === 'own' ? 'filled' : 'outlined'}
          label={translate(`iam.emailTemplates.sources.${source}`)}
        />
      </Stack>
      {!template && (
        <Alert severity="info" sx={{ mb: 2 }}>
          {translate('iam.emailTemplates.none')}
        </Alert>
      )}
      {failure && (
        <Alert severity="error" role="alert" sx={{ mb: 2 }}>
          {failure}
        </Alert>
      )}
      <Stack spacing={2}>
        <TextField
          id="email-template-subject"
          label={translate('iam.emailTemplates.subject')}
          value={text.subject}
          inputRef={fields.subject}
          onFocus={() => (lastField.current = 'subject')}
          onChange={(event) => setText((before) => ({ ...before, subject: event.target.value }))}
          disabled={!allowed}
          fullWidth
        />
        <TextField
          id="email-template-body"
          label={translate('iam.emailTemplates.body')}
          value={text.body}
          inputRef={fields.body}
          onFocus={() => (lastField.current = 'body')}
          onChange={(event) => setText((before) => ({ ...before, body: event.target.value }))}
          disabled={!allowed}
          multiline
          minRows={8}
          fullWidth
          slotProps={{ htmlInput: { spellCheck: true } }}
        />
        <Box role="group" aria-labelledby="email-template-placeholders">
          <Typography variant="body2" id="email-template-placeholders" sx={{ mb: 0.5 }}>
            {translate('iam.emailTemplates.placeholders')}
          </Typography>
          <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
            {PLACEHOLDERS.map((placeholder) => (
              <Chip
                key={placeholder}
                label={`{{${placeholder}}}`}
                onClick={allowed ? () => insert(placeholder) : undefined}
                disabled={!allowed}
                variant="outlined"
                size="small"
                sx={{ fontFamily: 'monospace' }}
              />
            ))}
          </Stack>
        </Box>
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Button variant="outlined" onClick={() => void act('preview')} disabled={busy !== undefined || !text.body}>
            {translate('iam.emailTemplates.preview')}
          </Button>
          <DisabledReason reason={reason}>
            <Button variant="contained" onClick={() => void act('save')} disabled={readOnly || !changed || !text.subject || !text.body}>
              {translate('iam.emailTemplates.save')}
            </Button>
          </DisabledReason>
          <DisabledReason reason={reason}>
            <Button onClick={() => void act('reset')} disabled={readOnly || source !== 'own'}>
              {translate('iam.emailTemplates.reset')}
            </Button>
          </DisabledReason>
        </Stack>
        {busy && <LinearProgress aria-label={translate('iam.emailTemplates.working')} />}
        {rendered && (
          <Box component="section" aria-labelledby="email-template-preview-title" data-testid="email-template-preview">
            <Typography variant="subtitle1" component="h3" id="email-template-preview-title" sx={{ fontWeight: 600 }}>
              {translate('iam.emailTemplates.previewTitle')}
            </Typography>
            <Typography variant="body2" sx={{ mb: 1 }}>
              <strong>{translate('iam.emailTemplates.subject')}:</strong> {rendered.subject}
            </Typography>
            <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
              <Box>
                <Typography variant="caption" component="h4" color="text.secondary">
                  {translate('iam.emailTemplates.asText')}
                </Typography>
                <Box component="pre" sx={{ whiteSpace: 'pre-wrap', fontFamily: 'monospace', fontSize: '0.8rem', p: 1, m: 0, border: 1, borderColor: 'divider', borderRadius: 1 }}>
                  {rendered.text}
                </Box>
              </Box>
              <Box>
                <Typography variant="caption" component="h4" color="text.secondary">
                  {translate('iam.emailTemplates.asHtml')}
                </Typography>
                {/* sandbox="": the rendering runs no script and reaches nothing of the console */}
                <iframe
                  sandbox=""
                  srcDoc={rendered.html}
                  title={translate('iam.emailTemplates.htmlFrame')}
                  style={{ width: '100%', minHeight: 260, border: '1px solid rgba(128, 128, 128, 0.4)', borderRadius: 4, background: '#fff' }}
                />
              </Box>
            </Box>
          </Box>
        )}
      </Stack>
    </Box>
  );
}
