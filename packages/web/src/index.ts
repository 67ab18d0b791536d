// Server-rendered pages shared by the owner pages (apps/server) and the admin app (apps/admin): escaped
// HTML, the layout and stylesheet, sessions per realm, CSRF and Origin checks, the page headers, sign-in.
export * from './html.ts';
export * from './session.ts';
export * from './signin.ts';
export * from './site.ts';
