// The owner pages as a site of @tlr/web: owners' sessions, at the root, with the settings pages in the header.
import type { Site } from '@tlr/web';

export const OWNER_SITE: Site = {
  realm: 'owner',
  cookie: 'tlr_session',
  deviceCookie: 'tlr_device',
  base: '',
  brand: 'tlr',
  home: '/settings/api-keys',
  links: [
    ['/settings/api-keys', 'API keys'],
    ['/settings/connected-apps', 'Connected apps'],
    ['/settings/company', 'Company'],
    ['/settings/email-templates', 'E-mail texts'],
    ['/settings/bank-reconciliation', 'Bank reconciliation'],
    ['/settings/recurring-invoices', 'Recurring invoices'],
  ],
};
