import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Alert, Box, Button, Chip, InputAdornment, LinearProgress, Link, Stack, TextField, Typography } from '@mui/material';
import { useNotify, useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { recordHref } from '../generic/recordLink';
import { DisabledReason } from '../generic/DisabledReason';
import { useAllowed } from '../generic/useAllowed';
import { brandingKey, brandingSaved, fetchBranding, OWN_FIELDS, removeImage, saveBranding, uploadImage, type Branding, type Image, type OwnBranding, type OwnField } from './api';
import { contrastOf, DEFAULT_COLOURS, isHex, MIN_CONTRAST } from './colours';
import { SignInPreview } from './SignInPreview';

type Draft = Record<OwnField, string>;
const COLOUR_FIELDS = ['primaryLight', 'backgroundLight', 'primaryDark', 'backgroundDark'] as const;
type ColourField = (typeof COLOUR_FIELDS)[number];
const isColour = (field: OwnField): field is ColourField => (COLOUR_FIELDS as readonly string[]).includes(field);

/** The provider's limits on an image (docs/CONSOLE.md, "Branding"), checked here first. */
export const IMAGE_LIMITS: Record<Image, number> = { logo: 256 * 1024, icon: 64 * 1024 };
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'];

/**
 * "Inherited from %{company}" with the company's name (else its id) in place of the placeholder,
 * a link to its own Branding tab when the reader may open it (docs/CONSOLE.md, "Branding").
 */
function InheritedFrom({ branding, companyId, messageKey, params = {} }: { branding: Branding; companyId: string; messageKey: string; params?: Record<string, unknown> }) {
  const translate = useTranslate();
  const company = branding.effective.inheritedFromCompanies?.[companyId];
  const name = company?.name || companyId;
  const mark = '\u0000';
  const [before, after = ''] = translate(messageKey, { ...params, company: mark }).split(mark);
  let shown: ReactNode = name;
  const href = company?.readable ? recordHref('companies', companyId, { companyId: '', domainId: '' }, { tab: 'branding' }) : undefined;
  if (href)
    shown = (
      <Link component={RouterLink} to={href}>
        {name}
      </Link>
    );
  return (
    <>
      {before}
      {shown}
      {after}
    </>
  );
}

const draftOf = (branding: Branding): Draft => Object.fromEntries(OWN_FIELDS.map((field) => [field, branding[field] ?? ''])) as Draft;

/**
 * A company's Branding tab (docs/CONSOLE.md, "Branding"): its own display name, logo, icon, colours
 * and support address and link, each showing what it inherits and from which company when not set
 * here; the contrast of each theme's colours as they are typed; a preview of the hosted sign-in page
 * in light and dark beside the form. Saving needs branding:write; others see it greyed with the reason.
 */
export default function BrandingTab({ companyId, name }: { companyId: string; name: string }) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const { data: branding, error: loadError, isPending, refetch } = useQuery({ queryKey: brandingKey(companyId), queryFn: () => fetchBranding(companyId), retry: false });
  const { allowed, reason } = useAllowed('edit', 'branding');
  const [draft, setDraft] = useState<Draft>();
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string>();

  useEffect(() => {
    if (branding) setDraft(draftOf(branding));
  }, [branding]);

  if (isPending || (branding && !draft)) return <LinearProgress aria-label={translate('iam.branding.loading')} />;
  if (loadError || !branding || !draft)
    return (
      <Alert severity="error" action={<Button onClick={() => void refetch()}>{translate('iam.branding.retry')}</Button>}>
        {translate('iam.branding.loadFailed', { message: loadError?.message ?? '' })}
      </Alert>
    );

  const readOnly = !allowed || saving;
  const inheritedFrom = branding.effective.inheritedFrom ?? {};
  /** What a field shows when not set here: the ancestor's value it inherits now, unless it was this company's own. */
  const inherited = (field: string): { value?: string; from?: string } => {
    const from = inheritedFrom[field];
    if (!from || from === companyId) return {};
    return { value: (branding.effective as Record<string, string | undefined>)[field], from };
  };
  /** The value in effect with the draft: typed here, else inherited, else the provider's default. */
  const effective = (field: OwnField): string | undefined => {
    const typed = draft[field].trim();
    if (typed && (!isColour(field) || isHex(typed))) return typed;
    return inherited(field).value ?? (isColour(field) ? DEFAULT_COLOURS[field] : undefined);
  };
  const set = (field: OwnField, value: string) => setDraft((before) => ({ ...before!, [field]: value }));
  const colourInvalid = (field: OwnField) => isColour(field) && draft[field].trim() !== '' && !isHex(draft[field].trim());
  const logoUrl = branding.effective.logoUrl;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setFailure(undefined);
    if (OWN_FIELDS.some(colourInvalid)) {
      setFailure(translate('iam.branding.fixColours'));
      return;
    }
    setSaving(true);
    try {
      const own = Object.fromEntries(OWN_FIELDS.map((field) => [field, draft[field].trim() || null])) as OwnBranding;
      const saved = await saveBranding(companyId, own);
      queryClient.setQueryData(brandingKey(companyId), saved);
      brandingSaved(companyId, saved.effective);
      notify(translate('iam.branding.saved', { name }), { type: 'success' });
    } catch (error) {
      // the provider's sentence names the field (a colour, the contrast and its ratio, an address, a link)
      setFailure(translate('iam.branding.failed', { message: (error as Error).message }));
    } finally {
      setSaving(false);
    }
  };

  const helper = (field: OwnField) => {
    if (colourInvalid(field)) return translate('iam.branding.hexHelp');
    if (draft[field].trim()) return translate('iam.branding.ownValue');
    if (branding[field] !== null) return translate('iam.branding.inheritAfterSave');
    const { value, from } = inherited(field);
    if (value && from) return <InheritedFrom branding={branding} companyId={from} messageKey="iam.branding.inheritedFrom" params={{ value }} />;
    return translate(isColour(field) ? 'iam.branding.defaultColour' : 'iam.branding.notSet');
  };

  // the same room whether offered or not: every field is as wide as the others
  const inheritButton = (field: OwnField) => (
    <Box sx={{ pt: 1.5, minWidth: 88 }}>
      {draft[field] !== '' && (
        <Button size="small" onClick={() => set(field, '')} disabled={readOnly} aria-label={translate('iam.branding.inheritField', { field: translate(`iam.branding.fields.${field}`) })}>
          {translate('iam.branding.inherit')}
        </Button>
      )}
    </Box>
  );

  const textInput = (field: OwnField, type: 'text' | 'email' | 'url' = 'text') => (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start' }} key={field}>
      <TextField
        id={`branding-${field}`}
        label={translate(`iam.branding.fields.${field}`)}
        value={draft[field]}
        onChange={(event) => set(field, event.target.value)}
        placeholder={inherited(field).value}
        helperText={helper(field)}
        disabled={readOnly}
        fullWidth
        slotProps={{ htmlInput: { inputMode: type === 'email' ? 'email' : type === 'url' ? 'url' : undefined, spellCheck: false } }}
      />
      {inheritButton(field)}
    </Stack>
  );

  const colourInput = (field: ColourField) => {
    const label = translate(`iam.branding.fields.${field}`);
    return (
      <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start' }} key={field}>
        <TextField
          id={`branding-${field}`}
          label={label}
          value={draft[field]}
          onChange={(event) => set(field, event.target.value)}
          placeholder={inherited(field).value ?? DEFAULT_COLOURS[field]}
          helperText={helper(field)}
          error={colourInvalid(field)}
          disabled={readOnly}
          fullWidth
          slotProps={{
            htmlInput: { spellCheck: false, maxLength: 7, 'aria-invalid': colourInvalid(field) || undefined },
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <input
                    type="color"
                    aria-label={translate('iam.branding.pick', { field: label })}
                    value={(effective(field) ?? '#000000').toLowerCase()}
                    onChange={(event) => set(field, event.target.value)}
                    disabled={readOnly}
                    style={{ width: 32, height: 28, padding: 0, border: 0, background: 'none', cursor: readOnly ? 'default' : 'pointer' }}
                  />
                </InputAdornment>
              ),
            },
          }}
        />
        {inheritButton(field)}
      </Stack>
    );
  };

  const contrastLine = (theme: 'light' | 'dark') => {
    const primary = effective(theme === 'light' ? 'primaryLight' : 'primaryDark')!;
    const background = effective(theme === 'light' ? 'backgroundLight' : 'backgroundDark')!;
    const ratio = contrastOf(primary, background);
    const passes = ratio >= MIN_CONTRAST;
    return (
      <Alert severity={passes ? 'success' : 'warning'} role="status" sx={{ py: 0 }} data-testid={`contrast-${theme}`}>
        {translate(passes ? 'iam.branding.contrastPasses' : 'iam.branding.contrastFails', {
          theme: translate(`iam.branding.${theme}`),
          ratio: ratio.toFixed(2),
          min: MIN_CONTRAST,
        })}
      </Alert>
    );
  };

  return (
    <Box component="form" onSubmit={submit} noValidate aria-labelledby="branding-title">
      <Typography variant="h6" component="h2" id="branding-title" gutterBottom>
        {translate('iam.branding.title')}
      </Typography>
      <Typography variant="body2" sx={{ mb: 2 }}>
        {translate('iam.branding.intro')}
      </Typography>
      {failure && (
        <Alert severity="error" role="alert" sx={{ mb: 2 }}>
          {failure}
        </Alert>
      )}
      <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', md: 'minmax(0, 3fr) minmax(0, 2fr)' } }}>
        <Stack spacing={2}>
          {textInput('displayName')}
          <ImageField companyId={companyId} branding={branding} image="logo" readOnly={!allowed} />
          <ImageField companyId={companyId} branding={branding} image="icon" readOnly={!allowed} />
          <Box component="fieldset" sx={{ border: 0, p: 0, m: 0 }}>
            <Typography component="legend" variant="subtitle1" sx={{ fontWeight: 600, mb: 1 }}>
              {translate('iam.branding.colours')}
            </Typography>
            <Stack spacing={2}>
              {COLOUR_FIELDS.map(colourInput)}
              {contrastLine('light')}
              {contrastLine('dark')}
            </Stack>
          </Box>
          <Box component="fieldset" sx={{ border: 0, p: 0, m: 0 }}>
            <Typography component="legend" variant="subtitle1" sx={{ fontWeight: 600, mb: 1 }}>
              {translate('iam.branding.support')}
            </Typography>
            <Stack spacing={2}>
              {textInput('supportEmail', 'email')}
              {textInput('supportUrl', 'url')}
            </Stack>
          </Box>
          <Box>
            <DisabledReason reason={reason}>
              <Button type="submit" variant="contained" disabled={readOnly}>
                {translate('iam.branding.save')}
              </Button>
            </DisabledReason>
          </Box>
        </Stack>
        <Stack spacing={2} component="section" aria-labelledby="branding-preview-title">
          <Typography variant="subtitle1" component="h3" id="branding-preview-title" sx={{ fontWeight: 600 }}>
            {translate('iam.branding.preview')}
          </Typography>
          {(['light', 'dark'] as const).map((theme) => (
            <SignInPreview
              key={theme}
              theme={theme}
              primary={effective(theme === 'light' ? 'primaryLight' : 'primaryDark')!}
              background={effective(theme === 'light' ? 'backgroundLight' : 'backgroundDark')!}
              displayName={effective('displayName') ?? name}
              logoUrl={logoUrl ?? undefined}
              supportEmail={effective('supportEmail')}
            />
          ))}
        </Stack>
      </Box>
    </Box>
  );
}

