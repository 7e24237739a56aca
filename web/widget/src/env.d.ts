// Styles are bundled by esbuild beside the script.
declare module '*.css';
