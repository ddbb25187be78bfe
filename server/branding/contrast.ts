/**
 * WCAG 2 contrast (docs/CONSOLE.md, "Branding"): relative luminance of an sRGB colour and the ratio
 * (L1 + 0.05) / (L2 + 0.05) of two; AA asks at least 4.5:1 for text.
 */
export const AA_TEXT = 4.5;

export const COLOUR = /^#[0-9a-f]{6}$/i;

export function luminance(hex: string): number {
  const channel = (offset: number) => {
    const value = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

export function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

/** The text colour on `background`, black or white, whichever reads better. */
export const textOn = (background: string) => (contrast(background, '#ffffff') >= contrast(background, '#000000') ? '#ffffff' : '#000000');

/** The ratio as the refusal says it: rounded down to two decimals (4.499 is 4.49, never 4.50). */
export const ratioText = (ratio: number) => `${(Math.floor(ratio * 100) / 100).toFixed(2)}:1`;

/** The theme's colours when no company in the chain sets one (MUI's defaults). */
export const DEFAULT_COLOURS = { primaryLight: '#1976d2', backgroundLight: '#ffffff', primaryDark: '#90caf9', backgroundDark: '#121212' } as const;
