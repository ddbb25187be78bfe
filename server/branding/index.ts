/** Branding per company, inherited down the tree (docs/CONSOLE.md, "Branding"). */
export { effectiveBranding, type EffectiveBranding } from './effective.js';
