/**
 * The wizard's presets (docs/CONSOLE.md, "Connections"): what each kind of identity provider needs
 * and the defaults it fills. Plain data, so the list, the wizard and the tests share it.
 */

export type Protocol = 'oidc' | 'oauth2' | 'saml';
export type Preset = 'custom' | 'google' | 'entra' | 'github' | 'apple' | 'okta';

/** What the first step offers: Entra ID twice (any tenant, or one), SAML and any OpenID Connect issuer as their own. */
export const PRESET_CHOICES = ['google', 'entraCommon', 'entraTenant', 'github', 'apple', 'okta', 'oidc', 'saml'] as const;
export type PresetChoice = (typeof PRESET_CHOICES)[number];

export interface ClaimMapping {
  email?: string;
  name?: string;
  groups?: string;
  emailVerified?: string;
}
export const CLAIMS = ['email', 'name', 'groups', 'emailVerified'] as const;

/** The wizard's values: the record's writable fields, and the secret that is only ever sent. */
export interface ConnectionValues {
  displayName: string;
  preset: Preset;
  protocol: Protocol;
  enabled: boolean;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  claimMapping: ClaimMapping;
  entraTenant: string;
  /** Apple: the developer team and the Sign in with Apple key the client secret is signed with. */
  appleTeamId: string;
  appleKeyId: string;
  samlMetadataXml: string;
  samlMetadataUrl: string;
  trustEmail: boolean;
  mfaFromIdp: boolean;
  sharedWithSubtree: boolean;
}

/** The inputs of the second step, per choice. */
export type SettingField = 'displayName' | 'entraTenant' | 'appleTeamId' | 'appleKeyId' | 'issuer' | 'clientId' | 'clientSecret' | 'scopes' | 'claimMapping' | 'samlMetadata';

interface PresetSpec {
  preset: Preset;
  protocol: Protocol;
  displayName: string;
  issuer?: string;
  scopes?: string;
  entraTenant?: string;
  /** Whether the provider's `email_verified` is believed by default (Google and Apple verify addresses; Entra ID does not: nOAuth). */
  trustEmail: boolean;
  fields: readonly SettingField[];
}

const OIDC_FIELDS = ['displayName', 'issuer', 'clientId', 'clientSecret', 'scopes', 'claimMapping'] as const;
const FIXED_ISSUER_FIELDS = ['displayName', 'clientId', 'clientSecret', 'scopes', 'claimMapping'] as const;
const OPENID_SCOPES = 'openid email profile';

export const PRESETS: Readonly<Record<PresetChoice, PresetSpec>> = {
  google: { preset: 'google', protocol: 'oidc', displayName: 'Google', issuer: 'https://accounts.google.com', scopes: OPENID_SCOPES, trustEmail: true, fields: FIXED_ISSUER_FIELDS },
  entraCommon: {
    preset: 'entra',
    protocol: 'oidc',
    displayName: 'Microsoft',
    issuer: entraIssuer('common'),
    entraTenant: 'common',
    scopes: OPENID_SCOPES,
    trustEmail: false,
    fields: FIXED_ISSUER_FIELDS,
  },
  entraTenant: {
    preset: 'entra',
    protocol: 'oidc',
    displayName: 'Microsoft Entra ID',
    scopes: OPENID_SCOPES,
    trustEmail: false,
    fields: ['displayName', 'entraTenant', 'clientId', 'clientSecret', 'scopes', 'claimMapping'],
  },
  github: { preset: 'github', protocol: 'oauth2', displayName: 'GitHub', issuer: 'https://github.com', scopes: 'read:user user:email', trustEmail: false, fields: FIXED_ISSUER_FIELDS },
  apple: {
    preset: 'apple',
    protocol: 'oidc',
    displayName: 'Apple',
    issuer: 'https://appleid.apple.com',
    scopes: 'openid email name',
    trustEmail: true,
    fields: ['displayName', 'clientId', 'appleTeamId', 'appleKeyId', 'clientSecret', 'scopes', 'claimMapping'],
  },
  okta: { preset: 'okta', protocol: 'oidc', displayName: 'Okta', scopes: `${OPENID_SCOPES} groups`, trustEmail: false, fields: OIDC_FIELDS },
  oidc: { preset: 'custom', protocol: 'oidc', displayName: '', scopes: OPENID_SCOPES, trustEmail: false, fields: OIDC_FIELDS },
  saml: { preset: 'custom', protocol: 'saml', displayName: '', trustEmail: false, fields: ['displayName', 'samlMetadata', 'claimMapping'] },
};

/** Entra ID's issuer for a tenant ('common': any work, school or personal Microsoft account). */
export function entraIssuer(tenant: string): string {
  return `https://login.microsoftonline.com/${encodeURIComponent(tenant.trim())}/v2.0`;
}

/** The values the wizard starts with once a preset is picked. */
export function presetValues(choice: PresetChoice): ConnectionValues {
  const spec = PRESETS[choice];
  return {
    displayName: spec.displayName,
    preset: spec.preset,
    protocol: spec.protocol,
    enabled: true,
    issuer: spec.issuer ?? '',
    clientId: '',
    clientSecret: '',
    scopes: spec.scopes ?? '',
    claimMapping: {},
    entraTenant: spec.entraTenant ?? '',
    appleTeamId: '',
    appleKeyId: '',
    samlMetadataXml: '',
    samlMetadataUrl: '',
    trustEmail: spec.trustEmail,
    mfaFromIdp: false,
    sharedWithSubtree: false,
  };
}

