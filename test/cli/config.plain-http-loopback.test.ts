import { describe, expect, it } from 'vitest';
import { loadConfig, plainHttpWarning, validateBaseUrl } from '../../src/config.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';

const KEY = 'sk_live_plain_http_0a1b2c3d';

describe('the API base URL takes plain http only to loopback', () => {
  it.each(['http://127.attacker.example', 'http://127.0.0.1.attacker.example:8787', 'http://localhost.attacker.example', 'http://10.0.0.5', 'http://[::ffff:7f00:1]'])(
    'refuses %s with exit 2 before the key is sent',
    async (baseUrl) => {
      const dir = tempDir('loyalty-plain-http-');
      const result = await runCli(['whoami'], { env: { LOYALTY_API_KEY: KEY, LOYALTY_BASE_URL: baseUrl, LOYALTY_DB: `${dir}/mirror.db` } });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('api.baseUrl');
      expect(result.stderr).toContain(baseUrl);
      expect(result.stderr).toContain('expected https');
      expect(result.stderr + result.stdout).not.toContain(KEY);
    },
  );

  it.each(['http://localhost:8787', 'http://127.0.0.1:8787', 'http://127.45.6.7', 'http://[::1]:8787', 'http://2130706433:8787', 'https://api.example.com'])('accepts %s', (baseUrl) => {
    expect(() => validateBaseUrl(baseUrl)).not.toThrow();
    expect(loadConfig({ env: { LOYALTY_BASE_URL: baseUrl } }).api.baseUrl).toBe(baseUrl);
  });
});

describe('a plain-http S3 endpoint or Pushgateway is allowed, with a warning', () => {
  it('warns for a cluster address and not for https or loopback', () => {
    expect(() => loadConfig({ env: {}, overrides: { export: { s3: { endpoint: 'http://minio.storage.svc:9000' } } } })).not.toThrow();
    expect(plainHttpWarning('http://minio.storage.svc:9000', 'The S3 endpoint')).toContain('http://minio.storage.svc:9000 is plain http');
    expect(plainHttpWarning('http://user:secret@pushgateway:9091', 'The Pushgateway')).not.toContain('secret');
    expect(plainHttpWarning('https://pushgateway:9091', 'The Pushgateway')).toBeNull();
    expect(plainHttpWarning('http://127.0.0.1:9091', 'The Pushgateway')).toBeNull();
  });
});
