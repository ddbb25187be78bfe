import { badRequest, HttpError } from '../errors.js';
import type { ImageKind } from './effective.js';

/**
 * Uploaded logos and icons (docs/CONSOLE.md, "Branding"): PNG, JPEG or WebP, told by their first
 * bytes, never by the declared Content-Type or a file name; SVG is refused (it can carry scripts, and
 * no sanitiser is installed); at most 256 KB for a logo, 64 KB for an icon.
 */
export const IMAGE_LIMITS: Record<ImageKind, number> = { logo: 256 * 1024, icon: 64 * 1024 };

export type ImageType = 'image/png' | 'image/jpeg' | 'image/webp';

const startsWith = (bytes: Buffer, signature: number[], at = 0) => signature.every((byte, i) => bytes[at + i] === byte);
const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

/** The image's type by its magic bytes, or undefined. */
export function sniffImage(bytes: Buffer): ImageType | undefined {
  // PNG: its 8-byte signature, then the IHDR chunk
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) && startsWith(bytes, ascii('IHDR'), 12)) return 'image/png';
  // JPEG: SOI then a marker
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  // WebP: a RIFF container of form type WEBP
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  return undefined;
}

/** Text that looks like SVG (or any XML naming an svg element) in its first 4 KB. */
const looksLikeSvg = (bytes: Buffer) => /<svg[\s>/]|<!doctype\s+svg/i.test(bytes.subarray(0, 4096).toString('latin1'));

/** The checked image and its type; 400/413 with a sentence otherwise. */
export function checkImage(kind: ImageKind, bytes: Buffer | undefined): { bytes: Buffer; type: ImageType } {
  if (!bytes || bytes.length === 0) throw badRequest(`${kind}: send the image's bytes as the request body (PNG, JPEG or WebP)`).as('branding.image.empty', { field: kind });
  if (bytes.length > IMAGE_LIMITS[kind]) throw tooLarge(kind, bytes.length);
  const type = sniffImage(bytes);
  if (type) return { bytes, type };
  if (looksLikeSvg(bytes)) throw badRequest(`${kind}: SVG images are refused (they can carry scripts); upload a PNG, JPEG or WebP`).as('branding.image.svg', { field: kind });
  throw badRequest(`${kind}: the file is not a PNG, JPEG or WebP image (its content says so, whatever its name or declared type)`).as('branding.image.type', { field: kind });
}

export const tooLarge = (kind: ImageKind, size?: number) =>
  new HttpError(413, `${kind}: the image is ${size === undefined ? 'too large' : `${Math.ceil(size / 1024)} KB`}; a ${kind} may be at most ${IMAGE_LIMITS[kind] / 1024} KB`).as('branding.image.tooLarge', {
    field: kind,
    limitKb: IMAGE_LIMITS[kind] / 1024,
  });
