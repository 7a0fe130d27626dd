import { z } from "zod";

/**
 * `dashboard:` in config.yaml. The key names are part of the public configuration (README); the
 * defaults live in `resolveDashboardConfig` so the file loader does not need to know them.
 */
export const dashboardConfigSchema = z
  .object({
    /** Start the dashboard with the daemon (otherwise `mercury dashboard` starts it on demand). */
    enabled: z.boolean().optional(),
    /** 0 picks a free port (tests); the chosen one is shown by `mercury dashboard`. */
    port: z.number().int().min(0).max(65_535).optional(),
    /** 127.0.0.1 by default. Any other address needs TLS or `--insecure-lan`. */
    host: z.string().min(1).optional(),
    /** Certificate and key files (PEM) for HTTPS; both or neither. */
    tlsCert: z.string().min(1).optional(),
    tlsKey: z.string().min(1).optional(),
  })
  .strict()
  .refine((value) => (value.tlsCert === undefined) === (value.tlsKey === undefined), {
    message: "dashboard.tlsCert and dashboard.tlsKey go together: set both (PEM files) or neither",
  });
export type DashboardConfigFile = z.infer<typeof dashboardConfigSchema>;
