/**
 * A company's branding and e-mail templates as the provider keeps them (docs/CONSOLE.md, "Branding",
 * "E-mail templates"): GET and PUT …/companys/{c}/branding, PUT and DELETE …/branding/logo|icon with
 * the raw image, GET …/emailTemplates, PUT, DELETE and POST …/preview of one kind and language.
 */
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import type { EffectiveBranding } from './consoleBranding';

export const OWN_FIELDS = ['displayName', 'primaryLight', 'backgroundLight', 'primaryDark', 'backgroundDark', 'supportEmail', 'supportUrl'] as const;
export type OwnField = (typeof OWN_FIELDS)[number];
export type Image = 'logo' | 'icon';
export type Field = OwnField | 'logoUrl' | 'iconUrl';

export type OwnBranding = Record<OwnField, string | null>;

export interface Branding extends OwnBranding {
  id: string;
  logoUrl: string | null;
  iconUrl: string | null;
  effective: EffectiveBranding & {
    inheritedFrom?: Partial<Record<string, string>>;
    /** Each company a field comes from: its name, and whether the reader may open it (docs/CONSOLE.md, "Branding"). */
    inheritedFromCompanies?: Partial<Record<string, { name: string; readable: boolean }>>;
  };
}

export const brandingKey = (companyId: string) => ['companies', 'branding', companyId];

export async function fetchBranding(companyId: string): Promise<Branding> {
  return (await httpClient(brandingUrl(companyId))).json as Branding;
}

export async function saveBranding(companyId: string, own: OwnBranding): Promise<Branding> {
  return (await httpClient(brandingUrl(companyId), { method: 'PUT', body: JSON.stringify(own) })).json as Branding;
}

/** The raw image as the body, its type as Content-Type (the provider checks both). */
export async function uploadImage(companyId: string, image: Image, file: File): Promise<Branding> {
  return (await httpClient(`${brandingUrl(companyId)}/${image}`, { method: 'PUT', body: file, headers: { 'Content-Type': file.type || 'application/octet-stream' } })).json as Branding;
}

export async function removeImage(companyId: string, image: Image): Promise<Branding> {
  return (await httpClient(`${brandingUrl(companyId)}/${image}`, { method: 'DELETE' })).json as Branding;
}

export type TemplateSource = 'own' | 'inherited' | 'default';

export interface EmailTemplate {
  id: string;
  kind: string;
  language: string;
  subject: string;
  body: string;
  source: TemplateSource;
}

export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

export const TEMPLATE_KINDS = ['reset', 'invite', 'verify', 'link-identity'] as const;
export const PLACEHOLDERS = ['companyName', 'personName', 'login', 'email', 'link', 'supportEmail', 'supportUrl'] as const;

const templatesUrl = (companyId: string) => `${config.apiBase}/companys/${encodeURIComponent(companyId)}/emailTemplates`;
const templateUrl = (companyId: string, kind: string, language: string) =>
  `${templatesUrl(companyId)}/${encodeURIComponent(kind)}/${encodeURIComponent(language)}`;

export const templatesKey = (companyId: string) => ['companies', 'emailTemplates', companyId];

export async function fetchTemplates(companyId: string): Promise<EmailTemplate[]> {
  return (await httpClient(templatesUrl(companyId))).json as EmailTemplate[];
}

export async function saveTemplate(companyId: string, kind: string, language: string, text: { subject: string; body: string }): Promise<EmailTemplate> {
  return (await httpClient(templateUrl(companyId, kind, language), { method: 'PUT', body: JSON.stringify(text) })).json as EmailTemplate;
}

export async function resetTemplate(companyId: string, kind: string, language: string): Promise<unknown> {
  return (await httpClient(templateUrl(companyId, kind, language), { method: 'DELETE' })).json;
}

export async function previewTemplate(companyId: string, kind: string, language: string, text: { subject: string; body: string }): Promise<Rendered> {
  return (await httpClient(`${templateUrl(companyId, kind, language)}/preview`, { method: 'POST', body: JSON.stringify(text) })).json as Rendered;
}

export const brandingUrl = (companyId: string) => `${config.apiBase}/companys/${encodeURIComponent(companyId)}/branding`;

/** Tells the console's theme (consoleBranding.ts, BRANDING_SAVED) that a company's branding changed. */
export const brandingSaved = (companyId: string, effective: EffectiveBranding | undefined) =>
  window.dispatchEvent(new CustomEvent('iam:branding-saved', { detail: { companyId, effective } }));