/** The logo or icon: the current one (own or inherited), a file chooser that uploads at once, Remove for an own one. */
function ImageField({ companyId, branding, image, readOnly }: { companyId: string; branding: Branding; image: Image; readOnly: boolean }) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const chooser = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string>();
  const own = image === 'logo' ? branding.logoUrl : branding.iconUrl;
  const shown = image === 'logo' ? branding.effective.logoUrl : branding.effective.iconUrl;
  const from = branding.effective.inheritedFrom?.[image === 'logo' ? 'logoUrl' : 'iconUrl'];
  const label = translate(`iam.branding.fields.${image}`);

  const done = (saved: Branding, key: string) => {
    queryClient.setQueryData(brandingKey(companyId), saved);
    brandingSaved(companyId, saved.effective);
    notify(translate(key, { image: label }), { type: 'success' });
  };
  const run = async (work: () => Promise<Branding>, key: string) => {
    setBusy(true);
    setFailure(undefined);
    try {
      done(await work(), key);
    } catch (error) {
      setFailure(translate('iam.branding.imageFailed', { image: label, message: (error as Error).message }));
    } finally {
      setBusy(false);
    }
  };
  const chosen = (file: File | undefined) => {
    if (chooser.current) chooser.current.value = '';
    if (!file) return;
    if (!IMAGE_TYPES.includes(file.type)) return setFailure(translate('iam.branding.imageType', { image: label }));
    if (file.size > IMAGE_LIMITS[image]) return setFailure(translate('iam.branding.imageTooBig', { image: label, limit: IMAGE_LIMITS[image] / 1024 }));
    void run(() => uploadImage(companyId, image, file), 'iam.branding.imageSaved');
  };

  const source = own
    ? translate('iam.branding.ownValue')
    : shown && from && from !== companyId
      ? <InheritedFrom branding={branding} companyId={from} messageKey="iam.branding.imageInherited" />
      : translate('iam.branding.noImage');

  return (
    <Box component="fieldset" sx={{ border: 0, p: 0, m: 0 }}>
      <Typography component="legend" variant="subtitle1" sx={{ fontWeight: 600, mb: 1 }}>
        {label}
      </Typography>
      <Stack direction="row" spacing={2} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <Box sx={{ width: 96, height: 56, display: 'flex', alignItems: 'center', justifyContent: 'center', border: 1, borderColor: 'divider', borderRadius: 1, bgcolor: 'background.default' }}>
          {shown ? (
            <img src={shown} alt={translate('iam.branding.currentImage', { image: label })} style={{ maxWidth: 88, maxHeight: 48, objectFit: 'contain' }} />
          ) : (
            <Typography variant="caption" color="text.secondary">
              {translate('iam.branding.none')}
            </Typography>
          )}
        </Box>
        <Typography variant="body2" color="text.secondary" id={`branding-${image}-source`}>
          {source}
        </Typography>
        <input
          ref={chooser}
          type="file"
          hidden
          accept={IMAGE_TYPES.join(',')}
          data-testid={`branding-${image}-file`}
          onChange={(event) => chosen(event.target.files?.[0])}
        />
        <Button variant="outlined" size="small" disabled={readOnly || busy} onClick={() => chooser.current?.click()} aria-describedby={`branding-${image}-source`}>
          {translate('iam.branding.upload', { image: label })}
        </Button>
        {own && (
          <Button size="small" color="error" disabled={readOnly || busy} onClick={() => void run(() => removeImage(companyId, image), 'iam.branding.imageRemoved')}>
            {translate('iam.branding.remove', { image: label })}
          </Button>
        )}
        {busy && <Chip size="small" label={translate('iam.branding.uploading')} />}
      </Stack>
      <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 0.5 }}>
        {translate('iam.branding.imageHelp', { limit: IMAGE_LIMITS[image] / 1024 })}
      </Typography>
      {failure && (
        <Alert severity="error" role="alert" sx={{ mt: 1 }}>
          {failure}
        </Alert>
      )}
    </Box>
  );
}
