import { root } from './dom.ts';

export function setScheme(mode: string) {
  const dark = mode === 'dark' || (mode === 'auto' && matchMedia('(prefers-color-scheme: dark)').matches);
  root.dataset.theme = dark ? 'dark' : 'light';
}

export const setAccent = (color: string | null | undefined) => document.documentElement.style.setProperty('--cw-color', color || '#1f93ff');
