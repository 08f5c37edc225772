/**
 * True in the development build, which explains every problem in full sentences. The production
 * builds (the script-tag bundle, and the package's default export condition) replace this module
 * with `false`, so the minifier drops those sentences: shoppers download short messages that
 * still name the attribute to fix. Bundlers pick the development build under the `development`
 * export condition (Vite's dev server, webpack in development mode).
 */
export const DEV_MODE: boolean = true;
