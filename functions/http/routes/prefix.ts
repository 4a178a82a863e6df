/** Every route of the API sits under this path; the documents' server URLs end with it. */
export const API_PREFIX = '/api/v1';
