import { describe, expect, it } from 'vitest';
import { toolUrls } from '../../lti/lti-context.js';
import { toolUrlProblem, toolUrlsPanel } from './lti-platform-views.js';

/** The LTI page's warning that an LMS cannot use the tool URLs: not https, or a local name or private address. */
describe('toolUrlProblem', () => {
  it('names an address only this machine or its network reaches, and a URL without https', () => {
    for (const base of ['http://localhost:3000', 'https://localhost', 'https://assay.localhost', 'http://127.0.0.1:8080', 'https://[::1]:3000', 'https://10.1.2.3', 'https://192.168.0.10', 'https://172.20.0.2', 'http://0.0.0.0:3000']) {
      expect(toolUrlProblem(toolUrls(base).loginUrl), base).toBe('local');
    }
    for (const base of ['http://assay.example.com', 'http://172.32.0.1']) expect(toolUrlProblem(toolUrls(base).loginUrl), base).toBe('insecure');
    for (const base of ['https://assay.example.com', 'https://172.32.0.1', 'https://exams.college.edu:8443']) expect(toolUrlProblem(toolUrls(base).loginUrl), base).toBeNull();
  });

  it('puts the warning above the URLs only when there is a problem', () => {
    const local = String(toolUrlsPanel(toolUrls('http://localhost:3000')));
    expect(local).toContain('id="tool-url-warning"');
    expect(local).toContain('<code>http://localhost:3000</code>');
    expect(local).toContain('<code>PUBLIC_BASE_URL</code>');
    expect(local.indexOf('tool-url-warning')).toBeLessThan(local.indexOf('tool-login-url'));
    expect(String(toolUrlsPanel(toolUrls('http://assay.example.com')))).toContain('without https');
    expect(String(toolUrlsPanel(toolUrls('https://assay.example.com')))).not.toContain('tool-url-warning');
  });
});
