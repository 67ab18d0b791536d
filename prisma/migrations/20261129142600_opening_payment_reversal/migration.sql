-- An opening balance's payment made from a bank line is undone when the line is unmatched (decision 878):
-- the reversal's posting is kept on the payment, as on an invoice's payment, and the payment stops counting.
ALTER TABLE "opening_balance_payments" ADD COLUMN "reversed_transaction_id" UUID;
