-- +goose Up
-- Every list column holds a JSON array of strings, as partners.allow_ips and
-- partners.cert_fingerprints always did; key scopes and products and subscription event
-- types were comma-joined. The values (scopes, product types, event types) contain
-- neither commas nor quotes, so wrapping and replacing the separators is exact.
UPDATE api_keys SET scopes = CASE WHEN scopes = '' THEN '[]' ELSE '["' || REPLACE(scopes, ',', '","') || '"]' END
    WHERE scopes NOT LIKE '[%';
UPDATE api_keys SET products = CASE WHEN products = '' THEN '[]' ELSE '["' || REPLACE(products, ',', '","') || '"]' END
    WHERE products NOT LIKE '[%';
UPDATE webhook_subscriptions SET event_types = CASE WHEN event_types = '' THEN '[]' ELSE '["' || REPLACE(event_types, ',', '","') || '"]' END
    WHERE event_types NOT LIKE '[%';

-- +goose Down
UPDATE api_keys SET scopes = REPLACE(REPLACE(REPLACE(REPLACE(scopes, '","', ','), '["', ''), '"]', ''), '[]', '');
UPDATE api_keys SET products = REPLACE(REPLACE(REPLACE(REPLACE(products, '","', ','), '["', ''), '"]', ''), '[]', '');
UPDATE webhook_subscriptions SET event_types = REPLACE(REPLACE(REPLACE(REPLACE(event_types, '","', ','), '["', ''), '"]', ''), '[]', '');
