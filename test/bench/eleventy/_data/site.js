// The settings `npm run build` takes from the same variables, with its defaults.
export default {
  baseUrl: process.env.BASE_URL ?? 'http://localhost:3000',
  pageSize: Number(process.env.PAGE_SIZE ?? 10),
};