/** The preset a stored connection was made with (its edit form shows that preset's inputs). */
export function choiceOf(record: Record<string, unknown>): PresetChoice {
  if (record.protocol === 'saml') return 'saml';
  switch (record.preset) {
    case 'google':
    case 'github':
    case 'apple':
    case 'okta':
      return record.preset;
    case 'entra':
      return !record.entraTenant || record.entraTenant === 'common' ? 'entraCommon' : 'entraTenant';
    default:
      return 'oidc';
  }
}

/** A stored connection as the form's values (the secret is never read back: only hasSecret). */
export function valuesOf(record: Record<string, unknown>): ConnectionValues {
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const mapping = (record.claimMapping ?? {}) as Record<string, unknown>;
  return {
    displayName: text(record.displayName),
    preset: (record.preset as Preset) ?? 'custom',
    protocol: (record.protocol as Protocol) ?? 'oidc',
    enabled: record.enabled !== false,
    issuer: text(record.issuer),
    clientId: text(record.clientId),
    clientSecret: '',
    scopes: text(record.scopes),
    claimMapping: Object.fromEntries(CLAIMS.map((claim) => [claim, text(mapping[claim])]).filter(([, value]) => value)),
    entraTenant: text(record.entraTenant),
    appleTeamId: text(record.appleTeamId),
    appleKeyId: text(record.appleKeyId),
    samlMetadataXml: text(record.samlMetadataXml),
    samlMetadataUrl: text(record.samlMetadataUrl),
    trustEmail: record.trustEmail === true,
    mfaFromIdp: record.mfaFromIdp === true,
    sharedWithSubtree: record.sharedWithSubtree === true,
  };
}

/**
 * The body sent (docs/CONSOLE.md, "Connections"): what the choice uses, empty texts left out, the
 * secret only when one was typed (an edit without it keeps the stored one).
 */
export function connectionBody(choice: PresetChoice, values: ConnectionValues): Record<string, unknown> {
  const spec = PRESETS[choice];
  const fields = spec.fields;
  const body: Record<string, unknown> = {
    displayName: values.displayName.trim(),
    preset: spec.preset,
    protocol: spec.protocol,
    enabled: values.enabled,
    trustEmail: values.trustEmail,
    mfaFromIdp: values.mfaFromIdp,
    sharedWithSubtree: values.sharedWithSubtree,
  };
  const put = (name: string, value: string) => {
    if (value.trim()) body[name] = value.trim();
  };
  if (spec.protocol !== 'saml') {
    if (spec.preset === 'entra') {
      const tenant = choice === 'entraCommon' ? 'common' : values.entraTenant;
      put('entraTenant', tenant);
      put('issuer', entraIssuer(tenant));
    } else {
      put('issuer', fields.includes('issuer') ? values.issuer : (spec.issuer ?? ''));
    }
    put('clientId', values.clientId);
    if (fields.includes('appleTeamId')) put('appleTeamId', values.appleTeamId);
    if (fields.includes('appleKeyId')) put('appleKeyId', values.appleKeyId);
    // a PEM key keeps its line breaks: only the ends are trimmed
    if (values.clientSecret.trim()) body.clientSecret = values.clientSecret.trim();
    put('scopes', values.scopes.replace(/\s+/g, ' '));
  } else {
    put('samlMetadataUrl', values.samlMetadataUrl);
    put('samlMetadataXml', values.samlMetadataXml);
  }
  body.claimMapping = Object.fromEntries(
    CLAIMS.map((claim) => [claim, (values.claimMapping[claim] ?? '').trim()]).filter(([, value]) => value),
  );
  return body;
}

/** The second step's inputs that must be filled, each with its error (undefined: valid). */
export function settingErrors(choice: PresetChoice, values: ConnectionValues, creating: boolean, hasSecret = false): Partial<Record<string, string>> {
  const fields = PRESETS[choice].fields;
  const errors: Partial<Record<string, string>> = {};
  const required = 'iam.errors.required';
  if (!values.displayName.trim()) errors.displayName = required;
  if (fields.includes('entraTenant') && !values.entraTenant.trim()) errors.entraTenant = required;
  if (fields.includes('issuer')) {
    if (!values.issuer.trim()) errors.issuer = required;
    else if (!/^https?:\/\/\S+$/i.test(values.issuer.trim())) errors.issuer = 'iam.connections.errors.url';
  }
  if (fields.includes('clientId') && !values.clientId.trim()) errors.clientId = required;
  for (const apple of ['appleTeamId', 'appleKeyId'] as const) if (fields.includes(apple) && !values[apple].trim()) errors[apple] = required;
  if (fields.includes('clientSecret') && !values.clientSecret.trim() && (creating || !hasSecret)) errors.clientSecret = required;
  if (fields.includes('samlMetadata')) {
    const url = values.samlMetadataUrl.trim();
    if (!url && !values.samlMetadataXml.trim()) errors.samlMetadataUrl = 'iam.connections.errors.metadata';
    else if (url && !/^https?:\/\/\S+$/i.test(url)) errors.samlMetadataUrl = 'iam.connections.errors.url';
  }
  return errors;
}
