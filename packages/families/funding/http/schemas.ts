/** `:slug` of a funding campaign's public page and API: 16 base62 characters, unguessable. */
export const campaignSlugParams = { type: 'object', properties: { slug: { type: 'string', pattern: '^[0-9A-Za-z]{16}$' } }, required: ['slug'] };
