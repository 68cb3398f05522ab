// The Server setting as a base URL; apart from the connection so that validating a config loads no client.
export const serverUrl = (server: string) => server.trim().replace(/\/+$/, "");
