// The pages' HTML (the owner pages and the admin app): a tagged template that escapes every
// interpolation (only another template's result passes through as markup), the one layout, and the one
// stylesheet. Escaping is the default so that a client name, key name or error message can never become
// markup.
import { createHash } from 'node:crypto';

/** A timestamp as the pages show it: "2026-04-10 09:30 UTC"; `none` when there is none. */
export const when = (iso: string | null, none = 'never') => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : none);

/** Markup made by `html`: the only thing interpolated without escaping. */
export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

type Value = Html | string | number | null | undefined | false | readonly Value[];

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const render = (v: Value): string =>
  v instanceof Html ? v.text : Array.isArray(v) ? v.map(render).join('') : v === null || v === undefined || v === false ? '' : escape(String(v));

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  return new Html(strings.reduce((out, s, i) => out + render(values[i - 1]) + s));
}

// Served from this server (CSP style-src 'self'), under a content-hashed name cached for a year.
const STYLE = `
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2430; background: #f4f5f7; }
header { display: flex; align-items: center; gap: 1.5rem; padding: 0.75rem 2rem; background: #1d2430; color: #fff; }
header .brand { font-weight: 700; font-size: 1.2rem; letter-spacing: 0.02em; }
header nav { display: flex; gap: 1rem; flex: 1; }
header a { color: #cfd8e6; text-decoration: none; }
header a[aria-current="page"] { color: #fff; border-bottom: 2px solid #7fb2ff; }
header form { margin: 0; }
main { max-width: 64rem; margin: 2rem auto; padding: 0 1.5rem; }
main.narrow { max-width: 28rem; }
section { background: #fff; border: 1px solid #dde1e7; border-radius: 8px; padding: 1.25rem 1.5rem; margin-bottom: 1.5rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.1rem; margin: 0 0 0.75rem; }
label { font-weight: 600; }
input[type="text"], input[type="email"], input[type="password"], input[type="date"], select, textarea {
  display: block; width: 100%; padding: 0.45rem 0.6rem; margin: 0.25rem 0 0.9rem; border: 1px solid #b9c0cb; border-radius: 5px; font: inherit; background: #fff;
}
fieldset { border: 1px solid #dde1e7; border-radius: 5px; margin: 0 0 0.9rem; padding: 0.5rem 0.9rem; }
fieldset label { font-weight: 400; }
.scopes { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: 0.2rem 1rem; }
.inline { display: flex; gap: 0.75rem; align-items: end; }
.inline select { margin-bottom: 0; max-width: 24rem; }
button { font: inherit; padding: 0.45rem 1.1rem; border-radius: 5px; border: 1px solid #1f5fbf; background: #2468d0; color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: #1f5fbf; }
button.danger { background: #fff; color: #b42318; border-color: #b42318; padding: 0.2rem 0.7rem; }
header button { background: transparent; border-color: #cfd8e6; color: #cfd8e6; padding: 0.25rem 0.8rem; }
table { width: 100%; border-collapse: collapse; font-size: 0.93rem; }
th, td { text-align: left; padding: 0.45rem 0.5rem; border-bottom: 1px solid #e6e9ee; vertical-align: top; }
th { color: #5a6372; font-weight: 600; }
code { font-family: ui-monospace, "SF Mono", Menlo, monospace; font-size: 0.9em; }
.key { display: block; padding: 0.75rem; background: #f4f5f7; border: 1px solid #b9c0cb; border-radius: 5px; font-size: 1rem; word-break: break-all; user-select: all; }
.error { padding: 0.6rem 0.9rem; border-radius: 5px; background: #fdecea; color: #8a1c12; border: 1px solid #f4b4ab; }
.warning { padding: 0.6rem 0.9rem; border-radius: 5px; background: #fff6e0; color: #6b4a00; border: 1px solid #f0d48a; }
.muted { color: #5a6372; }
.actions { display: flex; gap: 0.75rem; margin-top: 1rem; }
ul.scope-words { padding-left: 1.2rem; }
td ul.scope-words { margin: 0; }
header .who { color: #cfd8e6; font-size: 0.9rem; }
header.staff { background: #3b1f4a; }
header.staff + main { max-width: 86rem; }
td.when { white-space: nowrap; }
.badge { display: inline-block; padding: 0 0.5rem; border-radius: 999px; font-size: 0.85rem; background: #e6e9ee; color: #1d2430; }
.badge.ok { background: #e3f4e8; color: #14532d; }
.badge.bad { background: #fdecea; color: #8a1c12; }
.badge.wait { background: #fff6e0; color: #6b4a00; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1.5rem; margin: 0; }
dl.facts dt { color: #5a6372; font-weight: 600; }
dl.facts dd { margin: 0; }
.search { display: flex; gap: 0.75rem; align-items: center; }
.search input { margin: 0; }
`;

export const STYLE_PATH = `/assets/pages.${createHash('sha256').update(STYLE).digest('hex').slice(0, 16)}.css`;
export const STYLE_BODY = STYLE;

/** One site of pages: which sessions it accepts, where it lives, and what its header shows. */
export interface Site {
  /** The sessions of this site (a staff session is no owner session, and the reverse). */
  realm: 'owner' | 'staff';
  /** The session cookie's name. */
  cookie: string;
  /** The device cookie's name (decision 174): a browser that signed in here before, kept across sign-out. */
  deviceCookie: string;
  /** The path the site is mounted at ('' for the root): the cookie's Path, the stylesheet's and forms' prefix. */
  base: string;
  brand: string;
  /** Where a signed-in user lands. */
  home: string;
  /** The signed-in header's links. */
  links: readonly (readonly [href: string, label: string])[];
}

/** The signed-in header: the site's pages and the sign-out form (a POST, with the CSRF token). */
export interface Nav {
  csrfToken: string;
  /** The path of the page shown, marked as current. */
  current?: string;
  /** Who is signed in, when the site says so (the admin app names the staff member and role). */
  who?: string;
}

export function layout(site: Site, title: string, body: Html, opts: { nav?: Nav; narrow?: boolean } = {}): Html {
  const { nav } = opts;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${site.brand}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${site.base}${STYLE_PATH}">
</head>
<body>
<header${site.realm === 'staff' ? html` class="staff"` : ''}><span class="brand">${site.brand}</span>${
    nav
      ? html`<nav>${site.links.map(([href, label]) => html`<a href="${href}" ${nav.current === href ? html`aria-current="page"` : ''}>${label}</a>`)}</nav>
          ${nav.who ? html`<span class="who">${nav.who}</span>` : ''}
          <form method="post" action="${site.base}/signout">
            <input type="hidden" name="csrf_token" value="${nav.csrfToken}" /><button type="submit">Sign out</button>
          </form>`
      : ''
  }</header>
<main${opts.narrow ? html` class="narrow"` : ''}>
${body}
</main>
</body>
</html>
`;
}
