-- An expense line's own dimensions by name and value code ({"Projekt": "A"}), carried to its cost line at
-- booking over the expense's (docs/dimensions.md; decisions 855-857).
-- AlterTable
ALTER TABLE "expense_lines" ADD COLUMN     "dimensions" JSONB;
