// orval's fetch client, its base URL the document's first server.
export default {
  api: {
    input: "./openapi.json",
    output: {
      target: "./orval/api.ts",
      client: "fetch",
      baseUrl: { getBaseUrlFromSpecification: true },
    },
  },
};
