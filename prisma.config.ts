// Prisma CLI configuration. The CLI does not read .env; DATABASE_URL is only needed by migrate commands.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost/unset' },
});
