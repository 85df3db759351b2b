/** Written by the dashboard's build (scripts/buildDashboard.ts) from the HttpApi's declaration. */
declare module "waymark:endpoints" {
  export const ENDPOINTS: import("./endpoints.ts").EndpointTable
}
