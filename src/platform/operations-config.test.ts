import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, tracingEnabled } from './config.js';

/** The operations settings: metrics, tracing switch, rate-limit store (docs/production.md). */
describe('operations configuration', () => {
  it('defaults: no metrics served, tracing off, buckets in memory', () => {
    expect(parseConfig({}).operations).toEqual({
      metricsToken: null,
      metricsPort: null,
      tracing: { enabled: false, serviceName: 'assay' },
      rateLimitStore: 'memory',
      portal: true,
    });
  });

  it('with DATABASE_URL (where several API processes may run) the buckets are shared, batched, by default', () => {
    const env = { DATABASE_URL: 'postgres://db.example/assay', ASSAY_ADMIN_TOKEN: 'a'.repeat(24), ASSAY_SECRET: 's'.repeat(32) };
    expect(parseConfig(env).operations.rateLimitStore).toBe('batched');
    expect(parseConfig({ ...env, ASSAY_RATE_LIMIT_STORE: 'memory' }).operations.rateLimitStore).toBe('memory');
    expect(parseConfig({ ASSAY_RATE_LIMIT_STORE: 'batched' }).operations.rateLimitStore).toBe('batched');
  });

  it('ASSAY_PORTAL=off leaves the staff portal out of this process', () => {
    expect(parseConfig({ ASSAY_PORTAL: 'off' }).operations.portal).toBe(false);
    expect(parseConfig({ ASSAY_PORTAL: 'on' }).operations.portal).toBe(true);
  });

  it('reads ASSAY_METRICS_TOKEN, ASSAY_METRICS_PORT and ASSAY_RATE_LIMIT_STORE', () => {
    const ops = parseConfig({ ASSAY_METRICS_TOKEN: 'x'.repeat(24), ASSAY_METRICS_PORT: '9464', ASSAY_RATE_LIMIT_STORE: 'postgres' }).operations;
    expect(ops).toMatchObject({ metricsToken: 'x'.repeat(24), metricsPort: 9464, rateLimitStore: 'postgres' });
  });

  it.each([
    [{ ASSAY_METRICS_TOKEN: 'short' }, 'ASSAY_METRICS_TOKEN'],
    [{ ASSAY_METRICS_PORT: '3000' }, 'ASSAY_METRICS_PORT'],
    [{ ASSAY_METRICS_PORT: '70000' }, 'ASSAY_METRICS_PORT'],
    [{ ASSAY_RATE_LIMIT_STORE: 'redis' }, 'ASSAY_RATE_LIMIT_STORE'],
    [{ ASSAY_PORTAL: 'no' }, 'ASSAY_PORTAL'],
  ])('refuses %o naming %s', (env, variable) => {
    expect(() => parseConfig(env)).toThrow(ConfigError);
    try {
      parseConfig(env);
    } catch (err) {
      expect((err as ConfigError).variable).toBe(variable);
    }
  });

  it('switches tracing on only through the standard OpenTelemetry variables', () => {
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracingEnabled({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingEnabled({ OTEL_TRACES_EXPORTER: 'console,none' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(parseConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SERVICE_NAME: 'assay-eu' }).operations.tracing).toEqual({ enabled: true, serviceName: 'assay-eu' });
  });
});
